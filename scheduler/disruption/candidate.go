package disruption

import (
	"time"

	"github.com/nodeplan/nodeplan/nodepool"
)

// class is Karpenter's disruption class: graceful methods (emptiness,
// consolidation) always respect do-not-disrupt and PodDisruptionBudgets;
// eventual ones (drift) ignore them on a NodeClaim with a
// terminationGracePeriod (D-012).
type class int

const (
	graceful class = iota
	eventual
)

// candidate is a node that passed the generic checks (A.3).
type candidate struct {
	n *node
	// resched are the pods Karpenter re-creates elsewhere; movable those
	// the simulation moves (no active do-not-disrupt, no fully blocking
	// PodDisruptionBudget).
	resched, movable []*pod
	// cost is RescheduleDisruptionCost: 1 + Σ max(0, eviction cost) of the
	// reschedulable pods.
	cost float64
	// sized holds sizes once asked (surplus.go).
	sized *candidateSizes
}

// perNodeCost is Karpenter's PerNodeBaseDisruptionCost.
const perNodeCost = 1.0

// empty: no reschedulable pod with a positive eviction cost (IsEmpty).
func (c *candidate) empty() bool { return c.cost <= perNodeCost }

// savingsRatio is price per unit of disruption, the sort key of every
// consolidation method (0 when the price is unknown).
func (c *candidate) savingsRatio() float64 { return c.n.price / c.cost }

// newCandidate applies the generic rules in Karpenter's order; the first
// that fails is the reason the node is not a candidate. The answer is
// remembered until a command changes the node's pods (the methods of every
// round ask for every node; the candidate is never written once made): it
// reads the node, its pods, the PodDisruptionBudgets and now, and of
// those only the pods change, by the commands that log the node
// (noteChange).
func (m *model) newCandidate(nd *node, cl class) (*candidate, *why) {
	if m.cands == nil {
		m.cands, m.candsVersion = map[candKey]candResult{}, m.version
	}
	if m.candsVersion != m.version {
		for _, n := range m.changedSince(m.candsVersion) {
			delete(m.cands, candKey{n, graceful})
			delete(m.cands, candKey{n, eventual})
		}
		m.candsVersion = m.version
	}
	k := candKey{nd, cl}
	if r, ok := m.cands[k]; ok {
		return r.c, r.w
	}
	c, w := m.makeCandidate(nd, cl)
	m.cands[k] = candResult{c, w}
	return c, w
}

// candKey and candResult are newCandidate's memo.
type candKey struct {
	n  *node
	cl class
}

type candResult struct {
	c *candidate
	w *why
}

// makeCandidate is newCandidate without the memo.
func (m *model) makeCandidate(nd *node, cl class) (*candidate, *why) {
	if w := m.nodeRules(nd); w != nil {
		return nil, w
	}
	ignorePods := cl == eventual && m.gracePeriod(nd) != nil
	if !ignorePods {
		if w := m.podRules(nd); w != nil {
			return nil, w
		}
	}
	c := &candidate{n: nd, cost: perNodeCost}
	for _, p := range nd.pods {
		if !p.reschedulable() {
			continue
		}
		c.resched = append(c.resched, p)
		c.cost += max(0, p.evictionCost)
		if p.disruptable(m.now) && evictionBlock(m.pdbs, p, m.now, true) == nil {
			c.movable = append(c.movable, p)
		}
	}
	return c, nil
}

// nodeRules are D-002 to D-009 (D-001, D-003 and D-006 cannot happen in a
// snapshot: no queue, no NodeClaim without its Node among the nodes, no
// nomination).
func (m *model) nodeRules(nd *node) *why {
	switch {
	case !nd.managed:
		return keep(KeepUnmanaged, Details{})
	case !nd.initialized:
		return keep(KeepNotInitialized, Details{})
	case nd.deleting:
		return keep(KeepDeleting, Details{})
	case nd.obj.Annotations[AnnotationDoNotDisrupt] == "true" || (!nd.claimMade && nd.claim.Annotations[AnnotationDoNotDisrupt] == "true"):
		return keep(KeepDoNotDisrupt, Details{})
	case nd.poolName == "":
		return keep(KeepNodePoolNotFound, Details{Label: "karpenter.sh/nodepool"})
	case nd.pool == nil || !nd.pool.hasTypes:
		return keep(KeepNodePoolNotFound, Details{NodePool: nd.poolName})
	}
	return nil
}

