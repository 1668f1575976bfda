package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Claims left open where only existing pods' anti-affinity counts. A pod
// that the required anti-affinity of a bound pod selects, on the zone say,
// is counted in that term's group, and a counted pod pins its claim to one
// zone the term allows: the cheapest for the claim as it stands. Karpenter
// only keeps such a NodeClaim out of the bound pod's zone and leaves the
// others open, and the NodeClaim's cheapest offering decides: a capacity
// reservation in another zone that, with the first, lists enough instance
// types for a minValues (launchres.go), or room that a later pod needing
// another zone can join. When no pending pod owns the term, nothing reads
// where the pods it selects are counted, and the plan with such claims
// left open (topology.Tracker.LeaveInverseOpen) is as valid. Solve makes
// it, finished, after the best plan is finished, and keeps it in its place
// when it places more pods, or the same pods for less: made among the
// portfolio's plans before finishing, it could replace one that finishes
// cheaper.

// orInverseOpen returns, in place of best (finished), the finished plan of
// nodeplan's own config with claims left open on keys that only existing
// pods' required anti-affinity counts their pods on, when it places more
// pods or the same pods for less; else best.
func (best *solver) orInverseOpen(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if best.topo == nil || !best.topo.HasInverseOnly() || len(best.pending) > joinPlannedMaxPods {
		return best, nil
	}
	c := cfg
	c.inverseOpen = true
	v, err := newSolver(pods, nodePools, catalog, c)
	if err != nil {
		return nil, err
	}
	if v.stopped() {
		return best, nil
	}
	v.plan()
	if v, err = v.finish(pods, nodePools, catalog, c); err != nil {
		return nil, err
	}
	if n, bn := v.finalPlaced(), best.finalPlaced(); n > bn || (n == bn && samePlaced(best, v) && v.planPrice() < best.planPrice()-priceEps) {
		return v, nil
	}
	return best, nil
}
