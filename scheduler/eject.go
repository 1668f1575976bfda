package scheduler

import (
	"cmp"
	"slices"

	"github.com/nodeplan/nodeplan/topology"
)

// Draining with an ejection. A drain empties a claim when each of its pods
// finds room that other claims have already paid for; a pod that finds
// none keeps the claim. Often the room is there but taken by a smaller pod
// that could itself go elsewhere: a node holds a large-memory pod alone,
// each other node holds a cpu-heavy pod with a small one, and the small
// ones fit as a third pod beside the others. ejectDrain then moves such a
// smaller pod q out of a claim y (to room elsewhere, never into the claim
// being drained), and the pod into y, on y's type or one no dearer than y
// was. Karpenter's first-fit packing often reaches such plans by the order
// it fills NodeClaims in; the moves of one round cannot.
//
// Each ejection costs a room search per candidate q, so the step runs only
// on plans of at most ejectMaxPods pending pods, and examines at most
// ejectClaims claims per pod (those with a pod whose place it would fit).
// It leaves alone plans with capacity reservations (a claim's price there
// depends on the order claims launch in) and plans whose NodePool limits
// left pods unplaced (a claim may move to a type no dearer that spends
// more of the limits).

// ejectLast drains claims by ejection on the plan Solve keeps, after the
// last phase (plandomains.go): only there, so that every plan compared,
// and which of them is kept, stay as they were, and the step only ever
// lowers the kept plan's price. The rounds of the improvement phase are
// no place for it: a drain strictly cheaper there can steer the rounds and
// the phases after them into a dearer plan.
func (s *solver) ejectLast() {
	if !s.lastMovesApply() {
		return
	}
	budget := s.moveBudget()
	s.ejectRound(&budget)
}

// lastMovesApply reports whether the kept plan gets the last moves
// (ejection, swaps): it was improved and not finalised yet (a claim was
// dropped), its pods are few enough, it has no reservations (a claim's
// price depends on the order claims launch in), and no pod is left where a
// NodePool limit binds (the moves spend it differently).
func (s *solver) lastMovesApply() bool {
	if s.final != nil || !s.slackBuilt || len(s.pending) > ejectMaxPods || s.hasReservations {
		return false
	}
	return s.placed() == len(s.pending) || !s.limitsLeftPods()
}

// planHolds reports whether every placed pod's required topology holds on
// the plan's nodes as they would launch now (closeDomains): a drain leaves
// one node fewer, and a spread may then see fewer domains than its
// minDomains asks.
func (s *solver) planHolds() bool {
	if !s.topo.HasSpread() {
		return true
	}
	_, reopen, ok := s.closeDomains()
	if ok {
		reopen()
	}
	return ok
}

// ejectMaxPods bounds the pending pods of a plan that gets the step,
// ejectClaimPods the pods of a claim it drains (one with more rarely
// empties), and ejectClaims the claims examined for one pod.
const (
	ejectMaxPods   = 2000
	ejectClaimPods = 4
	ejectClaims    = 16
)

// ejectRound drains, cheapest first, every claim of at most
// ejectClaimPods pods that may all move, ejecting where a pod finds no
// room as things stand.
func (s *solver) ejectRound(budget *int) {
	order := s.byPrice()
	for _, cl := range order {
		if *budget <= 0 {
			return
		}
		if !cl.dropped && len(cl.pods) > 0 && len(cl.pods) <= ejectClaimPods && allMovable(cl) {
			s.ejectDrain(cl, order, budget)
		}
	}
}

// ejected is one move of a drain: pp left claim from.
type ejected struct {
	pp   *pending
	from *claim
}

