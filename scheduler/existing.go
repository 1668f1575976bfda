package scheduler

import (
	"cmp"
	"slices"

	"github.com/nodeplan/nodeplan/topology"
)

// The existing-node pass empties planned NodeClaims onto existing nodes.
// Greedy placement can fill an existing node with pods that another
// existing node would also have taken (a tainted node they tolerate), so
// that a pod only the first node could take gets a NodeClaim of its own.
// The pass takes each claim, the most expensive first, and moves all of its
// pods onto existing nodes: into room left there, or into room made by
// moving one pod placed there in this solve to another existing node. All
// of a claim's pods move, or none does; an emptied claim is dropped, which
// saves its whole price and touches no other claim.

// relocation is one move of the pass, kept to undo it.
type relocation struct {
	pp        *pending
	fromClaim *claim        // the claim pp left, or nil
	fromNode  *existingNode // the existing node pp left, or nil
	a         attempt
}

// toExisting runs the pass over the live claims.
func (s *solver) toExisting(budget *int) {
	if len(s.existing) == 0 {
		return
	}
	order := s.liveClaims()
	slices.SortStableFunc(order, func(a, b *claim) int {
		if c := cmp.Compare(b.price, a.price); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	for _, cl := range order {
		if *budget <= 0 {
			return
		}
		if !cl.dropped && len(cl.pods) > 0 {
			s.emptyToExisting(cl, budget)
		}
	}
}

// emptyToExisting moves every pod of cl onto existing nodes, or none.
func (s *solver) emptyToExisting(cl *claim, budget *int) bool {
	var done []relocation
	for _, pp := range bySizeDesc(cl.pods) {
		moves, ok := s.claimPodToExisting(pp, budget)
		if !ok {
			s.undoRelocations(done)
			return false
		}
		done = append(done, moves...)
	}
	return true
}

// claimPodToExisting moves pp from its claim onto an existing node,
// directly or by first moving a pod placed there to another existing node;
// it returns the moves made.
func (s *solver) claimPodToExisting(pp *pending, budget *int) ([]relocation, bool) {
	c := pp.cls
	if !c.topo.Movable() {
		return nil, false
	}
	a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
	if !ok {
		return nil, false
	}
	src := pp.claim
	srcHost := s.hostOf(pp)
	s.topo.Unrecord(c.topo, a.active, &srcHost)
	for _, en := range s.existing {
		*budget--
		if s.existingAdmits(a, en) {
			s.detach(pp)
			s.putExisting(pp, a, en)
			return []relocation{{pp: pp, fromClaim: src, a: a}}, true
		}
	}
	for _, en := range s.existing {
		if *budget <= 0 {
			break
		}
		if len(en.placed) == 0 || !s.existingStatic(a, en) {
			continue
		}
		if q, ok := s.makeRoom(pp, a, en, budget); ok {
			s.detach(pp)
			s.putExisting(pp, a, en)
			return []relocation{q, {pp: pp, fromClaim: src, a: a}}, true
		}
	}
	s.topo.Record(c.topo, a.active, &srcHost)
	return nil, false
}

// makeRoom moves one pod placed on en in this solve to another existing
// node so that the attempt's pod fits en (it is then checked again with
// the moved pod recorded in its new place). It returns the move.
func (s *solver) makeRoom(pp *pending, a attempt, en *existingNode, budget *int) (relocation, bool) {
	need := a.c.requests
	for _, q := range slices.Clone(en.placed) {
		if *budget <= 0 {
			break
		}
		if q.cls.topo == nil || !q.cls.topo.Movable() || !need.Fits(en.free.Add(q.cls.requests)) {
			continue
		}
		aq, ok := s.newAttempt(q.cls, q.att.alt, q.att.level, false)
		if !ok {
			continue
		}
		s.takeOffExisting(q, aq)
		if s.existingAdmits(a, en) {
			for _, en2 := range s.existing {
				*budget--
				if en2 == en || !s.existingAdmits(aq, en2) {
					continue
				}
				s.putExisting(q, aq, en2)
				if s.existingAdmits(a, en) {
					return relocation{pp: q, fromNode: en, a: aq}, true
				}
				s.takeOffExisting(q, aq)
			}
		}
		s.putExisting(q, aq, en)
	}
	return relocation{}, false
}

// takeOffExisting removes pp from its existing node, topology counts
// included.
func (s *solver) takeOffExisting(pp *pending, a attempt) {
	host := topology.Host{Node: pp.node.topo, NodeDomains: &pp.node.doms}
	s.topo.Unrecord(pp.cls.topo, a.active, &host)
	s.unplaceExisting(pp)
}

// undoRelocations puts the pods back where they were, last move first.
func (s *solver) undoRelocations(done []relocation) {
	for i := len(done) - 1; i >= 0; i-- {
		r := done[i]
		if r.fromClaim != nil {
			s.moveBack(r.pp, r.fromClaim)
			continue
		}
		s.takeOffExisting(r.pp, r.a)
		s.putExisting(r.pp, r.a, r.fromNode)
	}
}
