package scheduler

import (
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Reservations a planned claim holds, as a join into it reads them. A
// claim holds the capacity reservation of its cheapest offering while it is
// planned (updateHold), and the places so held are what new claims cannot
// have (leftFor(nil)). A pod that joins a planned claim is checked first
// against what every claim of the claim's bucket shares (evalBucket): the
// domains the claim could still launch in and their prices, which topology
// reads to pin the claim to a zone. Read with leftFor(nil), a reservation
// the bucket's claims fill up is used up for them too: a zone that only
// their own reservation offers is no domain, and the pod that needs the
// claim pinned there (a zone spread, a zonal affinity) is refused a claim
// whose reservation would take it at no extra price. In a pod's last try
// (placeAhead, where it would otherwise stay unplaced), when the bucket's
// check refuses the pod so, it checks again with one place of each full
// reservation one of its live claims holds counted free (the pod joins one
// claim, which gives back at most its own place); evalInBucket then prices
// each claim with its own place only (cheapestFit, leftFor(cl)). A check
// that finds a domain anyway keeps it, and pods placed before their last
// try keep their greedy paths: taking such joins on every try moved them
// (run17 775 lost nine pods to a capacity-type spread, run17 151 and 1743,
// run23 7222 and 7756 cost more).

// heldRes names the full reservations the live claims of a bucket hold,
// sorted and joined by NUL ("" for none): the part of a memo's key that
// says which places a check counts as free.
type heldRes string

// heldBy returns the full reservations the live claims of b hold ("" when
// the input has no reservation or none is full).
func (s *solver) heldBy(b *bucket) heldRes {
	if !s.hasReservations || !s.anyReservationFull() {
		return ""
	}
	var ids []string
	for _, cl := range b.claims {
		if cl.bucket != b || cl.dropped || cl.resID == "" || s.resHeld[cl.resID] < s.resCap[cl.resID] {
			continue
		}
		if !slices.Contains(ids, cl.resID) {
			ids = append(ids, cl.resID)
		}
	}
	slices.Sort(ids)
	return heldRes(strings.Join(ids, "\x00"))
}

// anyReservationFull reports whether planned claims hold every place of
// some reservation.
func (s *solver) anyReservationFull() bool {
	for id, n := range s.resHeld {
		if n >= s.resCap[id] {
			return true
		}
	}
	return false
}

// has reports whether h names reservation id.
func (h heldRes) has(id string) bool {
	for rest := string(h); rest != ""; {
		var cur string
		cur, rest, _ = strings.Cut(rest, "\x00")
		if cur == id {
			return true
		}
	}
	return false
}

// leftHolding is leftFor(nil) with one place of each reservation of held
// counted free.
func (s *solver) leftHolding(held heldRes) binpack.ReservationsLeft {
	if held == "" {
		return s.leftFor(nil)
	}
	return func(id string) int {
		n := s.resCap[id] - s.resHeld[id]
		if held.has(id) {
			n++
		}
		return n
	}
}

// heldDomains lists the domains of a requirement set as a claim holding
// the reservations of held can launch in (topology.DomainLister).
type heldDomains struct {
	info *reqInfo
	held heldRes
}

// DomainValues is reqInfo.DomainValues with held's places free.
func (h heldDomains) DomainValues(key string) []string {
	ri := h.info
	if ri.pool == nil {
		return nil
	}
	return ri.table.s.domainValuesHolding(ri.pool, ri.reqs, key, h.held)
}

// domainsHolding is the domain lister of info for a check that counts
// held's places free: info itself when held is empty.
func domainsHolding(info *reqInfo, held heldRes) topology.DomainLister {
	if held == "" {
		return info
	}
	return heldDomains{info: info, held: held}
}

// checkHolding is evalBucket's topology check of attempt a in bucket b
// (requirements id, host) again, with the full reservations the bucket's
// claims hold counted free, after the check refused it with v (pins and v
// stay as they were when no claim of b holds one).
func (s *solver) checkHolding(a attempt, b *bucket, id int32, host topology.Host, pins []requirements.Requirement, v *topology.Violation) ([]requirements.Requirement, *topology.Violation) {
	held := s.heldBy(b)
	if held == "" {
		return pins, v
	}
	host.Domains = domainsHolding(s.reqs.info(id), held)
	return s.topo.CheckScope(a.c.topo, a.active, &host, s.rankerFor(id, a.c, held), topology.ExceptHostname)
}
