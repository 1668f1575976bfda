package scheduler

import (
	"math"

	"github.com/nodeplan/nodeplan/binpack"
)

// Replanting a lone pod. A claim left with one pod keeps the domains its
// pods were pinned to (a zone, a capacity type), and with them, at times, a
// type far dearer than the pod needs: the pods that shared it moved away,
// and the only offering left in its zone is a large spot type. The other
// moves only fill rooms that exist; replanting takes the pod off and places
// it afresh (a planned claim with room, or a new claim in any domain its
// rules allow, but its own under WithSpreadDomainsKept), and keeps the
// result when it costs less than the claim.

// replant places the only pod of cl afresh when that costs less than cl.
func (s *solver) replant(cl *claim, budget *int) {
	if len(cl.pods) != 1 || s.hasReservations {
		return
	}
	pp := cl.pods[0]
	c := pp.cls
	if !s.leavable(pp) {
		return
	}
	if s.replantFloor(pp, cl) >= cl.price-priceEps {
		return // no type the pod could take costs less
	}
	a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, true)
	if !ok {
		return
	}
	if s.keepsDomains(c) {
		if a.reqID, ok = s.pinToDomains(a.reqID, c, cl.reqID); !ok {
			return
		}
	}
	*budget--
	host := s.claimHost(cl)
	s.topo.Unrecord(c.topo, a.active, &host)
	price := cl.price
	s.detach(pp) // cl is dropped: a new claim may take its place
	ev, found := s.cheapestPlacement(pp, a, cl, price)
	if !found {
		s.returnTo(pp, a, cl)
		return
	}
	s.commit(pp, a, ev)
}

// replantFloor is the price of the cheapest type of cl's NodePool that
// holds pp, in any domain.
func (s *solver) replantFloor(pp *pending, cl *claim) float64 {
	id := s.reqs.compat(cl.pool.reqID, pp.att.reqID)
	if id < 0 {
		return math.Inf(1)
	}
	var zero binpack.Vec
	_, _, price, ok := s.cheapestFit(pp.cls.ports, cl.pool, id, pp.cls.requests, &zero, 0, math.Inf(1), nil)
	if !ok {
		return math.Inf(1)
	}
	return price
}

// cheapestPlacement is the placement of pp (off every claim) that adds the
// least to the plan's price, if it adds less than below: a planned claim
// other than from that grows the least, or a new claim of any NodePool.
func (s *solver) cheapestPlacement(pp *pending, a attempt, from *claim, below float64) (evaluation, bool) {
	c := a.c
	var best evaluation
	found := false
	for _, p := range s.pools {
		if !s.poolTolerated(c, p, a.level) {
			continue
		}
		if nc, ok := s.evalNew(a, p); ok && nc.price+s.cfg.nodeCost < below-priceEps && (!found || nc.delta < best.delta) {
			best, found = nc, true
		}
	}
	for _, p := range s.pools {
		if !s.poolTolerated(c, p, a.level) || len(p.buckets) == 0 {
			continue
		}
		ev, ok := s.findClaim(pp, a, p, below)
		if ok && ev.claim != from && ev.delta < below-priceEps && (!found || ev.delta < best.delta) {
			best, found = ev, true
		}
	}
	return best, found
}
