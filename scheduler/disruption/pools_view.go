package disruption

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// usablePools are the NodePools some pod of the simulation may use, and
// those with an uninitialized node (whose startup taints Solve discounts):
// a pool every pod refuses (an untolerated NoSchedule or NoExecute taint,
// or requirements disjoint from each of the pod's alternatives) plans no
// NodeClaim and adds no topology domain for them, so Solve need not
// prepare it. The check errs towards keeping a pool.
func (m *model) usablePools(pods []*simPod) []nodepool.NodePool {
	var out []nodepool.NodePool
	for _, np := range m.nodePools {
		p := m.poolByName[np.Name]
		if p == nil || p.static || m.poolHasUninitialized(p.name) || slices.ContainsFunc(pods, func(sp *simPod) bool { return m.mayUse(sp.obj, p) }) {
			out = append(out, np)
		}
	}
	return out
}

func (m *model) poolHasUninitialized(name string) bool {
	for _, n := range m.nodes {
		if n.poolName == name && !n.initialized {
			return true
		}
	}
	return false
}

// mayUse reports whether a pod could land on a node of the pool.
func (m *model) mayUse(pod *corev1.Pod, p *poolState) bool {
	if _, bad := requirements.UntoleratedTaint(p.tmpl.Taints, pod.Spec.Tolerations); bad {
		return false
	}
	schema := m.catalog.Schema()
	var terms []*corev1.NodeSelectorTerm
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			terms = append(terms, &a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i])
		}
	}
	if len(terms) == 0 {
		terms = []*corev1.NodeSelectorTerm{nil}
	}
	for _, t := range terms {
		reqs, err := schema.ForPod(pod.Spec.NodeSelector, t)
		if err != nil || p.tmpl.Requirements.Intersects(reqs) == nil {
			return true
		}
	}
	return false
}

// domainSafe reports whether a price-ladder catalog offers, for every
// pool Solve gets, the same zones and capacity types as the full catalog:
// then the topology domains Solve derives from the pools are the same.
func (m *model) domainSafe(size int, c instancetypes.Catalog, pools []nodepool.NodePool) bool {
	key := strconv.Itoa(size)
	for _, np := range pools {
		key += "\x00" + np.Name
	}
	if ok, seen := m.ladder.safe[key]; seen {
		return ok
	}
	ok := true
	for _, np := range pools {
		p := m.poolByName[np.Name]
		if p != nil && !sameDomains(offered(m.catalog, p), offered(c, p)) {
			ok = false
			break
		}
	}
	m.ladder.safe[key] = ok
	return ok
}

// offered are the zones and capacity types a pool's types offer (available
// offerings its requirements allow), as "zone/ct" pairs.
func offered(c instancetypes.Catalog, p *poolState) map[string]bool {
	out := map[string]bool{}
	reqs := p.tmpl.Requirements
	for _, it := range c.Filter(reqs) {
		for _, o := range it.Offerings {
			if !o.Unavailable && instancetypes.OfferingMatches(o, reqs) {
				out[o.Zone] = true
				out["ct/"+o.CapacityType] = true
			}
		}
	}
	return out
}

func sameDomains(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// zoneTopologyOnly: every topology key of the pods is the hostname, the
// zone or the capacity type (domains a price-ladder catalog keeps when it
// is domain-safe).
func zoneTopologyOnly(pods []*simPod) bool {
	ok := func(k string) bool {
		return k == requirements.LabelHostname || k == requirements.LabelTopologyZone || k == requirements.LabelCapacityType ||
			k == "failure-domain.beta.kubernetes.io/zone"
	}
	for _, sp := range pods {
		s := &sp.obj.Spec
		for _, c := range s.TopologySpreadConstraints {
			if !ok(c.TopologyKey) {
				return false
			}
		}
		if s.Affinity != nil {
			for _, t := range podTerms(s.Affinity) {
				if !ok(t.TopologyKey) {
					return false
				}
			}
		}
	}
	return true
}
