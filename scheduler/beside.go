package scheduler

// Placing a pod beside a target that moves. A pod whose required pod
// affinity on hostname selects other pods can only join a node that holds
// one of them; when each such node is taken (a host port, an anti-affinity,
// no room left for a larger type), the pod stays unplaced although moving
// one of the targets to a node of its own would make room: seven small pods
// packed on one node, three pods that each need one of them beside them and
// a host port each. Karpenter sometimes spreads the targets by chance (they
// join the NodeClaims of larger pods one by one); the plan spreads them on
// purpose, one target at a time, for the pods left unplaced at the end.

// besideTries bounds the targets one unplaced pod tries to move.
const besideTries = 8

// placeBeside places pp, left unplaced, beside one of its pod-affinity
// targets moved to a new NodeClaim. It keeps the move only when pp was
// placed and every pod left on the target's former claim still meets its
// required topology rules; else everything goes back.
func (s *solver) placeBeside(pp *pending) bool {
	c := pp.cls
	if len(c.targets) == 0 || c.invalid != nil {
		return false
	}
	tried := 0
	for _, t := range c.targets {
		for _, q := range t.pods {
			if tried >= besideTries {
				return false
			}
			if q.claim == nil || len(q.claim.pods) < 2 {
				continue // on an existing node, or alone on its claim already
			}
			tried++
			if s.moveTargetFor(pp, q) {
				return true
			}
		}
	}
	return false
}

// moveTargetFor moves target q from its claim to a new one and places pp;
// it undoes the move unless that placed pp and left q's former claim valid.
func (s *solver) moveTargetFor(pp, q *pending) bool {
	src := q.claim
	a, ok := s.newAttempt(q.cls, q.att.alt, q.att.level, true)
	if !ok {
		return false
	}
	host := s.hostOf(q)
	s.topo.Unrecord(q.cls.topo, a.active, &host)
	var nc evaluation
	found := false
	for _, p := range s.pools {
		if s.poolTolerated(q.cls, p, a.level) {
			if nc, found = s.evalNew(a, p); found {
				break
			}
		}
	}
	if !found {
		s.topo.Record(q.cls.topo, a.active, &host)
		return false
	}
	s.detach(q)
	s.commit(q, a, nc)
	if s.place(pp) {
		if s.claimHolds(src) {
			return true
		}
		s.takeOff(pp)
	}
	s.moveBack(q, src)
	return false
}

// claimHolds reports whether every pod on cl meets its required topology
// rules as the plan stands.
func (s *solver) claimHolds(cl *claim) bool {
	required := func(int) bool { return false }
	for _, o := range cl.pods {
		if !o.cls.topo.Relevant() {
			continue
		}
		host := s.hostOf(o)
		s.topo.Unrecord(o.cls.topo, required, &host)
		_, v := s.topo.Check(o.cls.topo, required, &host, nil)
		s.topo.Record(o.cls.topo, required, &host)
		if v != nil {
			return false
		}
	}
	return true
}
