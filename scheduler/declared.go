package scheduler

import "slices"

// redeclare re-places the pods a claim no longer declares the labels for.
// A pod may need a label its claim's NodePool does not declare when another
// pod of the claim opens the key (a NotIn on it, required or preferred):
// Karpenter's rule, which verify.Plan checks as UndefinedLabel. Moves made
// after placement (drains, ejections, swaps, relocations) may take the
// opening pod away and leave the other behind, on a claim whose
// requirements then keep the key only because widen cannot drop it. Such a
// pod is taken off and placed again where its labels are declared, or left
// unplaced with its reason; spreads are settled again afterwards.
func (s *solver) redeclare() {
	var bad []*pending
	for _, cl := range s.liveClaims() {
		bad = append(bad, s.undeclaredOn(cl)...)
	}
	if len(bad) == 0 {
		return
	}
	for _, pp := range bad {
		s.takeOff(pp)
	}
	for _, pp := range bad {
		s.place(pp)
	}
	s.settle()
}

// undeclaredOn returns the pods of cl that its NodePool's requirements ∩
// those of the other pods cannot take: the pods are joined to the NodePool's
// requirements while any joins (an opening pod may sit after the pods that
// lean on it), each with its kept preferences or else with what it
// requires only, and those that never join are returned.
func (s *solver) undeclaredOn(cl *claim) []*pending {
	id := cl.pool.reqID
	for _, o := range cl.pods {
		if id = s.reqs.compat(id, o.att.reqID); id < 0 {
			break
		}
	}
	if id >= 0 {
		return nil
	}
	id = cl.pool.reqID
	left := slices.Clone(cl.pods)
	for joined := true; joined && len(left) > 0; {
		joined = false
		left = slices.DeleteFunc(left, func(o *pending) bool {
			j := s.reqs.compat(id, o.att.reqID)
			if j < 0 {
				// A preference the pod kept may be what the NodePool does
				// not declare: kube-scheduler binds it without, so only
				// what it requires has to join.
				if a, ok := s.newAttempt(o.cls, o.att.alt, len(o.cls.steps), false); ok && a.reqID != o.att.reqID {
					j = s.reqs.compat(id, a.reqID)
				}
			}
			if j < 0 {
				return false
			}
			id, joined = j, true
			return true
		})
	}
	return left
}
