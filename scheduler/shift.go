package scheduler

import "math"

// Shifting one pod to a claim that grows. Every other move keeps the
// receiving claim's price (drain, shrink, ejection) or trades two pods
// (swap); none moves a pod into a claim that must take a larger type for
// it. Yet when a claim needed a dear type for the last pod that joined it
// (the types between its size and the next were all taken by a cheaper
// measure, or a catalog jumps in price), moving that pod to a small claim
// that grows one size down the price list can save most of the dear
// claim's price: a node holding a hostPort pod alone on the smallest type
// beside a node whose followers pushed it to a type ten times dearer.
// Karpenter's first-fit packing often spreads such pods over the nodes by
// the order it fills them in.
//
// shiftLast runs on the plan Solve keeps, after swapLast, under the same
// limits (lastMovesApply): a shift is one moveInto, pinned to the pod's
// claim's domains on every key topology counts it on (hostname aside),
// with the hostname rules checked again, into a claim that may take a
// larger type; it is kept when the two claims then cost less than before
// (the giving claim refits to the cheapest type that holds what is left)
// and the plan's topology holds, and rolled back otherwise. Every other
// claim stays as it was, so the plan places the same pods for strictly
// less.

// shiftClaims bounds the claims examined as receivers for one pod (those
// that may take it), shiftScan the claims looked at for one pod, and
// shiftRounds the rounds over all claims.
const (
	shiftClaims = 16
	shiftScan   = 64
	shiftRounds = 8
)

// shiftLast shifts pods between claims while a round lowers the price.
func (s *solver) shiftLast() { s.lastRounds(shiftRounds, s.shiftRound) }

// shiftRound tries, dearest claim first, to shift one of its pods to
// another claim; it reports whether a shift was kept.
func (s *solver) shiftRound(budget *int) bool {
	order := s.byPrice()
	kept := false
	for i := len(order) - 1; i >= 0; i-- {
		if *budget <= 0 {
			return kept
		}
		x := order[i]
		if x.live() && len(x.pods) >= 2 && !s.atSmallest(x) && s.shiftFrom(x, order, budget) {
			kept = true
		}
	}
	return kept
}

// shiftFrom tries each pod shape of x (one pod per class that may move)
// on up to shiftClaims other claims, cheapest first, and keeps the first
// shift that pays.
func (s *solver) shiftFrom(x *claim, order []*claim, budget *int) bool {
	for _, a := range swappable(x) {
		examined, scanned := 0, 0
		for _, y := range order {
			if examined >= shiftClaims || scanned >= shiftScan || *budget <= 0 {
				break
			}
			if y == x || !y.live() {
				continue
			}
			scanned++
			if !s.mayTake(a, y) {
				continue
			}
			examined++
			if s.tryShift(a, y, budget) {
				return true
			}
		}
	}
	return false
}

// tryShift moves a into claim y, which may take a larger type, and keeps
// the move when a's claim and y then cost less than before and the plan's
// topology holds; otherwise the move is undone.
func (s *solver) tryShift(a *pending, y *claim, budget *int) bool {
	x := a.claim
	before := x.price + y.price
	outer := s.beginJournal()
	if !s.moveInto(a, y, math.Inf(1), budget) {
		s.rollback(nil, outer)
		return false
	}
	if x.live() && y.live() && x.price+y.price < before*(1-swapGain) && s.planHolds() {
		s.keepJournal(outer)
		return true
	}
	s.undoSwap([]ejected{{a, x}}, outer)
	return false
}
