package topology

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
)

// Term is one topology rule a pod owns.
type Term struct {
	g        *group
	Kind     Kind
	Key      string
	Required bool
	// Weight orders preferred terms (spread constraints with
	// ScheduleAnyway have weight 0).
	Weight int32
	self   bool
	// eligible domains for a spread term (non-hostname); early, those of
	// the existing nodes (early.go).
	eligible []int32
	early    []int32
}

// Describe names the term for people.
func (t Term) Describe() string { return t.g.describe() }

// Self reports whether the term's selector matches the pod that has it.
func (t Term) Self() bool { return t.self }

// Counts reports whether the term's group counts a pod in some domain now
// (before any pending pod is placed: whether an existing pod matches).
func (t Term) Counts() bool { return t.g != nil && t.g.nonzero > 0 }

// Pod is a registered pending pod (or class of identical pods).
type Pod struct {
	Terms   []Term
	matched []*group
	keys    []string
	// keyStates holds the tracker's state of each of keys (Finish).
	keyStates []*keyState
	// loose marks each of keys on which only loose groups count the pod
	// (loose.go): a check never pins a NodeClaim there; relaxOpen, each on
	// which a check leaves a NodeClaim open once the pod's rules there are
	// relaxed (relaxOpenKey).
	loose, relaxOpen []bool
	// canEarly: the pod has required spreads off hostname and no required
	// pod affinity, so on a ready existing node it may bind in the first
	// phase (early.go).
	canEarly bool
	// affinityAfter: an affinity term of the pod follows another of its
	// terms on the same key (ruledOut).
	affinityAfter bool
	// open marks each of keys on which the pod's only rules are preferred
	// anti-affinity terms and only loose groups count it (loose.go), or
	// on which it has no rule and only inverse-only groups count it
	// (inverse.go): a check leaves a NodeClaim open on every domain those
	// terms allow.
	open []bool
}

// Isolated reports whether the pod has a required anti-affinity to itself
// on hostname: each such pod needs its own node among its group.
func (p *Pod) Isolated() bool {
	for _, t := range p.Terms {
		if t.Kind == AntiAffinity && t.Required && t.self && t.Key == requirements.LabelHostname {
			return true
		}
	}
	return false
}

// Relevant reports whether any topology group owns or counts the pod.
func (p *Pod) Relevant() bool { return len(p.keys) > 0 }

// Keys returns the topology keys that matter to the pod, sorted.
func (p *Pod) Keys() []string { return p.keys }

// Register adds a pending pod: its spread constraints and (anti-)affinity
// terms become groups (shared with identical terms of other pods), and it
// learns which groups count it. Call it for every pending pod before the
// first Check; groups created later do not see earlier registrations.
func (t *Tracker) Register(spec PodSpec) (*Pod, error) {
	p := &Pod{}
	for _, c := range spec.Spread {
		if err := t.addSpread(p, spec, c); err != nil {
			return nil, err
		}
	}
	if a := spec.Affinity; a != nil {
		if pa := a.PodAffinity; pa != nil {
			for _, term := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				if err := t.addTerm(p, spec, Affinity, term, true, 0); err != nil {
					return nil, err
				}
			}
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if err := t.addTerm(p, spec, Affinity, w.PodAffinityTerm, false, w.Weight); err != nil {
					return nil, err
				}
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			for _, term := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				if err := t.addTerm(p, spec, AntiAffinity, term, true, 0); err != nil {
					return nil, err
				}
			}
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if err := t.addTerm(p, spec, AntiAffinity, w.PodAffinityTerm, false, w.Weight); err != nil {
					return nil, err
				}
			}
		}
	}
	return p, nil
}

// Finish computes, for every registered pod, which groups count it. Call it
// once after the last Register.
func (t *Tracker) Finish(pods []*Pod, specs []PodSpec) {
	t.markLoose()
	for i, p := range pods {
		spec := specs[i]
		for _, g := range t.groups {
			if g.ns.matches(spec.Namespace, t.namespaces) && g.selector.Matches(labels.Set(spec.Labels)) {
				p.matched = append(p.matched, g)
			}
		}
	}
	t.markInverseOnly(pods)
	t.markBindsAfter(pods, specs)
	for _, p := range pods {
		if t.existingFirst {
			p.setCanEarly()
		}
		p.affinityAfter = p.hasAffinityAfter()
		keys := map[string]bool{}
		for _, term := range p.Terms {
			keys[term.Key] = true
		}
		for _, g := range p.matched {
			keys[g.ks.key] = true
		}
		for k := range keys {
			p.keys = append(p.keys, k)
		}
		slices.Sort(p.keys)
		for _, k := range p.keys {
			p.keyStates = append(p.keyStates, t.keys[k])
			p.loose = append(p.loose, p.looseKey(k))
			p.relaxOpen = append(p.relaxOpen, p.relaxOpenKey(k))
			p.open = append(p.open, (t.leaveOpen && p.softOwnerKey(k)) || (t.inverseOpen && p.inverseOnlyKey(k)))
		}
	}
}

func (t *Tracker) addSpread(p *Pod, spec PodSpec, c corev1.TopologySpreadConstraint) error {
	var extra labels.Selector
	if len(c.MatchLabelKeys) > 0 && c.LabelSelector != nil {
		set := labels.Set{}
		for _, k := range c.MatchLabelKeys {
			if v, ok := spec.Labels[k]; ok {
				set[k] = v
			}
		}
		if len(set) > 0 {
			extra = labels.SelectorFromSet(set)
		}
	}
	o := termOpts{maxSkew: c.MaxSkew, minDomains: 1}
	if c.MinDomains != nil {
		o.minDomains = *c.MinDomains
	}
	honorAffinity := c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor
	if honorAffinity {
		o.filterReqs = spec.Requirements
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		o.honorTaints, o.tolerations = true, spec.Tolerations
	}
	o.needKeys = t.otherSpreadKeys(spec, c)
	term := corev1.PodAffinityTerm{LabelSelector: c.LabelSelector, TopologyKey: c.TopologyKey, Namespaces: []string{spec.Namespace}}
	g, err := t.group(Spread, term, spec.Namespace, extra, o)
	if err != nil {
		return fmt.Errorf("topologySpreadConstraint on %s: %w", c.TopologyKey, err)
	}
	tm := Term{g: g, Kind: Spread, Key: g.ks.key, Required: c.WhenUnsatisfiable != corev1.ScheduleAnyway,
		self: g.selector.Matches(labels.Set(spec.Labels))}
	g.required = g.required || tm.Required
	if g.ks.key != requirements.LabelHostname {
		tm.eligible, tm.early = t.eligible(g, t.domainSpec(spec, tm), honorAffinity, o.honorTaints, t.poolDomains && !tm.Required)
		if !g.eligibleSet {
			g.eligible, g.earlyEligible, g.eligibleSet = tm.eligible, tm.early, true
		}
	}
	p.Terms = append(p.Terms, tm)
	return nil
}

