package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Reservations held by other NodeClaims, counted for minValues. Karpenter
// counts a NodePool's minValues over the instance types whose offerings
// the catalog has, the reservations other NodeClaims of the plan hold
// included: its NodeClaim reserves every compatible reservation and
// launches where one is still free. nodeplan's NodeClaims count only the
// types they can launch now, and drop a claim whose free reservations fall
// short of a minValues, with its pods (seed 64097: the two 14Gi pods that
// fit r2 or r4, r2's one reservation held by the first NodeClaim, left
// out with minValues 2 unmet, where Karpenter launches them on r4).
// Counting the held ones everywhere is no better: a NodeClaim launched so
// takes a reservation a later claim needed (seed 62973: 92 pods placed
// instead of 121). So when the plan Solve keeps drops claims for a
// minValues on reserved capacity, Solve plans the input again with every
// NodeClaim counting the held reservations too (launchHeld), and keeps
// that plan only when it places more pods.

// orHeldLaunched returns, in place of best, the whole solve made again
// with held reservations counted for minValues (bestOf with launchHeld),
// when best, the solve's plan, left pods out for a minValues on reserved
// capacity and that solve places more; else best. It is made last, on the
// plan every other fallback made: a plan that gains pods this way early
// can lose what a later fallback of the first solve gains (seed 62973:
// 92 pods where the solve ends with 121).
func (best *solver) orHeldLaunched(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if !best.hasReservations || cfg.launchHeld || len(best.pending) > fallbackMaxPods || !best.leftForMinValues() {
		return best, nil
	}
	held := cfg
	held.launchHeld = true
	v, err := bestOf(pods, nodePools, catalog, held)
	if err != nil {
		return nil, err
	}
	if v.finalPlaced() > best.finalPlaced() {
		return v, nil
	}
	return best, nil
}

// leftForMinValues reports whether the plan, as it launches, leaves a pod
// out for a minValues.
func (s *solver) leftForMinValues() bool {
	s.finalPlaced()
	for _, pp := range s.pending {
		if !placedOn(pp) && pp.failure != nil && pp.failure.code == ReasonMinValues {
			return true
		}
	}
	return false
}
