package scheduler

import (
	"cmp"
	"slices"
)

// Karpenter's order of in-flight NodeClaims. Before each pod, Karpenter's
// scheduler sorts the NodeClaims it has planned so far by how many pods
// they hold, fewest first, and the pod joins the first that takes it
// (keeping every instance type that still fits), whatever that claim then
// grows to; only when none takes it does a new NodeClaim open. Spreading
// pods over the claims this way often packs followers beside a pod that
// made its claim large (a preference for a big type, say), where joining
// the claim whose price grows least (joinPlanned's choice) leaves the
// large claim nearly empty and opens another. The plan made with
// joinFewest is one more plan Solve compares (bestPlan): it is kept only
// when it places more pods, or the same pods for less.

// joinFewestMaxPods bounds the inputs also planned in Karpenter's order
// of in-flight NodeClaims (each pod examines every planned claim).
const joinFewestMaxPods = 300

// joinFewestOrNew places pp on the planned claim holding the fewest pods
// that takes it (then the one opened first), else on the new claim nc
// when there is one (haveNew).
func (s *solver) joinFewestOrNew(pp *pending, a attempt, nc evaluation, haveNew bool) bool {
	order := s.liveClaims()
	slices.SortStableFunc(order, func(x, y *claim) int { return cmp.Compare(len(x.pods), len(y.pods)) })
	for _, cl := range order {
		if !s.poolTolerated(a.c, cl.pool, a.level) {
			continue
		}
		if ev, ok := s.evalClaim(a, cl); ok {
			s.commit(pp, a, ev)
			return true
		}
	}
	if haveNew {
		s.commit(pp, a, nc)
		return true
	}
	return false
}
