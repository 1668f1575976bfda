package scheduler

import (
	"math"
	"slices"
)

// Swapping pods between two claims. The other moves fill room that exists;
// none of them trades a pod of one claim for a pod of another. When pods
// differ in shape (one heavy on memory, one heavy on cpu), greedy placement
// can leave one claim full on cpu with memory to spare and another full on
// memory with cpu to spare: neither drains nor shrinks, yet exchanging one
// cpu-heavy pod for one memory-heavy pod lets both refit to smaller types.
// Karpenter's first-fit packing often mixes the shapes by the order it
// fills NodeClaims in.
//
// swapLast runs on the plan Solve keeps, after ejectLast, under the same
// limits (at most ejectMaxPods pending pods, no capacity reservations, no
// NodePool limits that left pods unplaced): every swap kept lowers the
// summed price of the two claims it changes and leaves every other claim as
// it was, so the plan places the same pods for strictly less, and the plans
// compared before it stay as they were. A swap is two moveInto moves, each
// pod pinned to its claim's domains on every key topology counts it on
// (hostname aside), with the hostname rules checked again; either order is
// tried, and a swap that does not pay, or after which the plan's topology
// no longer holds, is rolled back.

// swapClaims bounds the claims examined as partners for one pod (those
// that may take it), swapScan the claims looked at for one pod, swapRounds
// the rounds over all claims, and swapTries the swaps tried for one pod.
const (
	swapClaims = 16
	swapScan   = 64
	swapRounds = 8
	swapTries  = 4
)

// swapGain is the least share of the two claims' price a swap must save: on
// a catalog whose prices grow linearly with size, a swap that only trades
// one size for another saves the rounding of the prices, and changes the
// plan for nothing.
const swapGain = 1e-5

// swapLast swaps pods between claims while a round lowers the price.
func (s *solver) swapLast() { s.lastRounds(swapRounds, s.swapRound) }

// lastRounds runs round on the kept plan (when lastMovesApply) at most n
// times, with one move budget, while a round keeps a move.
func (s *solver) lastRounds(n int, round func(budget *int) bool) {
	if !s.lastMovesApply() {
		return
	}
	budget := s.moveBudget()
	for i := 0; i < n && budget > 0; i++ {
		if !round(&budget) {
			return
		}
	}
}

// swapRound tries, dearest claim first, to swap one of its pods with a pod
// of another claim; it reports whether a swap was kept.
func (s *solver) swapRound(budget *int) bool {
	order := s.byPrice()
	kept := false
	for i := len(order) - 1; i >= 0; i-- {
		if *budget <= 0 {
			return kept
		}
		if x := order[i]; x.live() && len(x.pods) >= 2 && s.swapFrom(x, order, budget) {
			kept = true
		}
	}
	return kept
}

// swapFrom tries each pod shape of x against each pod shape of up to
// swapClaims other claims, and keeps the first swap that pays. The partner
// runs shortest of another resource than x (the resource x's type runs
// shortest of is the one a swap must relieve), and the pod entering x asks
// less of that resource than the pod leaving it; at most swapTries swaps
// are tried per pod shape of x.
func (s *solver) swapFrom(x *claim, order []*claim, budget *int) bool {
	dx := tightest(x)
	for _, a := range swappable(x) {
		examined, scanned, tries := 0, 0, 0
		for _, y := range order {
			if examined >= swapClaims || scanned >= swapScan || tries >= swapTries || *budget <= 0 {
				break
			}
			if y == x || !y.live() || len(y.pods) < 2 {
				continue
			}
			dy := tightest(y)
			if dy == dx {
				continue
			}
			scanned++
			if !s.mayTake(a, y) {
				continue
			}
			examined++
			for _, b := range swappable(y) {
				ra, rb := &a.cls.requests, &b.cls.requests
				if tries >= swapTries || rb[dx] >= ra[dx] || !s.mayTake(b, x) {
					continue
				}
				tries++
				if s.trySwap(a, b, budget) {
					return true
				}
			}
		}
	}
	return false
}

// tightest is the resource cl's type runs shortest of: the one whose
// allocatable its pods use the largest share of.
func tightest(cl *claim) int {
	usable := cl.pool.usable[cl.typ]
	best, share := 0, -1.0
	for d := range cl.used {
		if usable[d] <= 0 {
			continue
		}
		if f := float64(cl.used[d]) / float64(usable[d]); f > share {
			best, share = d, f
		}
	}
	return best
}

// swappable lists one pod of each class of cl that may move (the first in
// cl's order): pods of one class are interchangeable.
func swappable(cl *claim) []*pending {
	var out []*pending
	for _, pp := range cl.pods {
		if pp.cls.isolated || !pp.cls.topo.Movable() {
			continue
		}
		if !slices.ContainsFunc(out, func(o *pending) bool { return o.cls == pp.cls }) {
			out = append(out, pp)
		}
	}
	return out
}

// trySwap moves a into b's claim and b into a's, in either order, and keeps
// the result when the two claims then cost less than before and the plan's
// topology holds; otherwise every move is undone.
func (s *solver) trySwap(a, b *pending, budget *int) bool {
	x, y := a.claim, b.claim
	before := x.price + y.price
	for _, first := range [2]bool{true, false} {
		outer := s.beginJournal()
		var log []ejected
		p, q, dp, dq := a, b, y, x
		if !first {
			p, q, dp, dq = b, a, x, y
		}
		ok := s.moveInto(p, dp, math.Inf(1), budget)
		if ok {
			log = append(log, ejected{p, dq})
			ok = s.moveInto(q, dq, math.Inf(1), budget)
			if ok {
				log = append(log, ejected{q, dp})
			}
		}
		if ok && x.live() && y.live() && x.price+y.price < before*(1-swapGain) && s.planHolds() {
			s.keepJournal(outer)
			return true
		}
		s.undoSwap(log, outer)
	}
	return false
}

// undoSwap undoes the moves of log, last first, each claim given back the
// state it had (its requirements above all) before its pod returns: a pod
// that joined it may have narrowed them, and widening keeps some of those
// values once it leaves. Then every claim noted goes back as rollback does.
func (s *solver) undoSwap(log []ejected, outer int) {
	for i := len(log) - 1; i >= 0; i-- {
		e := log[i]
		if st, ok := s.journaled(e.from); ok && e.from.live() {
			s.restore(e.from, st)
		}
		s.moveBack(e.pp, e.from)
	}
	s.rollback(nil, outer)
}

// journaled is cl's state as the open journal noted it.
func (s *solver) journaled(cl *claim) (claimState, bool) {
	for _, e := range s.journal[s.journalFrom:] {
		if e.cl == cl {
			return e.st, true
		}
	}
	return claimState{}, false
}
