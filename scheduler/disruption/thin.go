package disruption

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// A simulation of pods with topology terms gives Solve every pod those
// terms count, and in a large cluster a Deployment spread over the zones
// has thousands. What the terms read of the pods on ghosts (nodes no pod
// of the simulation can land on, view.go) is less: per zone, how many pods
// a term's selector picks, and whether one does. When every topology key
// of the simulation is the zone or the hostname, the ghosts' pods are
// thinned: pods alike (namespace, labels, required anti-affinity: every
// selector picks all of them or none, and they repel alike) are removed in
// the same number k from every zone a pod could land in or count in (the
// zones of the view's nodes and those the NodePools Solve gets offer), k
// one less than the fewest such pods in any zone, so that every zone that
// had one keeps one.
//
//   - A spread constraint compares counts across zones (skew: a zone's
//     count minus the least count); taking k from every zone keeps every
//     difference, and which zone has the least. (minDomains terms keep
//     every node and no ghosts.)
//   - Affinity and anti-affinity by zone ask whether a zone has such a
//     pod: every zone keeps one if it had one.
//   - By hostname, a ghost stands for nodes no pod lands on: fewer pods
//     there make a hostname spread stricter (its least count can only
//     drop), never looser.
//
// DaemonSet pods are kept (Solve reads them as the DaemonSets running on
// their node).

// zoneOnly: every topology key of the simulation's pods' terms and of the
// required anti-affinity of the pods it counts is the zone or the
// hostname, and every pod with a spread constraint counts the pods of
// every node (no node selector or required node affinity, which would
// leave some nodes' pods out of its counts, and taints not honoured).
func (m *model) zoneOnly(pods []*simPod, rel relSet) bool {
	ok := func(k string) bool { return k == requirements.LabelTopologyZone || k == requirements.LabelHostname }
	for _, ps := range selectorsOf(pods) {
		if !ok(ps.topologyKey) {
			return false
		}
	}
	for _, sp := range pods {
		s := &sp.obj.Spec
		if len(s.TopologySpreadConstraints) == 0 {
			continue
		}
		if nodeFiltered(s) {
			return false
		}
		for _, c := range s.TopologySpreadConstraints {
			if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
				return false
			}
		}
	}
	for _, n := range rel.nodes {
		for _, p := range rel.pods(n) {
			if !p.antiByZone() {
				return false
			}
		}
	}
	return true
}

// nodeFiltered: the pod has a node selector or a required node affinity
// (its spreads count only the nodes they match, by default).
func nodeFiltered(s *corev1.PodSpec) bool {
	return len(s.NodeSelector) > 0 ||
		(s.Affinity != nil && s.Affinity.NodeAffinity != nil && s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil)
}

// antiByZone: every required anti-affinity term of the pod is by zone or
// hostname (read once: a pod's spec is never written).
func (p *pod) antiByZone() bool {
	if p.antiZoneKnown {
		return p.antiZone
	}
	p.antiZone, p.antiZoneKnown = true, true
	if a := p.obj.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if t.TopologyKey != requirements.LabelTopologyZone && t.TopologyKey != requirements.LabelHostname {
				p.antiZone = false
			}
		}
	}
	return p.antiZone
}

// zoneDomains are the zones a pod could land in or count in: those of the
// view's nodes (ghosts too) and those the pools offer.
func zoneDomains(m *model, pools []nodepool.NodePool, nodes []*viewNode, gs *ghostSet) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes {
		if z, ok := n.zoneLabel(); ok {
			out[z] = true
		}
	}
	for _, sig := range gs.order {
		if z, ok := gs.bySig[sig].first.zoneLabel(); ok {
			out[z] = true
		}
	}
	for _, np := range pools {
		if p := m.poolByName[np.Name]; p != nil {
			for _, z := range m.poolZones(p) {
				out[z] = true
			}
		}
	}
	return out
}

// poolZones are the zones a pool's instance types offer (once per pool;
// m.mu held).
func (m *model) poolZones(p *poolState) []string {
	if z, ok := m.zonesOf[p.name]; ok {
		return z
	}
	var out []string
	for k := range offered(m.catalog, p) {
		if !strings.HasPrefix(k, "ct/") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	if m.zonesOf == nil {
		m.zonesOf = map[string][]string{}
	}
	m.zonesOf[p.name] = out
	return out
}

// thin removes the pods the comment above lets go from the ghosts.
func (gs *ghostSet) thin(m *model, zones map[string]bool) {
	// count[class][zone] and, per zone, the ghosts in it.
	count := map[string]map[string]int{}
	byZone := map[string][]*ghost{}
	for _, sig := range gs.order {
		g := gs.bySig[sig]
		z, ok := g.first.obj.Labels[requirements.LabelTopologyZone]
		if !ok {
			continue
		}
		byZone[z] = append(byZone[z], g)
		for _, p := range g.pods {
			if p.daemon {
				continue
			}
			k := p.likeKey()
			if count[k] == nil {
				count[k] = map[string]int{}
			}
			count[k][z]++
		}
	}
	for _, k := range slices.Sorted(maps.Keys(count)) {
		least := -1
		for z := range zones {
			if c := count[k][z]; least < 0 || c < least {
				least = c
			}
		}
		if least < 2 {
			continue
		}
		for _, z := range slices.Sorted(maps.Keys(zones)) {
			drop := least - 1
			for _, g := range byZone[z] {
				g.pods = slices.DeleteFunc(g.pods, func(p *pod) bool {
					if drop > 0 && !p.daemon && p.likeKey() == k {
						drop--
						m.stats.Thinned++
						return true
					}
					return false
				})
			}
		}
	}
}

// likeKey names the pods thin treats alike: namespace, labels and required
// anti-affinity (fmt prints maps sorted).
func (p *pod) likeKey() string {
	if p.like == "" {
		var anti any
		if a := p.obj.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			anti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		p.like = fmt.Sprintf("%s|%v|%v", p.ns, p.obj.Labels, anti)
	}
	return p.like
}
