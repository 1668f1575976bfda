package scheduler

import "sync/atomic"

// A solve's alternative plans (planWith) run beside its own plan, and
// bestPlan keeps the own plan unless another places more pods, or as many
// for less. An own plan that places every pod without any NodeClaim can
// therefore never be beaten: no plan places more than every pod, and none
// costs less than nothing (prices are never negative: the catalog check
// refuses them). That is the common answer of a disruption planner's
// simulation (the pods of a node that can go fit on the others), so once
// the own plan is known to be unbeatable the alternatives still running
// stop where they are (their solver is dropped unread) and the own plan is
// the answer, exactly as bestPlan would have chosen it. A small solve's own
// plan is made before the alternatives are prepared (planFirstMaxPods), so
// that an unbeatable one spares their preparation too.
//
// Every plan of a solve prepares the same pods, NodePools and existing
// nodes, and the own plan's preparation succeeded before the alternatives
// began: an alternative stopped before its preparation ended loses no
// error.

// unbeatable reports whether no other plan of the solve can be chosen over
// s (see above).
func (s *solver) unbeatable() bool {
	if s.placed() != len(s.pending) {
		return false
	}
	for _, cl := range s.claims {
		if cl.live() {
			return false
		}
	}
	return true
}

// stopped reports whether the plan was told to stop: an alternative whose
// own plan is unbeatable. Its state is then incomplete and never read.
func (s *solver) stopped() bool {
	return s.cfg.stop != nil && s.cfg.stop.Load()
}

// stopFlag is what planWith raises to stop its alternatives.
type stopFlag = atomic.Bool
