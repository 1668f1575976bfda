package topology_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Keys and domains the fixtures use.
const (
	zoneKey = requirements.LabelTopologyZone
	hostKey = requirements.LabelHostname
	ctKey   = requirements.LabelCapacityType
	rackKey = "example.com/rack" // a custom key no schema declares

	zoneA = "us-east-1a"
	zoneB = "us-east-1b"
	zoneC = "us-east-1c"
)

var (
	web   = map[string]string{"app": "web"}
	db    = map[string]string{"app": "db"}
	cache = map[string]string{"app": "cache"}
)

// poolSource is a NodePool source offering fixed values per key; like the
// scheduler's poolValues it offers only values the node's requirements allow.
func poolSource(name string, offers map[string][]string) topology.Source {
	return topology.Source{Name: name, Values: func(key string, reqs requirements.Requirements) []string {
		var out []string
		for _, v := range offers[key] {
			if reqs.Get(key).Has(v) {
				out = append(out, v)
			}
		}
		return out
	}}
}

// zonePool offers zones a, b and c and both capacity types.
func zonePool() topology.Source {
	return poolSource("default", map[string][]string{
		zoneKey: {zoneA, zoneB, zoneC},
		ctKey:   {requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot},
	})
}

// nodeSource describes an existing node as a source, as the scheduler does:
// its labels are its requirements, and it offers its own label values.
func nodeSource(n *topology.Node) topology.Source {
	return topology.Source{Name: n.Name, Requirements: requirements.DefaultSchema().FromLabels(n.Labels), Taints: n.Taints, Existing: true,
		Values: func(key string, _ requirements.Requirements) []string {
			if v, ok := n.Labels[key]; ok {
				return []string{v}
			}
			return nil
		}}
}

// zoneNode is an existing node in zone (no zone label when zone is "").
func zoneNode(name, zone string) *topology.Node {
	l := map[string]string{hostKey: name}
	if zone != "" {
		l[zoneKey] = zone
	}
	return &topology.Node{Name: name, Labels: l}
}

// bound is an existing pod with labels in namespace "default" on n.
func bound(n *topology.Node, labels map[string]string) topology.ExistingPod {
	return topology.ExistingPod{Namespace: "default", Labels: labels, Node: n}
}

// specOf is the topology view of a pod, as the scheduler builds it.
func specOf(p *corev1.Pod) topology.PodSpec {
	return topology.PodSpec{Namespace: p.Namespace, Labels: p.Labels, Tolerations: p.Spec.Tolerations,
		Spread: p.Spec.TopologySpreadConstraints, Affinity: p.Spec.Affinity}
}

// register registers every spec, then finishes the tracker.
func register(t *testing.T, tr *topology.Tracker, specs ...topology.PodSpec) []*topology.Pod {
	t.Helper()
	pods := make([]*topology.Pod, len(specs))
	for i, s := range specs {
		p, err := tr.Register(s)
		require.NoError(t, err)
		pods[i] = p
	}
	tr.Finish(pods, specs)
	return pods
}

// Active funcs: every term enforced, or only required ones.
func allTerms(int) bool     { return true }
func requiredOnly(int) bool { return false }

// domainList is a DomainLister with fixed values per key.
type domainList map[string][]string

func (d domainList) DomainValues(key string) []string { return d[key] }

// openClaim is a new NodeClaim whose zone and capacity type are still open.
func openClaim(name string) *topology.Host {
	return &topology.Host{Hostname: name, Domains: domainList{
		zoneKey: {zoneA, zoneB, zoneC},
		ctKey:   {requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot},
	}}
}

// zonalClaim is a planned NodeClaim whose zone requirement is In zones.
func zonalClaim(name string, zones ...string) *topology.Host {
	return &topology.Host{Hostname: name, Requirements: requirements.NewRequirements(requirements.In(zoneKey, zones...))}
}

// onNode is an existing node as a host.
func onNode(n *topology.Node) *topology.Host { return &topology.Host{Node: n} }

// rankBy ranks domain values by a fixed table (missing values rank 100).
func rankBy(ranks map[string]float64) topology.Ranker {
	return func(_ []requirements.Requirement, _, value string) float64 {
		if r, ok := ranks[value]; ok {
			return r
		}
		return 100
	}
}

// outcome is what a check returned, copied out (a Violation is valid only
// until the next check).
type outcome struct {
	Pins      []string // Requirement.String of each pin
	Violation *violation
}

type violation struct {
	Kind      topology.Kind
	Key       string
	Group     string
	Permanent bool
}

func ok(pins ...string) outcome { return outcome{Pins: pins} }

func refused(kind topology.Kind, key, group string, permanent bool) outcome {
	return outcome{Violation: &violation{Kind: kind, Key: key, Group: group, Permanent: permanent}}
}

// scopeOutcome runs CheckScope and copies its result out.
func scopeOutcome(tr *topology.Tracker, p *topology.Pod, active topology.Active, h *topology.Host, rank topology.Ranker, scope topology.Scope) outcome {
	pins, v := tr.CheckScope(p, active, h, rank, scope)
	var o outcome
	for _, r := range pins {
		o.Pins = append(o.Pins, r.String())
	}
	if v != nil {
		o.Violation = &violation{Kind: v.Kind, Key: v.Key, Group: v.Group(), Permanent: v.Permanent}
	}
	return o
}

// check runs Check and copies its result out.
func check(tr *topology.Tracker, p *topology.Pod, active topology.Active, h *topology.Host, rank topology.Ranker) outcome {
	return scopeOutcome(tr, p, active, h, rank, topology.AllKeys)
}