// podRules are D-010 (an active do-not-disrupt on any pod, DaemonSet and
// mirror pods included) and D-011 (an evictable pod under two budgets or
// one that allows no disruption).
func (m *model) podRules(nd *node) *why {
	for _, p := range nd.pods {
		if !p.active() {
			continue
		}
		if on, until := p.doNotDisruptUntil(m.now); on {
			d := Details{Pod: p.key}
			if until != nil {
				d.Until, d.TimeLeft = until, left(m.now, *until)
			}
			return keep(KeepPodDoNotDisrupt, d)
		}
	}
	for _, p := range nd.pods {
		if b := evictionBlock(m.pdbs, p, m.now, false); b != nil {
			return keep(KeepPDB, Details{Pod: b.pod, PodDisruptionBudgets: b.pdbs, Allowed: ptr(int(b.allowed))})
		}
	}
	return nil
}

// gracePeriod is the NodeClaim's terminationGracePeriod (a NodeClaim made
// from a Node takes its pool's).
func (m *model) gracePeriod(nd *node) *time.Duration {
	if !nd.claimMade && nd.claim.Spec.TerminationGracePeriod != nil {
		return &nd.claim.Spec.TerminationGracePeriod.Duration
	}
	if nd.pool != nil && nd.pool.np.Spec.Template.Spec.TerminationGracePeriod != nil {
		return &nd.pool.np.Spec.Template.Spec.TerminationGracePeriod.Duration
	}
	return nil
}

// consolidationRules are the filters every consolidation method shares
// (D-013 static pool, D-014 consolidateAfter Never, D-015 consolidateAfter
// not elapsed since the last pod event).
func (m *model) consolidationRules(c *candidate) *why {
	p := c.n.pool
	switch {
	case p.static:
		return keep(KeepStatic, Details{NodePool: p.name})
	case p.consolidateAfter == nil:
		return keep(KeepDisabled, Details{NodePool: p.name})
	case c.n.claimUninitialized:
		// Karpenter sets Consolidatable only on an initialized NodeClaim
		// (D-250), whatever the Node's label says.
		return keep(KeepNotInitialized, Details{Label: "its NodeClaim's Initialized condition is not True"})
	}
	if until := c.n.lastEvent.Add(*p.consolidateAfter); m.now.Before(until) {
		return keep(KeepConsolidateAfter, Details{Until: &until, TimeLeft: left(m.now, until)})
	}
	return nil
}

// underutilizedRules are the further filters of multi- and single-node
// consolidation: D-018 price unknown, D-019 empty (left to Emptiness),
// D-020 WhenEmpty. The bool is false for an empty node (no reason: it is
// Emptiness's).
func (m *model) underutilizedRules(c *candidate) (*why, bool) {
	if w := m.consolidationRules(c); w != nil {
		return w, false
	}
	n := c.n
	switch {
	case n.it == nil:
		return keep(KeepUnknownPrice, Details{Label: "instance type unknown"}), false
	case n.ct == "":
		return keep(KeepUnknownPrice, Details{Label: "no karpenter.sh/capacity-type label"}), false
	case n.zone == "":
		return keep(KeepUnknownPrice, Details{Label: "no topology.kubernetes.io/zone label"}), false
	case c.empty():
		return nil, false
	case n.pool.policy == nodepool.ConsolidationWhenEmpty:
		return keep(KeepWhenEmpty, Details{NodePool: n.pool.name}), false
	}
	return nil, true
}

// underConsolidateAfter: a destination that received pods within its
// pool's consolidateAfter refuses pods moved by consolidation (B.2.5);
// consolidateAfter 0 or Never never gates.
func (m *model) underConsolidateAfter(nd *node) bool {
	if !nd.managed || nd.pool == nil || nd.pool.consolidateAfter == nil || *nd.pool.consolidateAfter == 0 || !nd.initialized {
		return false
	}
	return m.now.Sub(nd.lastEvent) < *nd.pool.consolidateAfter
}
