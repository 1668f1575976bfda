package scheduler

import (
	"cmp"
	"slices"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// A NodeClaim whose cheapest offering is in a capacity reservation lists
// the instance types that reservation has. When they fall short of a
// NodePool's minValues, it lists the types of further reservations with
// room, the cheapest first, until they meet it: its requirements then name
// the capacity type reserved and every one of those reservations (as
// Karpenter's NodeClaim names every reservation it holds). It still
// launches the cheapest offering, in the first reservation; the others
// are where the cloud would launch it should that one be gone. Launched
// off its reservations instead, it would pay the dearer on-demand or spot
// price for the same pods.

// reservedOffer is a reserved offering of an option: its type, position,
// price and reservation.
type reservedOffer struct {
	t, off int
	price  float64
	resID  string
}

// launchOnReservations returns l relaunched on the fewest reservations
// (taken by their cheapest offering among the options) whose types meet
// the NodePool's minValues, its options those types, each priced at its
// cheapest offering in them; ok is false when all of them together fall
// short.
func (s *solver) launchOnReservations(cl *claim, info *reqInfo, l launch) (launch, bool) {
	var offers []reservedOffer
	for _, o := range l.opts {
		for _, i := range s.idx.ReservedOfferings(o.t, info.offer, l.left) {
			_, _, price, id := s.idx.Offering(o.t, i)
			offers = append(offers, reservedOffer{t: o.t, off: i, price: price, resID: id})
		}
	}
	ids := reservationOrder(offers, l.resID)
	for n := 2; n <= len(ids); n++ {
		chosen := ids[:n]
		opts := optionsIn(offers, chosen)
		set := s.optionSet(opts)
		reqs := info.reqs.Add(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeReserved),
			requirements.In(instancetypes.LabelReservationID, chosen...))
		if _, ok := s.minValuesShort(cl.pool, reqs, set); !ok {
			continue
		}
		s.sortOptions(opts)
		l.opts, l.set, l.best = opts, set, opts[0]
		l.zone, l.ct, l.price, l.resID = s.idx.Offering(l.best.t, l.best.off)
		l.resIDs = slices.Sorted(slices.Values(chosen))
		l.resZones = make([]bool, len(s.idx.Zones()))
		for _, o := range offers {
			if slices.Contains(chosen, o.resID) {
				zone, _, _, _ := s.idx.Offering(o.t, o.off)
				l.resZones[s.idx.ZoneIndex(zone)] = true
			}
		}
		return l, true
	}
	return l, false
}

// reservationOrder lists the reservations of offers, first (the
// reservation of the launch's cheapest offering) first, the others by
// their cheapest offering, ties by ID.
func reservationOrder(offers []reservedOffer, first string) []string {
	cheapest := map[string]float64{}
	for _, o := range offers {
		if p, ok := cheapest[o.resID]; !ok || o.price < p {
			cheapest[o.resID] = o.price
		}
	}
	ids := []string{first}
	for id := range cheapest {
		if id != first {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids[1:], func(a, b string) int {
		return cmp.Or(cmp.Compare(cheapest[a], cheapest[b]), cmp.Compare(a, b))
	})
	return ids
}

// optionsIn returns an option per type with an offering in one of the
// reservations ids, at its cheapest such offering (offers are each type's
// cheapest first, types in option order).
func optionsIn(offers []reservedOffer, ids []string) []option {
	var opts []option
	for _, o := range offers {
		if !slices.Contains(ids, o.resID) || slices.ContainsFunc(opts, func(x option) bool { return x.t == o.t }) {
			continue
		}
		opts = append(opts, option{t: o.t, price: o.price, off: o.off})
	}
	return opts
}

// Karpenter counts a NodePool's minValues over the instance types whose
// offerings the catalog has, the reservations other NodeClaims of the
// plan hold included (its NodeClaim reserves every compatible reservation
// and launches where one is still free). A claim whose free offerings
// fall short of a minValues then launches all the same, on its cheapest
// free reservation, where it would otherwise be dropped with its pods or
// launched off its reservations at the on-demand price (r34 seed 64097:
// a 14Gi pod on the r4 reservation, the r2 one held by another claim).
// launchHeld returns such a launch: its options the types with a
// reservation, free or held, that meet the minValues together, the ones
// that can launch now first (cheapest first) and then the others; its
// requirements name every one of their reservations. ok is false when the
// cheapest free offering is not a reservation, or the types fall short
// even so, and always outside the plan made with held reservations counted
// (config.launchHeld, heldlaunch.go).
func (s *solver) launchHeld(cl *claim, info *reqInfo, l launch) (launch, bool) {
	if !s.cfg.launchHeld || !s.hasReservations || len(l.opts) == 0 {
		return l, false
	}
	best := l.opts[0]
	if best.off < 0 {
		_, best.off, _ = s.idx.Cheapest(best.t, info.offer, l.left)
	}
	if best.off < 0 {
		return l, false
	}
	if _, _, _, resID := s.idx.Offering(best.t, best.off); resID == "" {
		return l, false
	}
	full := func(id string) int { return s.resCap[id] }
	var now, held []option
	var offers []reservedOffer
	for _, o := range s.claimOptions(cl, info, full) {
		offs := s.idx.ReservedOfferings(o.t, info.offer, full)
		if len(offs) == 0 {
			continue
		}
		for _, i := range offs {
			_, _, price, id := s.idx.Offering(o.t, i)
			offers = append(offers, reservedOffer{t: o.t, off: i, price: price, resID: id})
		}
		if free := s.idx.ReservedOfferings(o.t, info.offer, l.left); len(free) > 0 {
			_, _, price, _ := s.idx.Offering(o.t, free[0])
			now = append(now, option{t: o.t, price: price, off: free[0]})
			continue
		}
		held = append(held, o)
	}
	s.sortOptions(now)
	s.sortOptions(held)
	opts := append(now, held...)
	set := s.optionSet(opts)
	var ids []string
	for _, o := range offers {
		if !slices.Contains(ids, o.resID) {
			ids = append(ids, o.resID)
		}
	}
	slices.Sort(ids)
	reqs := info.reqs.Add(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeReserved),
		requirements.In(instancetypes.LabelReservationID, ids...))
	if len(now) == 0 {
		return l, false
	}
	if _, ok := s.minValuesShort(cl.pool, reqs, set); !ok {
		return l, false
	}
	l.opts, l.set, l.best = opts, set, now[0]
	l.zone, l.ct, l.price, l.resID = s.idx.Offering(l.best.t, l.best.off)
	l.resIDs = ids
	l.resZones = make([]bool, len(s.idx.Zones()))
	for _, o := range offers {
		zone, _, _, _ := s.idx.Offering(o.t, o.off)
		l.resZones[s.idx.ZoneIndex(zone)] = true
	}
	return l, true
}
