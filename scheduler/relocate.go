package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
)

// Relocating a claim to another zone. A pod that a topology group counts
// on the zone pins its claim to one zone when it opens it: the one where
// the claim is cheapest for that pod alone. Pods of other classes that
// join it later grow it into a type whose cheapest offering may be in
// another zone (a capacity reservation, a spot price), and the other moves
// take pods to claims that exist, never a claim to another zone.
// Karpenter leaves the zone of such a claim open until its type decides
// it. relocate takes every pod off the claim and places them, in the
// order they joined it, on one new claim of the same NodePool pinned to
// another zone, and keeps the result when it costs less and the plan's
// topology still holds (every pod's own rules checked there as for any
// placement, the spreads that count the pods holding once all have
// moved); else everything goes back. The pods move together, so the
// hostname affinity among them holds; a pod that another pod follows on a
// key other than hostname stays in its domains of those keys
// (topology.Pod.MayChangeDomain).

// relocateMaxPods bounds the pending pods of a plan whose claims are
// relocated (each try re-places a whole claim).
const relocateMaxPods = 2000

// relocateZones bounds the zones tried per claim (the cheapest first).
const relocateZones = 2

// relocateRound tries to relocate every live claim, the dearest first.
func (s *solver) relocateRound(budget *int) {
	if len(s.pending) > relocateMaxPods {
		return
	}
	order := s.byPrice()
	slices.Reverse(order)
	for _, cl := range order {
		if *budget <= 0 || s.stopped() {
			return
		}
		if cl.live() {
			s.relocate(cl, budget)
		}
	}
}

// relocate moves every pod of cl to one new claim in the zone where they
// cost least together, when that is cheaper than cl.
func (s *solver) relocate(cl *claim, budget *int) {
	atts, free, ok := s.relocateAttempts(cl)
	if !ok {
		return
	}
	for _, z := range s.relocateTargets(cl, free) {
		if *budget <= 0 {
			return
		}
		if s.relocateTo(cl, atts, z, budget) {
			return
		}
	}
}

// relocateAttempts returns the attempt each pod of cl would move under
// (its term and level; pinned to cl's domains on the keys topology counts
// it on when it may not change domain), and the requirements of a claim
// of cl's NodePool that holds them all.
func (s *solver) relocateAttempts(cl *claim) ([]attempt, int32, bool) {
	atts := make([]attempt, len(cl.pods))
	id := cl.pool.reqID
	for i, pp := range cl.pods {
		c := pp.cls
		a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
		if !ok {
			return nil, -1, false
		}
		if !c.topo.MayChangeDomain() {
			if a.reqID, ok = s.pinToDomains(a.reqID, c, cl.reqID); !ok {
				return nil, -1, false
			}
		}
		if id = s.reqs.compat(id, a.reqID); id < 0 {
			return nil, -1, false
		}
		atts[i] = a
	}
	return atts, id, true
}

// relocateTarget is a zone a claim may move to and the requirements of
// the claim there.
type relocateTarget struct {
	pin   int32
	price float64
}

// relocateTargets lists, for a claim pinned to one zone whose pods could
// all run in others, the other zones where a claim with requirements free
// holds cl's pods for less than cl, the cheapest first (at most
// relocateZones).
func (s *solver) relocateTargets(cl *claim, free int32) []relocateTarget {
	zone := s.reqs.info(cl.reqID).reqs.Get(requirements.LabelTopologyZone)
	allowed := s.reqs.info(free).reqs.Get(requirements.LabelTopologyZone)
	if zone.Len() != 1 || allowed.Len() == 1 {
		return nil // not pinned to a zone, or its pods need that one
	}
	var out []relocateTarget
	for _, z := range s.idx.Zones() {
		if !allowed.Has(z) || zone.Has(z) {
			continue
		}
		pin := s.reqs.intern(requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, z)), nil)
		id := s.reqs.and(free, pin)
		if id < 0 {
			continue
		}
		var zero binpack.Vec
		_, _, price, ok := s.cheapestFit(cl.ports, cl.pool, id, cl.used, &zero, 0, math.Inf(1), cl)
		if ok && price < cl.price-priceEps {
			out = append(out, relocateTarget{pin: pin, price: price})
		}
	}
	slices.SortStableFunc(out, func(a, b relocateTarget) int { return cmp.Compare(a.price, b.price) })
	return out[:min(len(out), relocateZones)]
}

// relocateTo moves the pods of cl, under atts, to a new claim pinned to
// the target's zone, and keeps the move when the new claim costs less than
// cl did and the plan's topology holds; else it puts everything back.
func (s *solver) relocateTo(cl *claim, atts []attempt, z relocateTarget, budget *int) bool {
	pods := slices.Clone(cl.pods)
	placed := make([]placedAttempt, len(pods))
	price := cl.price
	outer := s.beginJournal()
	for i, pp := range pods {
		placed[i] = pp.att
		host := s.claimHost(cl)
		s.topo.Unrecord(pp.cls.topo, atts[i].active, &host)
		s.detach(pp)
	}
	var dst *claim
	ok := true
	for i, pp := range pods {
		a := atts[i]
		if a.reqID = s.reqs.and(a.reqID, z.pin); a.reqID < 0 {
			ok = false
			break
		}
		*budget--
		var ev evaluation
		if dst == nil {
			a.allowNew = true
			ev, ok = s.evalNew(a, cl.pool)
		} else {
			ev, ok = s.evalClaim(a, dst)
		}
		if !ok {
			break
		}
		s.commit(pp, a, ev)
		if dst == nil {
			dst = pp.claim
		}
	}
	if ok {
		ok = dst.price < price-priceEps && s.relocatedHold(pods)
	}
	if ok {
		s.keepJournal(outer)
		return true
	}
	for i, pp := range pods {
		if pp.claim != nil {
			s.moveBack(pp, cl)
		} else {
			s.returnTo(pp, atts[i], cl)
		}
	}
	for i, pp := range pods {
		pp.att = placed[i]
	}
	s.rollback(nil, outer)
	return false
}

// relocatedHold reports whether the plan's topology holds once pods moved
// to another zone: the spreads that count each of them, and the domains
// of the plan's nodes as they would launch (planHolds).
func (s *solver) relocatedHold(pods []*pending) bool {
	for _, pp := range pods {
		if !s.topo.SpreadHolds(pp.cls.topo) {
			return false
		}
	}
	return s.planHolds()
}