// otherSpreadKeys are the topology keys, other than c's, of the pod's
// spread constraints that are as hard as c (DoNotSchedule, or
// ScheduleAnyway), normalised, sorted: kube-scheduler's PodTopologySpread
// counts a node for any constraint of a set, and takes it for a domain, only
// when the node has a label for every key of the set (a pod spread on zone
// and on a custom key does not count the pods of a node without the custom
// label in its zone). The hostname is left out: every node has one (a node
// object without the label is known by its name, as everywhere here).
func (t *Tracker) otherSpreadKeys(spec PodSpec, c corev1.TopologySpreadConstraint) []string {
	if len(spec.Spread) < 2 {
		return nil
	}
	if t.defaultSchema == nil {
		d := requirements.DefaultSchema()
		t.defaultSchema = &d
	}
	norm := func(k string) string { return t.schema.Normalize(t.defaultSchema.Normalize(k)) }
	own := norm(c.TopologyKey)
	hard := c.WhenUnsatisfiable != corev1.ScheduleAnyway
	var keys []string
	for _, o := range spec.Spread {
		if k := norm(o.TopologyKey); k != own && k != requirements.LabelHostname && (o.WhenUnsatisfiable != corev1.ScheduleAnyway) == hard {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func (t *Tracker) addTerm(p *Pod, spec PodSpec, kind Kind, term corev1.PodAffinityTerm, required bool, weight int32) error {
	g, err := t.group(kind, term, spec.Namespace, nil, termOpts{})
	if err != nil {
		return fmt.Errorf("%s term on %s: %w", kind, term.TopologyKey, err)
	}
	g.required = g.required || required
	tm := Term{g: g, Kind: kind, Key: g.ks.key, Required: required, Weight: weight,
		self: g.ns.matches(spec.Namespace, t.namespaces) && g.selector.Matches(labels.Set(spec.Labels))}
	if kind == Affinity && g.ks.key != requirements.LabelHostname {
		tm.eligible, _ = t.eligible(g, spec, true, false, false)
	}
	p.Terms = append(p.Terms, tm)
	return nil
}

// eligible returns the domains of g's key the pod could use: values offered
// by sources that pass the pod's node filter, restricted to values its
// requirements allow. What the existing sources give depends only on the
// key, the node filter and the pod's requirements and tolerations
// (eligibleKey): the tracker keeps it, and later pods alike in those skip
// the existing sources (their values are interned already, so the domains
// and their numbers are the same). perKey takes the NodePools' values by
// Source.KeyValues (a soft spread under SoftSpreadPoolDomains).
func (t *Tracker) eligible(g *group, spec PodSpec, honorAffinity, honorTaints, perKey bool) (all, existing []int32) {
	seen := map[int32]bool{}
	var out []int32
	add := func(d int32) {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	mk := eligibleKey(g.ks.key, spec, honorAffinity, honorTaints)
	if len(g.needKeys) > 0 {
		mk += "\x00keys=" + strings.Join(g.needKeys, ",")
	}
	known, replay := t.eligibleMemo[mk]
	var mine []int32 // the existing sources' domains, when not known
	mineSeen := map[int32]bool{}
	for i := range t.sources {
		if replay && t.sources[i].Existing {
			continue
		}
		if !t.sourceHasKeys(i, g.needKeys) {
			continue
		}
		for _, d := range t.sourceEligible(i, g.ks, spec, honorAffinity, honorTaints, perKey) {
			add(d)
			if t.sources[i].Existing && !mineSeen[d] {
				mineSeen[d] = true
				mine = append(mine, d)
			}
		}
	}
	if replay {
		for _, d := range known {
			add(d)
		}
		mine = known
	} else {
		if t.eligibleMemo == nil {
			t.eligibleMemo = map[string][]int32{}
		}
		t.eligibleMemo[mk] = mine
	}
	if t.existingFirst {
		existing = sortedDomains(g.ks, mine)
	}
	return sortedDomains(g.ks, out), existing
}

// sourceHasKeys reports whether source i's nodes carry a label for every
// key (claimHasKey for a NodePool).
func (t *Tracker) sourceHasKeys(i int, keys []string) bool {
	if len(keys) == 0 {
		return true
	}
	s := &t.sources[i]
	for _, k := range keys {
		if s.Existing {
			if _, ok := t.sourceLabels(i)[k]; !ok {
				return false
			}
		} else if !claimHasKey(s.Requirements, k, t.schema) {
			return false
		}
	}
	return true
}

// sourceEligible lists the domains of ks source i gives a pod with spec
// (eligible), interning them in order.
func (t *Tracker) sourceEligible(i int, ks *keyState, spec PodSpec, honorAffinity, honorTaints, perKey bool) []int32 {
	s := &t.sources[i]
	if honorAffinity && len(spec.Requirements) > 0 {
		ok := slices.ContainsFunc(spec.Requirements, func(r requirements.Requirements) bool {
			if s.Existing {
				return r.Matches(t.sourceLabels(i))
			}
			return s.Requirements.Compatible(r, t.schema) == nil
		})
		if !ok {
			return nil
		}
	}
	if honorTaints {
		if _, bad := requirements.UntoleratedTaint(s.Taints, spec.Tolerations); bad {
			return nil
		}
	}
	alts := spec.Requirements
	if !honorAffinity || len(alts) == 0 {
		alts = []requirements.Requirements{{}}
	}
	var out []int32
	for _, alt := range alts {
		if !s.Existing && s.Requirements.Compatible(alt, t.schema) != nil {
			continue
		}
		values := t.sourceValues
		if perKey && !s.Existing && s.KeyValues != nil {
			values = func(_ int, key string, reqs requirements.Requirements) []string { return s.KeyValues(key, reqs) }
		}
		for _, v := range values(i, ks.key, alt) {
			if alt.Get(ks.key).Has(v) {
				out = append(out, ks.intern(v))
			}
		}
	}
	return out
}

// eligibleKey names what the existing sources' part of eligible reads.
func eligibleKey(key string, spec PodSpec, honorAffinity, honorTaints bool) string {
	var b strings.Builder
	b.WriteString(key)
	b.WriteByte(0)
	if honorAffinity {
		b.WriteByte('a')
		for _, r := range spec.Requirements {
			fp := r.Fingerprint()
			b.WriteString(strconv.Itoa(len(fp)))
			b.WriteByte(':')
			b.WriteString(fp)
		}
	}
	b.WriteByte(0)
	if honorTaints {
		b.WriteByte('t')
		for _, tol := range spec.Tolerations {
			for _, f := range []string{tol.Key, string(tol.Operator), tol.Value, string(tol.Effect)} {
				b.WriteString(strconv.Itoa(len(f)))
				b.WriteByte(':')
				b.WriteString(f)
			}
		}
	}
	return b.String()
}

// sourceValues is sources[i].Values(key, reqs); an existing node's values
// do not depend on reqs (Source.Values), so they are asked once per key
// for every existing source together.
func (t *Tracker) sourceValues(i int, key string, reqs requirements.Requirements) []string {
	s := &t.sources[i]
	if !s.Existing {
		return s.Values(key, reqs)
	}
	vals, ok := t.existingValues[key]
	if !ok {
		vals = make([][]string, len(t.sources))
		for j := range t.sources {
			if t.sources[j].Existing {
				vals[j] = t.sources[j].Values(key, reqs)
			}
		}
		if t.existingValues == nil {
			t.existingValues = map[string][][]string{}
		}
		t.existingValues[key] = vals
	}
	return vals[i]
}

// sourceLabels returns the labels of existing source i (Source.Labels, or
// its requirements as labels, computed once).
func (t *Tracker) sourceLabels(i int) map[string]string {
	if l := t.sources[i].Labels; l != nil {
		return l
	}
	if t.labels == nil {
		t.labels = make([]map[string]string, len(t.sources))
	}
	if t.labels[i] == nil {
		t.labels[i] = t.sources[i].Requirements.Labels()
	}
	return t.labels[i]
}

// Host is a candidate node for a pod: an existing node, or a NodeClaim
// (planned earlier in this solve, or new).
type Host struct {
	// Hostname is the node name or the NodeClaim's placeholder name.
	Hostname string
	// HostnameDomain, when set, is where the tracker keeps the domain
	// index of Hostname once it has looked it up: a caller that checks one
	// NodeClaim again and again passes the same slot (the NodeClaim's own:
	// shared, written by the tracker) and saves the lookups.
	HostnameDomain *HostnameDomain
	// Node is set for an existing node.
	Node *Node
	// Requirements are the candidate's requirements after the pod's were
	// intersected in (a NodeClaim); ignored for an existing node.
	Requirements requirements.Requirements
	Taints       []corev1.Taint
	// Domains, when set, lists the values a NodeClaim could still take for
	// a key its requirements leave open (from its instance types and
	// offerings); otherwise every value seen so far is a candidate.
	Domains DomainLister
	// Decided, when set, is where the tracker keeps the domains
	// Requirements decide once it has looked them up: a caller that passes
	// the same requirement set again and again passes the same slots (the
	// set's own: shared, written by the tracker).
	Decided *DecidedDomains
	// NodeDomains, when set with Node, is where the tracker keeps the
	// domains of the node's labels once it has looked them up: a caller
	// that checks pods on one node again and again passes the same slots
	// (the node's own in that tracker: shared, written by the tracker).
	NodeDomains *NodeDomains
	// LookAhead lets a check whose greedy choice of domains fails choose
	// again with the later keys in view (lookahead.go); a caller sets it
	// for a pod's last try only, so that every other placement keeps the
	// greedy choice.
	LookAhead bool
}

// NodeDomains holds the domain indexes of an existing node's labels in one
// tracker (see Host.NodeDomains). Its zero value holds nothing yet.
type NodeDomains struct {
	t    *Tracker
	doms []nodeDomain
}

// nodeDomain is a node's domain on one key, ok false without the label.
type nodeDomain struct {
	ks *keyState
	d  int32
	ok bool
}

// hostNodeDomain is nodeDomain for h's node, from h's slots when it has
// them.
func (t *Tracker) hostNodeDomain(ks *keyState, h *Host) (int32, bool) {
	c := h.NodeDomains
	if c == nil {
		return t.nodeDomain(ks, h.Node)
	}
	if c.t != t {
		c.t, c.doms = t, nil // a fresh array: a copied NodeDomains may share the old one
	}
	for _, nd := range c.doms {
		if nd.ks == ks {
			return nd.d, nd.ok
		}
	}
	d, ok := t.nodeDomain(ks, h.Node)
	c.doms = append(c.doms, nodeDomain{ks: ks, d: d, ok: ok})
	return d, ok
}

// HostnameDomain holds the domain index of a hostname in one tracker (see
// Host.HostnameDomain). Its zero value holds nothing yet.
type HostnameDomain struct {
	ks *keyState
	d  int32
}

// hostnameDomain returns the domain of h's hostname in ks (the hostname
// key's state), from h's slot when it holds it.
func (h *Host) hostnameDomain(ks *keyState) int32 {
	if c := h.HostnameDomain; c != nil {
		if c.ks != ks {
			c.ks, c.d = ks, ks.intern(h.Hostname)
		}
		return c.d
	}
	return ks.intern(h.Hostname)
}

// DomainLister lists the values a NodeClaim could take for a key.
type DomainLister interface {
	DomainValues(key string) []string
}

// Violation says why a pod may not go to a host.
type Violation struct {
	Kind Kind
	Key  string
	// g and doms describe the group and domains for the message, built
	// only when asked (failure is the hot path).
	g    *group
	doms []int32
	why  string
	msg  string
	// noType, when set, is the key no instance type could be pinned in
	// (noTypeIn), doms the domains the rules allowed there.
	noType *keyState
	// skew, when set, renders "maxSkew N would be exceeded (global minimum M)".
	skew, min int32
	hasSkew   bool
	existing  bool
	// missing: the node lacks the term's key (MissingLabel).
	missing bool
	// owners renders the counts of the group's owners (the pods whose
	// anti-affinity refuses this one), not of the pods it selects.
	owners bool
	// Permanent is set when the refusal can only persist as the solve goes
	// on (counts only grow): required anti-affinity, and spread on
	// hostname while the domains are open, where the minimum is zero.
	Permanent bool
}

func (v *Violation) Error() string { return v.Message() }

// NoInstanceType reports whether the refusal is that no domain the pod's
// rules allow on a key has an instance type for it (by the ranker).
func (v *Violation) NoInstanceType() bool { return v.noType != nil }

// Group describes the group at fault.
func (v *Violation) Group() string {
	if v.g == nil {
		return ""
	}
	return v.g.describe()
}

// MissingLabel reports whether the violation is a node without the term's
// key: no node of the same labels ever meets it, whatever its pods.
func (v *Violation) MissingLabel() bool { return v.missing }

// Message renders the violation, e.g. "topology spread on
// topology.kubernetes.io/zone (app=web): maxSkew 1 would be exceeded (global minimum 2);
// domains us-east-1a=3 us-east-1b=2".
func (v *Violation) Message() string {
	if v.msg != "" {
		return v.msg
	}
	if ks := v.noType; ks != nil {
		return fmt.Sprintf("no instance type holds the pod in a domain of %s its topology rules allow (%s)", ks.key, domainList(ks, v.doms))
	}
	if v.g == nil {
		return v.why
	}
	doms := v.doms
	why := v.why
	if v.hasSkew {
		why = fmt.Sprintf("maxSkew %d would be exceeded (global minimum %d)", v.skew, v.min)
		if v.existing {
			why = fmt.Sprintf("maxSkew %d of the pods already there would be exceeded (global minimum %d)", v.skew, v.min)
		}
	}
	if v.g.ks.key == requirements.LabelHostname {
		return fmt.Sprintf("%s: %s", v.g.describe(), why) // one node: its count says nothing more
	}
	if v.owners {
		return fmt.Sprintf("%s: %s; owners per domain %s", v.g.describe(), why, v.g.ownerCounts(sortedDomains(v.g.ks, doms)))
	}
	return fmt.Sprintf("%s: %s; domains %s", v.g.describe(), why, v.g.counts(sortedDomains(v.g.ks, doms)))
}

// Ranker breaks ties between domains a host could be pinned to: lower is
// better (+Inf: no instance type the pod fits is left). It may be nil. With
// an empty key it ranks the pins alone.
// pins are the domains already chosen for the host's other keys in the same
// check, so that a price can take them together (a capacity type chosen
// first leaves only the zones that offer it).
type Ranker func(pins []requirements.Requirement, key, value string) float64

// Active reports whether term i of a pod is enforced.
type Active func(i int) bool

// Check decides whether the pod may go to host with its active terms, and
// returns the requirements that pin the host to one domain on every key
// where the pod's placement must be known (nil when nothing needs pinning).
func (t *Tracker) Check(p *Pod, active Active, h *Host, rank Ranker) ([]requirements.Requirement, *Violation) {
	return t.CheckScope(p, active, h, rank, AllKeys)
}

// Scope restricts a check to some keys.
type Scope uint8

// The scopes of a check: every key, only hostname (what differs between
// NodeClaims that share requirements), or every key but hostname (what they
// share).
const (
	AllKeys Scope = iota
	HostnameOnly
	ExceptHostname
)

// skips reports whether scope leaves key out.
func (scope Scope) skips(key string) bool {
	hn := key == requirements.LabelHostname
	return (scope == HostnameOnly && !hn) || (scope == ExceptHostname && hn)
}

// CheckScope is Check restricted to the keys of scope.
func (t *Tracker) CheckScope(p *Pod, active Active, h *Host, rank Ranker, scope Scope) ([]requirements.Requirement, *Violation) {
	if len(p.keys) == 0 {
		return nil, nil
	}
	var pins []requirements.Requirement
	for i, key := range p.keys {
		if scope.skips(key) || t.skipsKey(p, i, active, h) {
			continue
		}
		ks := p.keyStates[i]
		cands, single := t.candidates(ks, h)
		if len(cands) == 0 {
			// The node will not have the key: spread and affinity terms on it
			// cannot be satisfied there; anti-affinity trivially is, and no
			// group counts the pod on this key.
			if v := t.missingKey(p, active, key); v != nil {
				return nil, v
			}
			if v := t.unreadDomain(p, active, ks); v != nil {
				return nil, v
			}
			continue
		}
		cands, v := t.filter(p, active, ks, cands, h)
		if v != nil {
			return nil, v
		}
		if !single && p.open[i] && h.Node == nil {
			pin, ok := t.openPin(ks, cands, pins, rank)
			if !ok {
				return t.retryAhead(p, active, h, rank, scope, pins, ks, cands)
			}
			pins = append(pins, pin)
		} else if !single {
			d, ok := t.choose(p, active, ks, cands, pins, rank)
			if !ok {
				return t.retryAhead(p, active, h, rank, scope, pins, ks, cands)
			}
			pins = append(pins, requirements.In(key, ks.values[d]))
		}
	}
	if h.Node == nil && scope != HostnameOnly {
		pins = t.filterPins(p, h, pins, rank)
	}
	return pins, nil
}

// priceTie is the price difference filterPins takes for a tie.
const priceTie = 1e-9

// LeaveSoftFiltersOpen makes filterPins leave a NodeClaim's place in or out
// of the node filter of a group only ScheduleAnyway spreads own: such a
// claim is counted wherever its requirements let it be (hostPasses), and
// no pin removes from it the types that would put its node in or out of
// the filter. Only a preference reads such a count, and keeping a claim
// out of the filter could cost the pod its cheapest type (a counted pod
// paid $0.41/h more per node for another pod's ScheduleAnyway spread,
// where Karpenter pins nothing). A plan of Karpenter's packing asks for it.
func (t *Tracker) LeaveSoftFiltersOpen() { t.softFiltersOpen = true }

// filterPins settles, for a NodeClaim, the node filter of every spread
// group that counts the pod (the carriers' required node affinity, under
// nodeAffinityPolicy Honor): kube-scheduler counts the pod only if the node
// the claim becomes matches the filter, and a claim whose requirements
// leave that open might become either. The claim is narrowed out of every
// alternative of the filter where it can be (a pod that does not need the
// carriers' kind of node should not be forced onto one; with
// EnterFilterWhenCheaper, unless that costs more than entering one), else
// into the alternative it can meet that leaves the cheapest node, so that
// it is counted, as placing the pod assumes. A claim that can be neither (its types all carry a value a NotIn
// alternative excludes, and none of them meets the alternative) is pinned
// to those values: left open it would be counted where its node is not.
func (t *Tracker) filterPins(p *Pod, h *Host, pins []requirements.Requirement, rank Ranker) []requirements.Requirement {
	if !slices.ContainsFunc(p.matched, t.settlesFilter) {
		return pins // no node filter to settle (and no set to build)
	}
	reqs := h.Requirements.Add(pins...)
	for _, g := range p.matched {
		if !t.settlesFilter(g) {
			continue
		}
		cl := claimLabels{reqs: reqs, doms: h.Domains}
		var alts []requirements.Requirements
		for _, alt := range g.filterReqs {
			// An alternative the claim's types cannot meet is pinned out on
			// the key that says so (it costs nothing), so that every check
			// reading the claim's requirements agrees.
			if out, ok := cl.cannotMeet(alt); ok {
				if _, empty := reqs.Add(out).Empty(); !empty {
					pins = append(pins, out)
					reqs = reqs.Add(out)
					cl.reqs = reqs
					continue
				}
			}
			alts = append(alts, alt)
		}
		if len(alts) == 0 || decided(reqs, alts) || slices.ContainsFunc(alts, cl.surelyMeets) {
			continue
		}
		// A price for the claim under extra pins (+Inf when no type the pod
		// fits is left), 0 without a ranker.
		price := func(extra ...requirements.Requirement) float64 {
			if rank == nil {
				return 0
			}
			return rank(append(slices.Clip(pins), extra...), "", "")
		}
		out, okOut := excludeAll(cl, alts, price, exactForms)
		alt, okIn := t.enterable(reqs, alts, price)
		if okIn && rank != nil && (okOut || slices.ContainsFunc(alts, inexactOut)) {
			in := price(slices.Collect(alt.All())...)
			switch {
			case !okOut:
				// No exact complement keeps the claim out: it enters,
				// unless another form keeps it out for no more (seed
				// 28054: every lone pod of a counted class entered a
				// filter on integer > 175, $55/h, where a type at
				// $0.94/h held it out of it).
				if o, pr, ok := keepOut(cl, alts, price); ok && pr <= in+priceTie {
					out, okOut = o, true
				}
			case price(out...) > in+priceTie:
				// Entering costs less (EnterFilterWhenCheaper).
				t.enterSeen = true
				okOut = !t.enterCheaper
			}
		}
		if okOut {
			pins = append(pins, out...)
			reqs = reqs.Add(out...)
			continue
		}
		if okIn {
			pins = append(pins, slices.Collect(alt.All())...)
			reqs = reqs.Intersect(alt)
			continue
		}
		// Neither: an alternative asks NotIn of a key the claim's types
		// cannot leave (arch NotIn amd64 where only amd64 types offer the
		// claim's zone and capacity type). Pin the claim to those values,
		// out of the filter, or it is counted where its node will not be.
		if out, ok := excludeAll(cl, alts, price, allForms); ok {
			pins = append(pins, out...)
			reqs = reqs.Add(out...)
		}
	}
	return pins
}

// settlesFilter reports whether filterPins settles g's node filter: a
// spread group's, but under LeaveSoftFiltersOpen not one only
// ScheduleAnyway spreads own.
func (t *Tracker) settlesFilter(g *group) bool {
	return g.kind == Spread && len(g.filterReqs) > 0 && (g.required || !t.softFiltersOpen)
}

// enterable returns the alternative a claim with reqs may be pinned into
// and still hold a type the pod fits (price not +Inf) that leaves the
// cheapest node, the first among equals (without a ranker every price is
// 0: the first). Any alternative puts the node in the filter, so the one
// listed first is no better than another: a filter of a generation or a
// hypervisor-less (metal) type entered by its first term launched metal
// nodes at $11.31/h where the second held the pod for $0.59/h (seed 52848).
func (t *Tracker) enterable(reqs requirements.Requirements, alts []requirements.Requirements, price func(...requirements.Requirement) float64) (requirements.Requirements, bool) {
	var best requirements.Requirements
	found, bestPrice := false, math.Inf(1)
	for _, alt := range alts {
		if reqs.Compatible(alt, t.schema) != nil {
			continue
		}
		if _, empty := reqs.Intersect(alt).Empty(); empty {
			continue
		}
		pr := price(slices.Collect(alt.All())...)
		if math.IsInf(pr, 1) {
			continue
		}
		if !found || pr < bestPrice-priceTie {
			best, found, bestPrice = alt, true, pr
		}
	}
	return best, found
}

// claimLabels is what a NodeClaim's labels may be: its requirements and,
// when known, the values its instance types and offerings leave for a key.
type claimLabels struct {
	reqs requirements.Requirements
	doms DomainLister
}

// values returns the values the claim may take for key, and whether they
// are known: listed by its instance types, or none for a key neither its
// types nor its requirements give it (a custom label the NodePool does not
// declare and no type carries: the node will not have it).
func (c claimLabels) values(key string) ([]string, bool) {
	if c.doms == nil {
		return nil, false
	}
	vs := c.doms.DomainValues(key)
	if len(vs) == 0 && !c.reqs.Get(key).IsAny() {
		return nil, false
	}
	return vs, true
}

// unlabelled reports whether the claim's node will not have key: the claim
// does not define it and none of its types carries it. Keeping such a claim
// out of an alternative that needs the key is said as DoesNotExist, never
// NotIn, which would define a custom label the NodePool may not declare (a
// pod that requires a value of it could then join).
func (c claimLabels) unlabelled(key string) bool {
	vs, ok := c.values(key)
	return ok && len(vs) == 0 && !c.reqs.Has(key)
}

// cannotMeet returns, when the claim's node cannot meet alt (a key of alt
// asks for values the claim cannot take), the requirement that says so
// (DoesNotExist where the node will not have the key: unlabelled).
func (c claimLabels) cannotMeet(alt requirements.Requirements) (requirements.Requirement, bool) {
	for r := range alt.All() {
		if !r.IsFinite() || len(r.Values()) == 0 {
			continue
		}
		if c.unlabelled(r.Key()) {
			return requirements.DoesNotExist(r.Key()), true
		}
		if vs, ok := c.values(r.Key()); ok && !slices.ContainsFunc(vs, func(v string) bool { return slices.Contains(r.Values(), v) }) {
			return requirements.NotIn(r.Key(), r.Values()...), true
		}
	}
	return requirements.Requirement{}, false
}

// keepOut returns requirements that keep the claim out of every
// alternative where no exact complement does (excludeAll with exactForms
// found none): an alternative asking NotIn vs of a key every node carries,
// where every value the claim's types and offerings leave is among vs
// (arch NotIn amd64 with amd64 types only), is left by In those values, at
// no cost; the others by their exact complement or one side of a bound
// (boundForms: integer Gt 175 is left by Lte 175). It fails when some
// alternative has neither, or no type the pod fits is left; else it also
// returns the claim's price under them.
func keepOut(cl claimLabels, alts []requirements.Requirements, price func(...requirements.Requirement) float64) ([]requirements.Requirement, float64, bool) {
	var out []requirements.Requirement
	var rest []requirements.Requirements
	for _, alt := range alts {
		if pin, ok := cl.leavesNotIn(alt); ok {
			out = append(out, pin)
			continue
		}
		rest = append(rest, alt)
	}
	base := claimLabels{reqs: cl.reqs.Add(out...), doms: cl.doms}
	if _, empty := base.reqs.Empty(); empty {
		return nil, 0, false
	}
	more, ok := excludeAll(base, rest, func(extra ...requirements.Requirement) float64 {
		return price(append(slices.Clip(out), extra...)...)
	}, boundForms)
	if !ok {
		return nil, 0, false
	}
	out = append(out, more...)
	pr := price(out...)
	if math.IsInf(pr, 1) {
		return nil, 0, false
	}
	return out, pr, true
}

// inexactOut reports whether alt has a requirement keepOut may leave by a
// form excludeAll's exact forms lack: a bound, or NotIn on a key every
// node carries.
func inexactOut(alt requirements.Requirements) bool {
	for r := range alt.All() {
		if _, hasLo, _, hasHi := r.Bounds(); hasLo || hasHi || notInLabelled(r) {
			return true
		}
	}
	return false
}

// notInLabelled reports whether r is NotIn some values on a key every node
// carries.
func notInLabelled(r requirements.Requirement) bool {
	return !r.IsFinite() && len(r.Values()) > 0 && alwaysLabelled(r.Key())
}

// leavesNotIn returns In the values the claim's types and offerings leave
// for a key every node carries, when alt asks NotIn of all of them there.
func (c claimLabels) leavesNotIn(alt requirements.Requirements) (requirements.Requirement, bool) {
	for r := range alt.All() {
		if !notInLabelled(r) {
			continue
		}
		if vs, ok := c.values(r.Key()); ok && len(vs) > 0 && !slices.ContainsFunc(vs, func(v string) bool { return r.Matches(v, true) }) {
			return requirements.In(r.Key(), vs...), true
		}
	}
	return requirements.Requirement{}, false
}

// surelyMeets reports whether the claim's node meets alt whatever type it
// launches: each key of alt is one every node carries (arch, os, instance
// type, zone, capacity type), asked to exist or to take a value among
// those the claim's types and offerings leave, or one the node will not
// have (unlabelled), asked to be absent (DoesNotExist, NotIn).
func (c claimLabels) surelyMeets(alt requirements.Requirements) bool {
	for r := range alt.All() {
		if c.unlabelled(r.Key()) {
			// The node will not have the key (a custom label its NodePool
			// does not declare): DoesNotExist and NotIn hold there, and
			// no pin could make the label appear.
			if r.AllowsAbsent() {
				continue
			}
			return false
		}
		if !alwaysLabelled(r.Key()) {
			return false
		}
		vs, ok := c.values(r.Key())
		if !ok || len(vs) == 0 || !allHave(r, vs) {
			return false
		}
	}
	return true
}

// allHave reports whether r admits every value of vs.
func allHave(r requirements.Requirement, vs []string) bool {
	return !slices.ContainsFunc(vs, func(v string) bool { return !r.Matches(v, true) })
}

// alwaysLabelled reports whether every node carries key.
func alwaysLabelled(key string) bool {
	switch key {
	case requirements.LabelArch, requirements.LabelOS, requirements.LabelInstanceType, requirements.LabelTopologyZone, requirements.LabelCapacityType:
		return true
	}
	return false
}

// excludeAll returns requirements that keep the claim out of every
// alternative, one key each (In v → NotIn v, Exists → DoesNotExist,
// DoesNotExist → Exists), when it can stay out of them all. Of the keys of
// one alternative it takes one the claim already meets if there is one (a
// claim is always in a zone, so "zone DoesNotExist" excludes itself), else
// the one that leaves the cheapest node for the pod (price; +Inf when none
// is left). forms says which exclusions a key may take (exclusions).
func excludeAll(cl claimLabels, alts []requirements.Requirements, price func(...requirements.Requirement) float64, forms exclusionForms) ([]requirements.Requirement, bool) {
	var out []requirements.Requirement
	for _, alt := range alts {
		base := cl.reqs.Add(out...)
		var pick requirements.Requirement
		found, best := false, math.Inf(1)
	alt:
		for r := range alt.All() {
			if r.RequiresPresent() && (claimLabels{reqs: base, doms: cl.doms}).unlabelled(r.Key()) {
				pick, found = requirements.DoesNotExist(r.Key()), true
				break alt
			}
			exs, n := exclusions(r, forms)
			for _, ex := range exs[:n] {
				both := base.Add(ex)
				if both.Equal(base) {
					pick, found = ex, true
					break alt
				}
				if _, empty := both.Empty(); empty {
					continue
				}
				if pr := price(append(slices.Clip(out), ex)...); pr < best {
					pick, found, best = ex, true, pr
				}
			}
		}
		if !found {
			return nil, false
		}
		out = append(out, pick)
	}
	return out, true
}

// exclusionForms says which requirements exclusions may return: the exact
// complements only (exactForms); also one side of a bound or no label
// (boundForms: integer Gt 175 is left by Lte 175 and by no label, neither
// alone the complement); and also the values a NotIn names (allForms, In v:
// the last resort, where neither the other forms nor entering an
// alternative settle the claim).
type exclusionForms int

const (
	exactForms exclusionForms = iota
	boundForms
	allForms
)

// exclusions returns the requirements no node meeting r meets, each one
// requirement, as out[:n] (at most three: no allocation on placement's
// path), in the forms allowed.
func exclusions(r requirements.Requirement, forms exclusionForms) (out [3]requirements.Requirement, n int) {
	lo, hasLo, hi, hasHi := r.Bounds()
	add := func(ex requirements.Requirement) { out[n] = ex; n++ }
	switch {
	case hasLo || hasHi:
		if forms < boundForms {
			return out, 0
		}
		if hasHi && hi < math.MaxInt64 {
			if ex, err := requirements.New(r.Key(), requirements.OpGte, strconv.FormatInt(hi+1, 10)); err == nil {
				add(ex)
			}
		}
		if hasLo && lo > math.MinInt64 {
			if ex, err := requirements.New(r.Key(), requirements.OpLte, strconv.FormatInt(lo-1, 10)); err == nil {
				add(ex)
			}
		}
		add(requirements.DoesNotExist(r.Key()))
	case r.IsFinite() && len(r.Values()) > 0:
		add(requirements.NotIn(r.Key(), r.Values()...))
	case r.IsFinite() && !r.RequiresPresent():
		add(requirements.Exists(r.Key()))
	case !r.IsFinite() && r.RequiresPresent() && len(r.Values()) == 0:
		add(requirements.DoesNotExist(r.Key()))
	case forms == allForms && !r.IsFinite() && !r.RequiresPresent() && len(r.Values()) > 0:
		// NotIn vs: a node fails it only by carrying one of vs.
		add(requirements.In(r.Key(), r.Values()...))
	}
	return out, n
}

// decided reports whether every node meeting reqs meets one of the
// alternatives, or none does.
func decided(reqs requirements.Requirements, alts []requirements.Requirements) bool {
	none := true
	for _, alt := range alts {
		both := reqs.Intersect(alt)
		if both.Equal(reqs) {
			return true // reqs imply alt
		}
		if _, empty := both.Empty(); !empty {
			none = false
		}
	}
	return none
}

func (t *Tracker) missingKey(p *Pod, active Active, key string) *Violation {
	for i, term := range p.Terms {
		if term.Key != key || !(term.Required || active(i)) {
			continue
		}
		if term.Kind != AntiAffinity {
			return &Violation{Kind: term.Kind, Key: key, missing: true, msg: fmt.Sprintf("%s: node has no %s label", term.g.describe(), key)}
		}
	}
	return nil
}

// candidates returns the host's possible domains on ks, and whether the host
// is already decided on it.
func (t *Tracker) candidates(ks *keyState, h *Host) ([]int32, bool) {
	t.scratch = t.scratch[:0]
	if h.Node != nil {
		if d, ok := t.hostNodeDomain(ks, h); ok {
			return append(t.scratch, d), true
		}
		return t.scratch, true
	}
	if ks.key == requirements.LabelHostname {
		return append(t.scratch, h.hostnameDomain(ks)), true
	}
	if d, ok := h.decided(ks); ok {
		return append(t.scratch, d), true
	}
	r := h.Requirements.Get(ks.key)
	if r.IsAny() && !t.schema.IsWellKnown(ks.key) {
		return t.scratch, true // a custom label nobody declared: the node will not have it
	}
	if r.IsFinite() && r.Len() == 1 {
		return append(t.scratch, ks.intern(r.Values()[0])), true
	}
	if h.Domains != nil && t.takesAnyValue(ks.key, r) {
		for _, d := range t.anyValueDomains(ks) {
			if r.Has(ks.values[d]) {
				t.scratch = append(t.scratch, d)
			}
		}
		return t.scratch, false
	}
	if h.Domains != nil {
		// Only values the claim can still take: a value its requirements
		// allow but no offering left provides (a used-up reservation) is
		// not a domain it can join.
		for _, v := range h.Domains.DomainValues(ks.key) {
			if r.Has(v) {
				t.scratch = append(t.scratch, ks.intern(v))
			}
		}
		return t.scratch, false // pin even a lone value, so the count can find it
	}
	if r.IsFinite() {
		for _, v := range r.Values() {
			t.scratch = append(t.scratch, ks.intern(v))
		}
		return t.scratch, len(t.scratch) == 1
	}
	for i, v := range ks.values {
		if r.Has(v) {
			t.scratch = append(t.scratch, int32(i))
		}
	}
	return t.scratch, false
}

// takesAnyValue reports whether a NodeClaim whose requirement on key is r
// will carry the label with whatever value it is given: a custom label
// (no instance type or offering decides it) that r requires to exist with
// no list of values (Exists, or NotIn with Exists). Karpenter labels such
// a node with a generated value, and when a topology group counts on the
// key it chooses the value among the domains it knows (a NodePool's In
// values, existing nodes' labels), as candidates does.
func (t *Tracker) takesAnyValue(key string, r requirements.Requirement) bool {
	return r.RequiresPresent() && !r.IsFinite() && !t.schema.IsWellKnown(key)
}

// anyValueDomains returns the domains of ks a NodeClaim that takes any
// value (takesAnyValue) may be given: those every spread group on the key
// takes its global minimum over, so that the node adds no domain a spread
// leaves out (kube-scheduler's minimum would run over it), in the first
// group's order; every known domain when no spread counts on the key. The
// spread groups' domains are fixed once Finish has run.
func (t *Tracker) anyValueDomains(ks *keyState) []int32 {
	if ks.anyValueSet {
		return ks.anyValue
	}
	var out []int32
	spread := false
	for _, g := range t.groups {
		if g.kind != Spread || g.ks != ks || !g.eligibleSet {
			continue
		}
		if !spread {
			out, spread = slices.Clone(g.eligible), true
			continue
		}
		out = slices.DeleteFunc(out, func(d int32) bool { return !slices.Contains(g.eligible, d) })
	}
	if !spread {
		out = make([]int32, len(ks.values))
		for i := range out {
			out[i] = int32(i)
		}
		return out // values may still be interned
	}
	ks.anyValue, ks.anyValueSet = out, true
	return out
}

// unreadDomain refuses a NodeClaim with no domain on a key its offering
// decides (every node has a zone and a capacity type: the claim's offerings
// only read as used up, as a capacity reservation the claim itself holds
// does) when the pod has an anti-affinity on the key, or another's that
// selects the pod has pods placed: the node will be in some domain, which
// may be theirs, and the pod would be counted in none, so a matching pod
// placed later would not see it.
func (t *Tracker) unreadDomain(p *Pod, active Active, ks *keyState) *Violation {
	if !offeringKey(ks.key) {
		return nil
	}
	t.before = t.before[:0]
	for i := range p.Terms {
		term := &p.Terms[i]
		if term.Key == ks.key && term.Kind == AntiAffinity && (term.Required || active(i)) {
			return t.violation(term, "the NodeClaim's domain is not known yet")
		}
	}
	for _, g := range p.matched {
		if g.ks == ks && g.kind == AntiAffinity && g.ownersTotal > 0 {
			return t.groupViolation(g, "the NodeClaim's domain is not known yet and a pod whose required anti-affinity selects this pod is placed")
		}
	}
	return nil
}

// offeringKey reports whether the offering a NodeClaim launches decides
// its value on key (zone, zone ID, capacity type): every node has it.
func offeringKey(key string) bool {
	return key == requirements.LabelTopologyZone || key == requirements.LabelCapacityType || key == labelZoneID
}

// labelZoneID is the zone ID label (the catalog's name for it).
const labelZoneID = "topology.k8s.aws/zone-id"

// filter keeps the candidate domains every active rule allows.
func (t *Tracker) filter(p *Pod, active Active, ks *keyState, cands []int32, h *Host) ([]int32, *Violation) {
	// The first phase's counts when every spread of the pod passes there,
	// else the second's, on every key alike (early.go).
	early := p.canEarly && bindsEarly(h) && t.passesEarly(p, h)
	cands, v := t.filterTerms(p, active, ks, cands, h, early)
	if v != nil {
		return nil, v
	}
	return t.filterOwners(p, ks, cands, h)
}

// hasAffinityAfter reports whether an affinity term of the pod follows
// another of its terms on the same key.
func (p *Pod) hasAffinityAfter() bool {
	for j, tm := range p.Terms {
		if tm.Kind == Affinity && slices.ContainsFunc(p.Terms[:j], func(o Term) bool { return o.Key == tm.Key }) {
			return true
		}
	}
	return false
}

// filterTerms keeps the candidate domains the pod's own terms on ks allow,
// against the early counts with early.
func (t *Tracker) filterTerms(p *Pod, active Active, ks *keyState, cands []int32, h *Host, early bool) ([]int32, *Violation) {
	if p.affinityAfter {
		t.initial = append(t.initial[:0], cands...)
	}
	for i := range p.Terms {
		term := &p.Terms[i]
		if term.Key != ks.key || !(term.Required || active(i)) {
			continue
		}
		var v *Violation
		if cands, v = t.filterTerm(term, cands, h, early); v != nil {
			if term.Kind == Affinity && p.affinityAfter {
				t.ruledOut(p, active, i, h, early)
			}
			return nil, &t.viol
		}
	}
	return cands, nil
}

// ruledOut rewrites the violation of affinity term i, which found no
// matching pod among the domains the pod's earlier terms on the key left,
// when a domain it had on entry holds one: it names the earlier term that
// ruled those domains out, and why (a spread whose skew the pod would
// exceed there), instead of claiming that no domain holds a match.
func (t *Tracker) ruledOut(p *Pod, active Active, i int, h *Host, early bool) {
	term := &p.Terms[i]
	g := term.g
	var matching []int32
	for _, d := range t.initial {
		if g.get(d) > 0 {
			matching = append(matching, d)
		}
	}
	if len(matching) == 0 {
		return
	}
	why := "the pod's other rules on the key"
	for j := range i {
		other := &p.Terms[j]
		if other.Key != term.Key || !(other.Required || active(j)) {
			continue
		}
		// The matching domains, through term j alone.
		t.replay = append(t.replay[:0], matching...)
		if left, v := t.filterTerm(other, t.replay, h, early); v != nil {
			why = v.Message()
			break
		} else if len(left) == 0 {
			why = other.g.describe()
			break
		}
	}
	v := t.violation(term, "")
	names := make([]string, 0, len(matching))
	for _, d := range sortedDomains(g.ks, matching) {
		names = append(names, g.ks.values[d])
	}
	v.msg = fmt.Sprintf("%s: the domains holding a matching pod (%s) are ruled out by %s", g.describe(), strings.Join(names, " "), why)
}

// filterTerm keeps the candidate domains one term of the pod allows; a
// pod that binds early (early.go) is judged against the early counts.
func (t *Tracker) filterTerm(term *Term, cands []int32, h *Host, early bool) ([]int32, *Violation) {
	g := term.g
	hostname := term.Key == requirements.LabelHostname
	switch term.Kind {
	case Spread:
		if !g.hostPasses(h, t.schema) {
			return cands, nil
		}
		if cands = t.withinEligible(term, cands, hostname); len(cands) == 0 {
			return nil, t.violation(term, "the node would be in no domain the spread's minimum runs over")
		}
		m, get := t.minCount(term, hostname), g.get
		if early && !hostname && term.Required {
			m, get = g.earlyMin(term.early), g.early
		}
		self := int32(0)
		if term.self {
			self = 1
		}
		if cands = t.narrow(cands, func(d int32) bool { return get(d)+self-m <= g.maxSkew }); len(cands) == 0 {
			v := t.violation(term, "")
			v.skew, v.min, v.hasSkew = g.maxSkew, m, true
			v.Permanent = term.Required && hostname && !g.isClosed
			return nil, v
		}
		if t.poolDomains && (!term.Required || t.pickRequired) && !hostname && h.Node == nil {
			if cands = t.karpenterPick(term, cands, h, m, self); len(cands) == 0 {
				return nil, t.violation(term, "of the least-count domains the NodeClaim's requirements allow, most have no instance type that fits")
			}
		}
	case Affinity:
		any := slices.ContainsFunc(cands, func(d int32) bool { return g.get(d) > 0 })
		if !any && term.self && t.canBootstrap(term) {
			return cands, nil
		}
		if cands = t.narrow(cands, func(d int32) bool { return g.get(d) > 0 }); len(cands) == 0 {
			return nil, t.violation(term, "no matching pod in any possible domain")
		}
	case AntiAffinity:
		if cands = t.narrow(cands, func(d int32) bool { return g.get(d) == 0 }); len(cands) == 0 {
			v := t.violation(term, "a matching pod is already in every possible domain")
			v.Permanent = term.Required
			return nil, v
		}
	}
	return cands, nil
}

// withinEligible keeps, while the plan may still open NodeClaims, the
// candidate domains of a required spread term (DoNotSchedule, not on
// hostname) among its eligible ones, those its global minimum runs over.
// The host passes the spread's node filter (the pod's own node affinity,
// under nodeAffinityPolicy Honor), so kube-scheduler counts the node's
// domain. A domain the minimum leaves out is one only a NodeClaim of a
// NodePool the pod is not compatible with can be in: one that came to
// define a custom label its pool does not declare (team=b, after a pod's
// team NotIn [a], or a widened claim that kept the key), whose zone no
// source of the spread offers. The pod there would hold the spread's other
// domains against a minimum that ignores it (three pods in one zone
// against one in that zone). Without eligible domains the term keeps all.
func (t *Tracker) withinEligible(term *Term, cands []int32, hostname bool) []int32 {
	if hostname || !term.Required || term.g.isClosed || len(term.eligible) == 0 {
		return cands
	}
	return t.narrow(cands, func(d int32) bool { return slices.Contains(term.eligible, d) })
}

// Holds reports whether term i of pod p holds on host h, the term alone
// (no other term of the pod, no other pod's rule), against the placements
// recorded: p itself must not be recorded, as for Check. Used on a plan's
// final nodes (CloseDomains) to tell which preferences the plan honours.
func (t *Tracker) Holds(p *Pod, i int, h *Host) bool {
	term := &p.Terms[i]
	cands, _ := t.candidates(term.g.ks, h)
	if len(cands) == 0 {
		return term.Kind == AntiAffinity // the node lacks the key
	}
	early := p.canEarly && bindsEarly(h) && t.passesEarly(p, h)
	cands, v := t.filterTerm(term, cands, h, early)
	return v == nil && len(cands) > 0
}

// filterOwners narrows cands by the groups that select the pod without
// being its own: a required anti-affinity of a pod placed in a domain, and
// a spread whose owners count the pod.
func (t *Tracker) filterOwners(p *Pod, ks *keyState, cands []int32, h *Host) ([]int32, *Violation) {
	hostname := ks.key == requirements.LabelHostname
	late := !bindsEarly(h)
	lateKnown := late || !p.canEarly
	for _, g := range p.matched {
		if g.ks != ks || g.ownersTotal == 0 {
			continue
		}
		switch g.kind {
		case AntiAffinity:
			if cands = t.narrow(cands, func(d int32) bool { return g.ownersIn(d) == 0 }); len(cands) == 0 {
				v := t.groupViolation(g, "a pod whose required anti-affinity selects this pod is in every possible domain")
				v.Permanent, v.owners = true, true
				return nil, v
			}
		case Spread:
			if !g.hostPasses(h, t.schema) {
				continue
			}
			if !lateKnown {
				late, lateKnown = !t.passesEarly(p, h), true
			}
			m := g.globalMin(g.eligible, hostname)
			if cands = t.narrow(cands, func(d int32) bool { return t.ownersFit(g, d, 1, m, late) }); len(cands) == 0 {
				v := t.groupViolation(g, "")
				v.skew, v.min, v.hasSkew, v.existing = g.maxSkew, m, true, true
				v.Permanent = hostname && !g.isClosed
				return nil, v
			}
		}
	}
	return cands, nil
}

// noTypeIn is the violation when no domain the pod's rules allow on a key
// has an instance type that holds it (the ranker's +Inf everywhere): its
// kind is that of the pod's first enforced term on the key.
func (t *Tracker) noTypeIn(p *Pod, active Active, ks *keyState, cands []int32) *Violation {
	kind := Spread
	for i := range p.Terms {
		if term := &p.Terms[i]; term.Key == ks.key && (term.Required || active(i)) {
			kind = term.Kind
			break
		}
	}
	// The message is made only when asked (the moves meet this refusal
	// hundreds of thousands of times at 100,000 pods).
	return &Violation{Kind: kind, Key: ks.key, noType: ks, doms: slices.Clone(cands)}
}

// narrow keeps, in place, the domains f allows; the domains it had are kept
// in t.before for a message.
func (t *Tracker) narrow(cands []int32, f func(int32) bool) []int32 {
	t.before = append(t.before[:0], cands...)
	return keep(cands, f)
}

func (t *Tracker) violation(term *Term, why string) *Violation {
	v := t.groupViolation(term.g, why)
	v.Kind = term.Kind
	if len(term.eligible) > 0 {
		v.doms = append(v.doms[:0], term.eligible...)
	}
	return v
}

// groupViolation fills the tracker's reusable violation: a Violation returned
// by Check is valid until the next check.
func (t *Tracker) groupViolation(g *group, why string) *Violation {
	v := &t.viol
	doms := v.doms[:0]
	*v = Violation{Kind: g.kind, Key: g.ks.key, g: g, why: why}
	v.doms = append(doms, t.before...)
	return v
}

// keep filters ds in place and returns the kept prefix. Callers that need
// the unfiltered list afterwards (for a message) copy it first.
func keep(ds []int32, f func(int32) bool) []int32 {
	out := ds[:0]
	for _, d := range ds {
		if f(d) {
			out = append(out, d)
		}
	}
	return out
}

// minCount is the global minimum of a spread term: the lowest count over its
// eligible domains (softEligible), zero when fewer than minDomains are
// eligible, and zero for hostname (a new node is always an empty domain).
func (t *Tracker) minCount(term *Term, hostname bool) int32 {
	return term.g.globalMin(t.softEligible(term), hostname)
}

// globalMin is the group's global minimum: over the domains of the plan's
// nodes once they are closed (CloseDomains), else over open (the domains
// the pods could use), and zero for hostname while a new node may come;
// zero too when fewer domains than minDomains are eligible.
func (g *group) globalMin(open []int32, hostname bool) int32 {
	ds := open
	switch {
	case g.isClosed:
		ds = g.closed
	case hostname:
		return 0
	}
	if int32(len(ds)) < g.minDoms {
		return 0
	}
	return g.minOver(ds)
}

func (g *group) minOver(ds []int32) int32 {
	if len(ds) == 0 {
		return 0
	}
	if mm := &g.minMemo; mm.first == &ds[0] && mm.n == len(ds) && mm.ver == g.ver && mm.set {
		return mm.min
	}
	m, at, ascending := int32(math.MaxInt32), int32(0), true
	for i, d := range ds {
		switch c := g.get(d); {
		case c < m:
			m, at = c, 1
		case c == m:
			at++
		}
		if i > 0 && ds[i-1] >= d {
			ascending = false
		}
	}
	g.minMemo = minMemo{first: &ds[0], n: len(ds), ver: g.ver, min: m, atMin: at, set: true}
	if ascending {
		g.minMemo.list = ds
	}
	return m
}

// minMemo is minOver's answer for one domain list (its first element and
// length: the lists it is asked about, a term's eligible domains and a
// group's closed ones, are not rewritten in place but by CloseDomains,
// which changes the version) at one version of the group's counts.
//
// For a list in ascending order (list), the memo follows count changes
// (countChanged) instead of going stale: it also holds how many of the
// list's domains are at the minimum (atMin), and only a change that
// leaves none there makes the next minOver scan the list again. Judging a
// plan takes each pod out of its node and puts it back, and a scan of
// every node's count per pod cost 0.7 s at 100,000 pods.
type minMemo struct {
	first *int32
	n     int
	ver   uint64
	min   int32
	atMin int32
	list  []int32
	set   bool
}

// countChanged bumps the group's version for a change of domain d's count
// from before to after (by one), and carries a memo that was current over
// to the new version when it can tell the list's new minimum.
func (g *group) countChanged(d, before, after int32) {
	mm := &g.minMemo
	current := mm.set && mm.ver == g.ver && mm.list != nil
	g.ver++
	if !current {
		return
	}
	if before > mm.min && after > mm.min {
		mm.ver = g.ver // d was and stays above the minimum
		return
	}
	if _, in := slices.BinarySearch(mm.list, d); !in {
		mm.ver = g.ver
		return
	}
	switch {
	case after < mm.min:
		mm.min, mm.atMin = after, 1
	case after == mm.min:
		mm.atMin++
	default: // d left the minimum
		if mm.atMin--; mm.atMin == 0 {
			return // the new minimum needs a scan
		}
	}
	mm.ver = g.ver
}

// canBootstrap reports whether a self-selecting affinity pod may start a
// domain. kube-scheduler's InterPodAffinity filter grants this only while no
// pod anywhere in the cluster matches the term (on a node that has its key),
// whatever domains the pod itself could use: once one matching pod runs in a
// zone the pod's requirements exclude, the pod can never bind.
func (t *Tracker) canBootstrap(term *Term) bool {
	return term.g.nonzero == 0
}

// choose picks the domain to pin a host to: one the ranker can price (a
// node can launch there) before one it cannot, then the least loaded over
// the spread groups of the pod's enforced terms and those that count it and
// have carriers placed, then the cheaper by the ranker, then (under
// BalanceAhead) the least loaded over the spread groups that count it and
// have no carrier placed yet, then by value (a relaxed preference no longer
// steers the pod). Any candidate satisfies every rule, so a domain
// whose count is not the lowest is still a valid fallback when the least
// loaded one has no instance type for the pod.
func (t *Tracker) choose(p *Pod, active Active, ks *keyState, cands []int32, pins []requirements.Requirement, rank Ranker) (int32, bool) {
	best, bestOK := int32(-1), false
	var bestScore domainScore
	others := t.partnerKeys(p, active, ks, len(cands))
	var with []requirements.Requirement // pins and the candidate domain (partners)
	if len(others) > 0 {
		with = append(slices.Clip(pins), requirements.Requirement{})
	}
	for _, d := range cands {
		sc := domainScore{value: ks.values[d]}
		sc.load, sc.ahead = t.loads(p, active, ks, d)
		if rank != nil {
			sc.rank = rank(pins, ks.key, ks.values[d])
			if len(others) > 0 && !math.IsInf(sc.rank, 1) {
				with[len(with)-1] = requirements.In(ks.key, ks.values[d])
				sc.partners = partners(others, with, rank)
			}
		}
		ok := !math.IsInf(sc.rank, 1)
		if best < 0 || (ok && !bestOK) || (ok == bestOK && sc.before(bestScore, t.balanceAhead)) {
			best, bestOK, bestScore = d, ok, sc
		}
	}
	return best, bestOK
}

// domainScore is what choose orders a domain by.
type domainScore struct {
	load, ahead int64
	rank        float64
	// partners counts, for a pod with required spreads on other keys too,
	// the values of those keys the domain leaves the pod (partners).
	partners int
	value    string
}

// before orders two domains: the lower load, then the lower rank, then
// (when balance) the lower ahead, then the fewer partners, then the lower
// value.
func (a domainScore) before(b domainScore, balance bool) bool {
	switch {
	case a.load != b.load:
		return a.load < b.load
	case a.rank != b.rank:
		return a.rank < b.rank
	case balance && a.ahead != b.ahead:
		return a.ahead < b.ahead
	case a.partners != b.partners:
		return a.partners < b.partners
	}
	return a.value < b.value
}

// partnerKeys returns, when the pod has required spreads on ks's key
// and on other keys but hostname and choose has several candidates, those
// other keys' states. A pod spread on two keys (zone and capacity type)
// takes its domains on each in turn, the least loaded first; where the
// domains of one key offer different values of the other (a zone with
// on-demand offerings only), a tie broken by name can spend the values
// such a domain needs on domains that need none: nine replicas at maxSkew
// 1 over three zones, two with spot and on-demand offerings and one with
// on-demand only, placed five (every later replica needed the third zone
// and spot at once), where taking the domain that leaves the fewest values
// of the other key first (partners) places nine.
func (t *Tracker) partnerKeys(p *Pod, active Active, ks *keyState, cands int) []*keyState {
	if cands < 2 || ks.key == requirements.LabelHostname {
		return nil
	}
	own := false
	var out []*keyState
	for i := range p.Terms {
		term := &p.Terms[i]
		if term.Kind != Spread || !term.Required || !active(i) || term.Key == requirements.LabelHostname {
			continue
		}
		if term.Key == ks.key {
			own = true
		} else if o := t.keys[term.Key]; o != nil && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if !own {
		return nil
	}
	return out
}

// partners counts the values of the keys others that the pod could still
// take on a host pinned by with (the pins and a candidate domain): those
// the ranker finds an instance type for.
func partners(others []*keyState, with []requirements.Requirement, rank Ranker) int {
	n := 0
	for _, o := range others {
		for _, v := range o.values {
			if !math.IsInf(rank(with, o.key, v), 1) {
				n++
			}
		}
	}
	return n
}

// loads returns what choose weighs domain d of key ks by for the pod: load,
// the counts of the spread groups of its enforced terms and of those that
// count it and have carriers placed; and ahead, the counts of the spread
// groups that count it but have no carrier placed yet (it only breaks a tie
// in price, and only under BalanceAhead).
func (t *Tracker) loads(p *Pod, active Active, ks *keyState, d int32) (load, ahead int64) {
	for i := range p.Terms {
		if term := &p.Terms[i]; term.Key == ks.key && term.Kind == Spread && (term.Required || active(i)) {
			load += int64(term.g.get(d))
		}
	}
	for _, g := range p.matched {
		switch {
		case g.ks != ks || g.kind != Spread:
		case g.ownersTotal > 0:
			load += int64(g.get(d))
		default:
			ahead += int64(g.get(d))
		}
	}
	return load, ahead
}

// Record counts a placement: the pod went to host, whose requirements now
// decide every key the pod is relevant to. active tells which of the pod's
// terms were enforced.
func (t *Tracker) Record(p *Pod, active Active, h *Host) { t.count(p, h, true) }

// Unrecord undoes Record for a pod leaving host (same active terms).
func (t *Tracker) Unrecord(p *Pod, active Active, h *Host) { t.count(p, h, false) }

// count adds the pod on host to (or removes it from) the groups that count
// it, and to the owners of its required anti-affinity and spread terms.
func (t *Tracker) count(p *Pod, h *Host, add bool) {
	if len(p.keys) == 0 {
		return
	}
	early := t.recordEarly(p, h, add)
	for _, g := range p.matched {
		if !g.hostPasses(h, t.schema) {
			continue
		}
		if g.loose && h.Node == nil {
			t.countLoose(g, h, add)
			continue
		}
		if g.inverseOnly && h.Node == nil {
			continue // never read (LeaveInverseOpen)
		}
		if d, ok := t.domainOf(g.ks, h); ok {
			if add {
				g.add(d)
			} else if !g.remove(d) {
				continue
			}
			if t.existingFirst && !bindsEarly(h) {
				g.countLate(d, add)
			}
			t.tally(g, d, false, add)
		}
	}
	for i := range p.Terms {
		term := &p.Terms[i]
		if !term.Required || (term.Kind != AntiAffinity && term.Kind != Spread) {
			continue
		}
		if d, ok := t.domainOf(term.g.ks, h); ok {
			if add {
				term.g.addOwner(d)
			} else if !term.g.removeOwner(d) {
				continue
			}
			if t.existingFirst && !early {
				term.g.ownLate(d, add)
			}
			t.tally(term.g, d, true, add)
		}
	}
}

func (t *Tracker) domainOf(ks *keyState, h *Host) (int32, bool) {
	if h.Node != nil {
		return t.hostNodeDomain(ks, h)
	}
	if ks.key == requirements.LabelHostname {
		return h.hostnameDomain(ks), true
	}
	return h.decided(ks)
}

func domainList(ks *keyState, ds []int32) string {
	var out []string
	for _, d := range sortedDomains(ks, ds) {
		out = append(out, ks.values[d])
	}
	return fmt.Sprint(out)
}

// Movable reports whether the pod may leave its node for another node in
// the same domain of every key but hostname without breaking a rule of its
// own or of others: it owns no hostname affinity, and no affinity group
// counts it on hostname (a pod that others follow stays put).
func (p *Pod) Movable() bool {
	if p.FollowsOnHostname() {
		return false
	}
	for _, g := range p.matched {
		if g.kind == Affinity && g.ks.key == requirements.LabelHostname {
			return false
		}
	}
	return true
}

// FollowsOnHostname reports whether the pod owns a pod affinity term on
// hostname: it may only be where the pods it selects are.
func (p *Pod) FollowsOnHostname() bool {
	return slices.ContainsFunc(p.Terms, func(t Term) bool { return t.Kind == Affinity && t.Key == requirements.LabelHostname })
}

// Stranded reports whether the pod, recorded on h, holds a domain of a
// required self-selecting affinity group alone (it started the domain)
// while another matching pod is now in some other domain: if that pod binds
// first, kube-scheduler no longer lets this one start a domain of its own,
// so the plan would depend on binding order.
func (t *Tracker) Stranded(p *Pod, h *Host) bool {
	for i := range p.Terms {
		term := &p.Terms[i]
		if term.Kind != Affinity || !term.Required || !term.self {
			continue
		}
		d, ok := t.domainOf(term.g.ks, h)
		if !ok || term.g.get(d) > 1 {
			continue // not counted there, or it shares its domain with a match
		}
		if term.g.nonzero > 1 {
			return true
		}
	}
	return false
}

// MayChangeDomain reports whether the pod may move to a node in another
// domain of a key other than hostname, its rules checked there as for any
// placement, provided SpreadHolds after the move: topology counts it on such
// a key, and no pod-affinity group counts it on one (pods following it
// there would lose their match).
func (p *Pod) MayChangeDomain() bool {
	if !slices.ContainsFunc(p.keys, func(k string) bool { return k != requirements.LabelHostname }) {
		return false
	}
	return !slices.ContainsFunc(p.matched, func(g *group) bool {
		return g.kind == Affinity && g.ks.key != requirements.LabelHostname
	})
}

// MayChangeDomainFollowed is MayChangeDomain for a pod that pod-affinity
// groups count on a key other than hostname too: it may move, provided
// FollowedKept and SpreadHolds after the move.
func (p *Pod) MayChangeDomainFollowed() bool {
	return slices.ContainsFunc(p.keys, func(k string) bool { return k != requirements.LabelHostname })
}

// FollowedKept reports whether every pod-affinity group that counts the pod
// on a key other than hostname still counts some pod in the domain of that
// key the pod left, on h: a pod following it there keeps a match.
func (t *Tracker) FollowedKept(p *Pod, h *Host) bool {
	for _, g := range p.matched {
		if g.kind != Affinity || g.ks.key == requirements.LabelHostname {
			continue
		}
		if d, ok := t.domainOf(g.ks, h); ok && g.get(d) == 0 {
			return false
		}
	}
	return true
}

// SpreadsTied reports whether spread groups count the pod on two or more
// keys other than hostname. SpreadHolds checks the final counts;
// kube-scheduler checks each pod's spreads as it binds, and the counts of
// two keys (zone and capacity type, maxSkew 1) tie together: a pod moved
// from az-3 spot to az-3 on-demand can leave counts (3, 2, 2 zones; 3 spot,
// 4 on-demand) that hold, yet whose spot pods are all in az-1, so that no
// binding order reaches them. With one key, filling the least-counted
// domain first always does.
func (p *Pod) SpreadsTied() bool {
	key := ""
	for _, g := range p.matched {
		if g.kind != Spread || g.ownersTotal == 0 || g.ks.key == requirements.LabelHostname {
			continue
		}
		if key != "" && key != g.ks.key {
			return true
		}
		key = g.ks.key
	}
	return false
}

// SpreadHolds reports whether every spread group that counts the pod, on a
// key other than hostname, holds for the pods that carry it: in each domain
// where one runs, the count less the global minimum is at most maxSkew (the
// check kube-scheduler made when each of them bound, made on the plan as it
// stands, so that no binding order breaks it).
func (t *Tracker) SpreadHolds(p *Pod) bool {
	for _, g := range p.matched {
		if g.kind != Spread || g.ownersTotal == 0 || g.ks.key == requirements.LabelHostname {
			continue
		}
		m := g.globalMin(g.eligible, false)
		for d := range g.owners {
			if !t.ownersFit(g, int32(d), 0, m, false) {
				return false
			}
		}
	}
	return true
}

// RequiresOn reports whether the pod has a required term of kind on key
// (a DoNotSchedule spread, a required affinity or anti-affinity).
func (p *Pod) RequiresOn(kind Kind, key string) bool {
	return slices.ContainsFunc(p.Terms, func(t Term) bool { return t.Kind == kind && t.Required && t.Key == key })
}

// SelfAffineOn reports whether the pod has a required affinity term on key
// that selects the pod itself: on hostname, every pod of its group lands on
// the node the first one starts.
func (p *Pod) SelfAffineOn(key string) bool {
	return slices.ContainsFunc(p.Terms, func(t Term) bool {
		return t.Kind == Affinity && t.Required && t.self && t.Key == key
	})
}

// SelfAffine reports whether the pod has a required affinity term that
// selects the pod itself (it may start a domain of its group).
func (p *Pod) SelfAffine() bool {
	return slices.ContainsFunc(p.Terms, func(t Term) bool { return t.Kind == Affinity && t.Required && t.self })
}

// SpreadConfined reports whether every spread group on key that counts one
// of pods counts no other pod: its recorded total is how many of pods it
// counts. Pods moved together to another domain of key then leave every
// such group as it was but for the domain that holds them.
func (t *Tracker) SpreadConfined(pods []*Pod, key string) bool {
	n := map[*group]int32{}
	for _, p := range pods {
		for _, g := range p.matched {
			if g.kind == Spread && g.ks.key == key {
				n[g]++
			}
		}
	}
	for g, k := range n {
		total := int32(0)
		for _, c := range g.count {
			total += c
		}
		if total != k {
			return false
		}
	}
	return true
}
