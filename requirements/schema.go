package requirements

import (
	"maps"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/internal/hint"
)

// Well-known label keys of Kubernetes and Karpenter.
const (
	LabelTopologyZone   = "topology.kubernetes.io/zone"
	LabelTopologyRegion = "topology.kubernetes.io/region"
	LabelInstanceType   = "node.kubernetes.io/instance-type"
	LabelArch           = "kubernetes.io/arch"
	LabelOS             = "kubernetes.io/os"
	LabelWindowsBuild   = "node.kubernetes.io/windows-build"
	LabelHostname       = "kubernetes.io/hostname"
	LabelNodePool       = "karpenter.sh/nodepool"
	LabelCapacityType   = "karpenter.sh/capacity-type"
	// LabelNodeInitialized and LabelNodeRegistered are set on nodes Karpenter
	// manages; DaemonSets may select them, so a template carries both (true)
	// while DaemonSet overhead is evaluated. They never reach a NodeClaim.
	LabelNodeInitialized = "karpenter.sh/initialized"
	LabelNodeRegistered  = "karpenter.sh/registered"
)

// Capacity types of an offering.
const (
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeSpot     = "spot"
	CapacityTypeReserved = "reserved"
)

// Deprecated labels and the stable keys they stand for.
func deprecatedAliases() map[string]string {
	return map[string]string{
		"failure-domain.beta.kubernetes.io/zone":   LabelTopologyZone,
		"failure-domain.beta.kubernetes.io/region": LabelTopologyRegion,
		"beta.kubernetes.io/arch":                  LabelArch,
		"beta.kubernetes.io/os":                    LabelOS,
		"beta.kubernetes.io/instance-type":         LabelInstanceType,
	}
}

// WellKnown tells whether a label key is well-known: the cloud or Karpenter
// decides its value, so a requirement on it needs no declaration. A nil
// WellKnown treats no key as well-known (strict matching, as against the
// fixed labels of an existing node).
type WellKnown interface {
	IsWellKnown(key string) bool
}

// Schema is the label vocabulary a solve runs with: which keys are well-known,
// which keys are aliases of others, and which keys and domains users may not
// write in NodePools or required pod constraints. It is an immutable value;
// the With* methods return extended copies. The zero Schema knows no keys,
// aliases nothing and restricts nothing.
type Schema struct {
	// d is shared between copies and never written after construction (the
	// With* methods build a new one). One pointer keeps Schema pointer-shaped,
	// so passing a Schema as a WellKnown does not allocate.
	d *schemaData
}

type schemaData struct {
	wellKnown         map[string]struct{}
	aliases           map[string]string
	restrictedKeys    map[string]struct{}
	restrictedDomains []string
}

// data returns the schema's tables; the zero Schema has empty ones. The maps
// are shared: callers read them and clone before writing.
func (s Schema) data() schemaData {
	if s.d == nil {
		return schemaData{}
	}
	return *s.d
}

// DefaultSchema is the vocabulary of core Kubernetes and Karpenter: zone,
// region, instance type, arch, OS, Windows build, NodePool and capacity type
// are well-known; the deprecated beta labels are aliases of the stable ones;
// kubernetes.io/hostname and the karpenter.sh domain (but for its well-known
// keys) are restricted. Providers extend it (see instancetypes/aws).
func DefaultSchema() Schema {
	d := &schemaData{
		wellKnown:         map[string]struct{}{},
		aliases:           deprecatedAliases(),
		restrictedKeys:    map[string]struct{}{LabelHostname: {}},
		restrictedDomains: []string{"karpenter.sh"},
	}
	for _, k := range []string{LabelTopologyZone, LabelTopologyRegion, LabelInstanceType, LabelArch, LabelOS,
		LabelWindowsBuild, LabelNodePool, LabelCapacityType} {
		d.wellKnown[k] = struct{}{}
	}
	return Schema{d: d}
}

