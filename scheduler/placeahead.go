package scheduler

// placeAhead is the last try for a pod that no relaxation level placed: at
// its last level again, with topology choosing a NodeClaim's domains with
// the later keys in view where its greedy choice, key by key, left no
// instance type for the pod (topology/lookahead.go). A pod counted on a
// capacity type by another spread may be pinned to spot (the cheaper) and
// then find no zone its anti-affinity allows that offers spot, though
// on-demand there would do. Only a pod that would stay unplaced takes this
// try, once the plan is made (placeLeftAhead), so every other placement
// keeps the greedy choice.
func (s *solver) placeAhead(pp *pending) bool {
	c := pp.cls
	if !c.topo.Relevant() {
		return false
	}
	level := len(c.steps)
	s.lookAhead = true
	defer func() { s.lookAhead = false }()
	for alt := range c.alts {
		if a, ok := s.newAttempt(c, alt, level, level >= c.nWhile); ok && s.tryPlace(pp, a) {
			pp.relaxed = c.relaxedAt(level)
			return true
		}
	}
	return false
}

// placeLeftAhead gives the pods the kept plan left unplaced their last try
// (placeAhead), once the plans were compared: it only adds pods to the plan
// kept, so which plan is kept, and the plans made when pods were left, stay
// as they were.
func (s *solver) placeLeftAhead() {
	placed := false
	for _, pp := range s.queue() {
		if pp.claim == nil && pp.node == nil && pp.cls.invalid == nil && s.placeAhead(pp) {
			placed = true
		}
	}
	if placed {
		s.final = nil // finalised before the pods were added
	}
}