// ejectDrain moves every pod of cl elsewhere, largest first: to room as it
// stands, else by an ejection from a claim of order (ejectFor). If a pod
// can go nowhere, or the plan's topology no longer holds once cl is empty,
// every move goes back, last first, and every claim it changed to the
// state it had.
func (s *solver) ejectDrain(cl *claim, order []*claim, budget *int) {
	for _, pp := range cl.pods {
		if pp.cls.isolated {
			return
		}
	}
	outer := s.beginJournal()
	var log []ejected
	for _, pp := range bySizeDesc(cl.pods) {
		if s.moveOut(pp, false, budget) != nil {
			log = append(log, ejected{pp, cl})
			continue
		}
		var ok bool
		if log, ok = s.ejectFor(pp, cl, order, log, budget); !ok {
			s.rollback(log, outer)
			return
		}
	}
	if !s.planHolds() {
		s.rollback(log, outer)
		return
	}
	s.keepJournal(outer)
}

// ejectFor moves pp (on cl, being drained) into a claim y of order once a
// pod q of y has moved to room elsewhere (not cl), when y then holds pp at
// no more than y's price before; it returns log with both moves.
func (s *solver) ejectFor(pp *pending, cl *claim, order []*claim, log []ejected, budget *int) ([]ejected, bool) {
	need := pp.cls.requests
	examined := 0
	for _, y := range order {
		if examined >= ejectClaims || *budget <= 0 {
			return log, false
		}
		// A claim of one pod is dropped once that pod leaves: none to join.
		if y == cl || y.dropped || len(y.pods) < 2 || !s.mayTake(pp, y) {
			continue
		}
		usable := y.pool.usable[y.typ]
		fits := func(q *pending) bool {
			return !q.cls.isolated && q.cls.topo.Movable() && y.used.Sub(q.cls.requests).Add(need).Fits(usable)
		}
		if !slices.ContainsFunc(y.pods, fits) || !s.mayEnter(pp, y) {
			continue
		}
		examined++
		for _, q := range bySizeDesc(y.pods) {
			if !fits(q) {
				continue
			}
			price := y.price
			outer := s.beginJournal()
			s.moveAvoid = cl
			to := s.moveOut(q, false, budget)
			s.moveAvoid = nil
			if to != nil && s.moveInto(pp, y, price, budget) {
				s.keepJournal(outer)
				return append(log, ejected{q, y}, ejected{pp, cl}), true
			}
			var undo []ejected
			if to != nil {
				undo = []ejected{{q, y}}
			}
			s.rollback(undo, outer)
		}
	}
	return log, false
}

// mayTake is the cheap test before an ejection: pp tolerates y's pool, and
// its requirements meet y's.
func (s *solver) mayTake(pp *pending, y *claim) bool {
	if !s.poolTolerated(pp.cls, y.pool, pp.att.level) {
		return false
	}
	a, ok := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
	return ok && s.reqs.compat(y.reqID, a.reqID) >= 0
}

// mayEnter reports whether pp could join claim y but for room: y's
// requirements, topology and host ports take it (pinned to its claim's
// domains), and y's instance type is one it may run on. It moves nothing,
// so an ejection is only tried where the pod, once room is made, can go.
func (s *solver) mayEnter(pp *pending, y *claim) bool {
	c := pp.cls
	if _, clash := portsConflict(y.ports, c.ports); clash {
		return false
	}
	a, srcHost, ok := s.pinnedAttempt(pp)
	if !ok {
		return false
	}
	s.topo.Unrecord(c.topo, a.active, &srcHost)
	defer s.topo.Record(c.topo, a.active, &srcHost)
	be, ok := s.checkBucket(a, y.bucket, nil)
	if !ok || !s.reqs.info(be.id).typeSet(s).Has(y.typ) {
		return false
	}
	if !c.topo.Relevant() {
		return true
	}
	host := topology.Host{Hostname: y.host, HostnameDomain: &y.hostDom, Requirements: s.reqs.info(be.id).reqs, Taints: y.pool.tmpl.Taints}
	_, v := s.topo.CheckScope(c.topo, a.active, &host, nil, topology.HostnameOnly)
	return v == nil
}

