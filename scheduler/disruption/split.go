package disruption

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// A multi-node probe (methods.go) that passed the check before the
// simulation (prefilter.go) is ruled out without Solve when its pods
// provably need NodeClaims of two NodePools, so at least two NodeClaims:
// Karpenter's rule allows one. Its simulation would then fail too, either
// way (a pod left without a place, or more than one NodeClaim, whatever
// the fewer-NodeClaims retry gives). The proof, per class of the
// candidates' movable pods (pods alike in what admitsWith reads):
//
//   - a class needs a NodeClaim when a pod of it fits on no remaining
//     node that admits it (as the check before the simulation finds), or
//     when it has more pods than the remaining nodes that admit it have
//     slots for: a node holds at most, in every resource the class's pods
//     all ask for, its room divided by the smallest request of the class
//     (rounded down; other pods, topology, volumes and host ports only
//     take room away);
//   - a NodeClaim is of one NodePool, which each pod on it may use
//     (mayUse), and of one of the pool's instance types (poolFits), whose
//     allocatable holds its pods: when no NodePool may take a pod of
//     every class that needs one with a type that holds the smallest
//     requests of those classes together, one NodeClaim cannot hold them.
//
// A cordoned node is counted for no class whose pods tolerate the
// node.kubernetes.io/unschedulable taint (no proof then), since admitsWith
// does not admit them there. Only multi-node probes use it: their reasons
// are never shown (a node's reason comes from its single-node
// consolidation), and the probe remembers its failure in the failure cache
// as its simulation would have (the same pods), so that every later round
// reads the same cache.

// splitProven returns the simulation that would have been made (its pods
// only, never solved) and why it fails, or nil when nothing is proven.
func (m *model) splitProven(cands []*candidate) (*simulation, *why) {
	if m.cfg.noPrefilter || m.cfg.noSplit {
		return nil, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	needers, ok := m.claimClasses(cands)
	if !ok || len(needers) == 0 || m.onePoolFor(needers) {
		return nil, nil
	}
	m.stats.Prefiltered++
	in := simInput{cands: cands, gate: true, method: MethodMultiNode}
	leaving := map[string]bool{}
	for _, c := range cands {
		leaving[c.n.name] = true
	}
	sim := &simulation{pods: map[string]*simPod{}, method: MethodMultiNode}
	for _, sp := range m.simPods(in, leaving) {
		sim.pods[sp.p.key] = sp
	}
	return sim, keep(KeepTooManyNodes, Details{Pod: needers[0].sample.key})
}

// onePoolFor: some NodePool may take a pod of every class, and one of its
// instance types holds one pod of each (m.mu held).
func (m *model) onePoolFor(classes []*slotClass) bool {
	samples := make([]*pod, len(classes))
	sum := make(vec, len(m.resourceNames()))
	for i, sc := range classes {
		samples[i] = sc.sample
		sum.add(sc.least)
	}
	for _, p := range m.pools {
		if !m.usableByAll(samples, p) {
			continue
		}
		for _, f := range m.poolFits(p) {
			if sum.within(f.alloc) {
				return true
			}
		}
	}
	return false
}

// slotClass is the candidates' movable pods of one class.
type slotClass struct {
	sample   *pod
	least    vec
	n        int
	homeless bool
}

// claimClasses returns the classes of the candidates' movable pods that
// need a NodeClaim (see above), in the order they are met; ok is false when a pod asks for a resource the checks do not count,
// or a class tolerates the cordon (m.mu held).
func (m *model) claimClasses(cands []*candidate) ([]*slotClass, bool) {
	rs := m.rooms()
	leaving := map[*node]bool{}
	for _, c := range cands {
		leaving[c.n] = true
	}
	var order []*slotClass
	byKey := map[string]*slotClass{}
	for _, c := range cands {
		for _, p := range c.movable {
			v, ok := m.placeVec(p)
			if !ok || toleratesCordon(p) {
				return nil, false
			}
			sc := byKey[p.classKey()]
			if sc == nil {
				sc = &slotClass{sample: p, least: vec(append([]int64(nil), v...))}
				byKey[p.classKey()] = sc
				order = append(order, sc)
			}
			for d, x := range v {
				sc.least[d] = min(sc.least[d], x)
			}
			sc.n++
			sc.homeless = sc.homeless || !rs.fitsSomewhere(m.classRoom(rs, p), p, v, leaving)
		}
	}
	var out []*slotClass
	for _, sc := range order {
		if sc.homeless || m.slotsBelow(rs, m.classRoom(rs, sc.sample), sc.least, sc.n, leaving) {
			out = append(out, sc)
		}
	}
	return out, true
}

// slotsBelow: the nodes that admit the class and are not leaving have
// fewer than n slots for pods asking at least least each.
func (m *model) slotsBelow(rs *roomState, cr *classRoom, least vec, n int, leaving map[*node]bool) bool {
	counted := false
	for _, x := range least {
		counted = counted || x > 0
	}
	if !counted {
		return false // pods that ask for nothing fit anywhere
	}
	slots := 0
	for _, i := range cr.admitted {
		if leaving[rs.nodes[i]] {
			continue
		}
		if slots += slotsIn(rs.rooms[i], least); slots >= n {
			return false
		}
	}
	return true
}

// slotsIn is how many pods asking least each a room holds.
func slotsIn(room, least vec) int {
	k := -1
	for d, x := range least {
		if x <= 0 {
			continue
		}
		s := int(max(room[d], 0) / x)
		if k < 0 || s < k {
			k = s
		}
	}
	return max(k, 0)
}

// toleratesCordon: the pod tolerates the taint of a cordoned node.
func toleratesCordon(p *pod) bool {
	cordon := []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	_, bad := requirements.UntoleratedTaint(cordon, p.obj.Spec.Tolerations)
	return !bad
}
