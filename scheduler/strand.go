package scheduler

import (
	"slices"

	"github.com/nodeplan/nodeplan/topology"
)

// unstrand re-places the pods that started a domain of their own required
// self-affinity group (no other matching pod was in a domain they could
// use) when a matching pod placed later sits in such a domain: whichever of
// the two binds first, the plan must hold, and once the other one is bound
// this pod may only join a domain that has a match. A pod that finds no
// such place is left unplaced (its reason says why). Rounds repeat while a
// move strands another pod, a few times at most.
func (s *solver) unstrand() {
	if !slices.ContainsFunc(s.classes, func(c *class) bool { return c.topo != nil && c.topo.SelfAffine() }) {
		return
	}
	for range 3 {
		moved := false
		for _, pp := range s.pending {
			c := pp.cls
			if c.topo == nil || !c.topo.SelfAffine() || (pp.claim == nil && pp.node == nil) {
				continue
			}
			host := s.hostOf(pp)
			if !s.topo.Stranded(c.topo, &host) {
				continue
			}
			a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, true)
			if !ok {
				continue
			}
			s.topo.Unrecord(c.topo, a.active, &host)
			if pp.claim != nil {
				s.detach(pp)
			} else {
				s.unplaceExisting(pp)
			}
			moved = true
			s.place(pp)
		}
		if !moved {
			return
		}
	}
}

// hostOf is the topology view of where pp is placed.
func (s *solver) hostOf(pp *pending) topology.Host {
	if en := pp.node; en != nil {
		return topology.Host{Node: en.topo, NodeDomains: &en.doms}
	}
	cl := pp.claim
	return s.claimHost(cl)
}

// unplaceExisting takes pp off the existing node it was placed on (its
// topology counts must already be unrecorded).
func (s *solver) unplaceExisting(pp *pending) {
	en := pp.node
	i := slices.Index(en.placed, pp)
	en.placed = slices.Delete(en.placed, i, i+1)
	en.free = en.free.Add(pp.cls.requests)
	for _, hp := range pp.cls.ports { // the node's other ports stay (bound pods, DaemonSets)
		if j := slices.Index(en.ports, hp); j >= 0 {
			en.ports = slices.Delete(en.ports, j, j+1)
		}
	}
	pp.node = nil
	pp.cls.placedN--
}

// settle checks every placed pod against its own required topology rules
// and the required rules of others on the plan as it ends, as
// kube-scheduler will when the pod binds last: the improvement phase, the
// repairs above and limits met at finalisation move and drop pods after
// their neighbours were checked. A pod that no longer holds is taken off
// and placed again under the plan's final counts; after a few rounds, those
// that still do not hold stay unplaced (their reason says why).
func (s *solver) settle() {
	for round := 0; round < settleRounds; round++ {
		var bad []*pending
		for _, pp := range s.pending {
			if (pp.claim != nil || pp.node != nil) && s.topologyBreaks(pp) {
				bad = append(bad, pp)
			}
		}
		if len(bad) == 0 {
			return
		}
		for _, pp := range bad {
			s.takeOff(pp)
		}
		if round == settleRounds-1 {
			return
		}
		for _, pp := range bad {
			s.place(pp)
		}
	}
}

// settleRounds bounds the rounds of settle.
const settleRounds = 3

// takeOff removes a placed pod from its node or claim, topology included.
func (s *solver) takeOff(pp *pending) {
	host := s.hostOf(pp)
	s.topo.Unrecord(pp.cls.topo, func(int) bool { return false }, &host)
	if pp.claim != nil {
		s.detach(pp)
	} else {
		s.unplaceExisting(pp)
	}
}