// WithWellKnown returns a copy of s in which keys are also well-known.
func (s Schema) WithWellKnown(keys ...string) Schema {
	d := s.data()
	d.wellKnown = maps.Clone(d.wellKnown)
	if d.wellKnown == nil {
		d.wellKnown = map[string]struct{}{}
	}
	for _, k := range keys {
		d.wellKnown[k] = struct{}{}
	}
	return Schema{d: &d}
}

// WithAliases returns a copy of s in which each key of aliases is rewritten
// to its value wherever a requirement, label or selector is read.
func (s Schema) WithAliases(aliases map[string]string) Schema {
	d := s.data()
	d.aliases = maps.Clone(d.aliases)
	if d.aliases == nil {
		d.aliases = map[string]string{}
	}
	maps.Copy(d.aliases, aliases)
	return Schema{d: &d}
}

// WithRestrictedDomains returns a copy of s in which keys of these label
// domains (and their subdomains) are restricted unless well-known.
func (s Schema) WithRestrictedDomains(domains ...string) Schema {
	d := s.data()
	d.restrictedDomains = append(slices.Clone(d.restrictedDomains), domains...)
	slices.Sort(d.restrictedDomains)
	d.restrictedDomains = slices.Compact(d.restrictedDomains)
	return Schema{d: &d}
}

// IsWellKnown reports whether key (after normalisation) is well-known.
func (s Schema) IsWellKnown(key string) bool {
	_, ok := s.data().wellKnown[s.Normalize(key)]
	return ok
}

// WellKnownKeys returns the well-known keys, sorted.
func (s Schema) WellKnownKeys() []string { return slices.Sorted(maps.Keys(s.data().wellKnown)) }

// Aliases returns a copy of the alias table (alias → stable key).
func (s Schema) Aliases() map[string]string { return maps.Clone(s.data().aliases) }

// Normalize maps a deprecated or provider-specific alias to its stable key.
func (s Schema) Normalize(key string) string {
	if to, ok := s.data().aliases[key]; ok {
		return to
	}
	return key
}

// NormalizeLabels returns labels with every alias rewritten to its stable
// key (Normalize). When a label map carries both an alias and its stable
// key, the stable key's value wins, whatever the map order; of two aliases
// of one key, the first by name wins. labels is not modified.
func (s Schema) NormalizeLabels(labels map[string]string) map[string]string {
	out := make(map[string]string, len(labels))
	keys := slices.Sorted(maps.Keys(labels))
	for _, k := range keys {
		if s.Normalize(k) == k {
			out[k] = labels[k]
		}
	}
	for _, k := range keys {
		if n := s.Normalize(k); n != k {
			if _, ok := out[n]; !ok {
				out[n] = labels[k]
			}
		}
	}
	return out
}

// IsRestricted reports whether users may not constrain key: a restricted key
// such as kubernetes.io/hostname, or a key in a restricted domain that is not
// well-known (karpenter.sh/foo, but not karpenter.sh/capacity-type).
func (s Schema) IsRestricted(key string) bool {
	key = s.Normalize(key)
	d := s.data()
	if _, ok := d.restrictedKeys[key]; ok {
		return true
	}
	if s.IsWellKnown(key) {
		return false
	}
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return false
	}
	for _, r := range d.restrictedDomains {
		if domain == r || strings.HasSuffix(domain, "."+r) {
			return true
		}
	}
	return false
}

// Hint suggests the well-known key a user probably meant when key is not
// known: a well-known key with the same name part (`zone` →
// topology.kubernetes.io/zone) or within two edits of it. It returns "" when
// nothing is close. The choice is deterministic: the closest key, then the
// first in sorted order.
func (s Schema) Hint(key string) string {
	if s.IsWellKnown(key) {
		return ""
	}
	name := key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		name = key[i+1:]
	}
	best, bestScore := "", 3
	for _, wk := range s.WellKnownKeys() {
		score := hint.Distance(key, wk, bestScore)
		wkName := wk
		if i := strings.LastIndexByte(wk, '/'); i >= 0 {
			wkName = wk[i+1:]
		}
		if name == wkName && score > 1 {
			score = 1
		}
		if score < bestScore {
			best, bestScore = wk, score
		}
	}
	return best
}