// moveInto moves pp from its claim to claim dst, pinned to its claim's
// domains on every key topology counts it on (hostname aside), when dst
// then costs at most maxPrice; it reports whether it did.
func (s *solver) moveInto(pp *pending, dst *claim, maxPrice float64, budget *int) bool {
	if dst.dropped {
		return false
	}
	c := pp.cls
	a, srcHost, ok := s.pinnedAttempt(pp)
	if !ok {
		return false
	}
	s.topo.Unrecord(c.topo, a.active, &srcHost)
	*budget--
	ev, ok := s.evalClaim(a, dst)
	if !ok || ev.price > maxPrice+priceEps {
		s.topo.Record(c.topo, a.active, &srcHost)
		return false
	}
	s.detach(pp)
	s.commit(pp, a, ev)
	return true
}

// journalEntry is a claim's state before a move of the journal first
// changed it.
type journalEntry struct {
	cl *claim
	st claimState
}

// beginJournal starts a journal (solver.journal): the state of every claim
// a move changes, as it was before the first such move. Journals nest: the
// one begun last is the open one, and its entries follow the outer ones'.
// It returns where the outer journal begins (-1 when there is none).
func (s *solver) beginJournal() int {
	outer := -1
	if s.journaling {
		outer = s.journalFrom
	}
	s.journaling, s.journalFrom = true, len(s.journal)
	return outer
}

// note records cl's state in the open journal, unless it is there already.
func (s *solver) note(cl *claim) {
	if !s.journaling || cl == nil {
		return
	}
	if !noted(s.journal[s.journalFrom:], cl) {
		s.journal = append(s.journal, journalEntry{cl, s.snapshot(cl)})
	}
}

func noted(entries []journalEntry, cl *claim) bool {
	return slices.ContainsFunc(entries, func(e journalEntry) bool { return e.cl == cl })
}

// keepJournal ends the open journal, whose moves stay: the outer one
// learns the states it had not noted yet.
func (s *solver) keepJournal(outer int) {
	s.endJournal(outer, func(e journalEntry) bool { return outer >= 0 && !noted(s.journal[outer:s.journalFrom], e.cl) })
}

// rollback undoes the moves of log, last first, then returns every claim
// the open journal noted to the state it had (each holds the pods it held
// then), and ends the journal.
func (s *solver) rollback(log []ejected, outer int) {
	for i := len(log) - 1; i >= 0; i-- {
		s.moveBack(log[i].pp, log[i].from)
	}
	seg := slices.Clone(s.journal[s.journalFrom:])
	slices.SortFunc(seg, func(a, b journalEntry) int { return cmp.Compare(a.cl.id, b.cl.id) })
	for _, e := range seg {
		if e.cl.live() {
			s.restore(e.cl, e.st)
		}
	}
	s.endJournal(outer, func(journalEntry) bool { return false })
}

// endJournal drops the open journal's entries but those keep keeps, which
// join the outer journal, and reopens the outer one.
func (s *solver) endJournal(outer int, keep func(journalEntry) bool) {
	kept := s.journal[:s.journalFrom]
	for _, e := range s.journal[s.journalFrom:] {
		if keep(e) {
			kept = append(kept, e)
		}
	}
	s.journal = kept
	if outer < 0 {
		s.journal, s.journaling, s.journalFrom = s.journal[:0], false, 0
		return
	}
	s.journalFrom = outer
}

// pinnedAttempt is pp's attempt at its level pinned to its claim's domains
// on every key topology counts it on, with its claim's topology view (which
// a move unrecords pp from first).
func (s *solver) pinnedAttempt(pp *pending) (attempt, topology.Host, bool) {
	a, ok := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
	if !ok {
		return a, topology.Host{}, false
	}
	if a.reqID, ok = s.pinToDomains(a.reqID, pp.cls, pp.claim.reqID); !ok {
		return a, topology.Host{}, false
	}
	return a, s.claimHost(pp.claim), true
}
