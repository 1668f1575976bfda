package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/topology"
)

// The improvement phase runs after greedy placement and lowers the plan's
// price without breaking any constraint:
//
//   - drain: a claim whose every pod fits, at no extra price, into room
//     other claims have already paid for is emptied and dropped;
//   - shrink: pods move out of a claim into such room elsewhere, largest
//     first, and the claim is refitted to the cheapest instance type that
//     still holds what is left.
//
// A move takes a pod to a claim of its NodePool or of another it tolerates
// (kube-scheduler sees only nodes), in the same domain of
// every topology key the pod matters to except hostname (so zone, capacity
// type and custom-key counts never change), where its requirements hold and
// the hostname rules (anti-affinity, spread) are checked again; pods that
// hostname affinity ties to their node stay. The receiving claim keeps its
// price, and the giving claim's price can only fall, so the total never rises.
// Work is bounded by a budget counted in candidate evaluations, never time,
// so the result is deterministic.

// defaultBudgetPerPod is the default improvement budget per pending pod.
const defaultBudgetPerPod = 200

func (s *solver) improve() {
	budget := s.moveBudget()
	s.improveWith(&budget)
}

// moveBudget is the moves a phase may spend: the option's, else
// defaultBudgetPerPod per pending pod.
func (s *solver) moveBudget() int {
	if s.cfg.budget != nil {
		return *s.cfg.budget
	}
	return defaultBudgetPerPod * len(s.pending)
}

func (s *solver) improveWith(b *int) {
	budget := *b
	defer func() { *b = budget }()
	if budget <= 0 {
		return
	}
	s.buildSlack()
	s.slackBuilt = true
	s.followersLeft = slices.ContainsFunc(s.pending, func(pp *pending) bool { return !placedOn(pp) && pp.cls.topo.FollowsOnHostname() })
	s.noRoom = map[noRoomKey]*moveMemo{}
	// Rounds of drain, absorb and shrink while a round lowers the price
	// (each move frees or fills room another move may use). Then merges and
	// the existing-node pass, and one more round when they saved something:
	// a merge is strictly cheaper, but the larger, narrower claims it leaves
	// give the other moves less to work with, so merging last can only
	// lower the price the rounds reached. Claims are drained under the
	// pods' other node-affinity terms after that.
	//
	// Above mergeMaxPods pending pods, one more round instead of the
	// merges and the round after them: at 100,000 aws-mixed pods those
	// took a quarter of the solve to save 0.6% where a fourth round saves
	// 0.4%.
	if len(s.pending) > mergeMaxPods {
		s.improveRounds(&budget, improveRounds+1)
		s.toExisting(&budget)
		s.drainOtherTerms(&budget)
		return
	}
	s.improveRounds(&budget, improveRounds)
	before := s.totalPrice()
	s.mergeRound(s.byPods(), &budget)
	s.toExisting(&budget)
	s.drainOtherTerms(&budget)
	if s.totalPrice() < before-priceEps {
		s.improveRound(&budget)
	}
}

// improveRounds runs up to n rounds, while a round lowers the price.
func (s *solver) improveRounds(budget *int, n int) {
	for round := 0; round < n && *budget > 0 && !s.stopped(); round++ {
		before := s.totalPrice()
		s.improveRound(budget)
		if s.totalPrice() >= before-priceEps {
			break
		}
	}
}

// improveRounds bounds the rounds of the improvement phase before the
// merges, and mergeMaxPods the pending pods of a plan that merges.
const (
	improveRounds = 3
	mergeMaxPods  = 50000
)

func (s *solver) totalPrice() float64 {
	total := 0.0
	for _, cl := range s.claims { // liveClaims' order, with no list made
		if cl.live() {
			total += cl.price
		}
	}
	return total
}

// improveRound runs one round: drain small claims (emptying one saves its
// whole price), let claims absorb smaller ones of their bucket at no extra
// price (fewer nodes, larger rooms for later moves), shrink big claims into
// the room left elsewhere, then replant the pods left alone on a claim
// dearer than they need.
func (s *solver) improveRound(budget *int) {
	each := func(order []*claim, do func(*claim, *int)) {
		for _, cl := range order {
			if *budget <= 0 {
				return
			}
			if !cl.dropped {
				do(cl, budget)
			}
		}
	}
	each(s.byPrice(), s.drain)
	each(s.byPods(), s.absorb)
	each(s.byPods(), s.shrink)
	each(s.byPrice(), s.replant)
}

// byPrice lists the live claims cheapest first (then by id).
func (s *solver) byPrice() []*claim {
	order := s.liveClaims()
	slices.SortStableFunc(order, func(a, b *claim) int {
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return order
}

// byPods lists the live claims with the most pods first (then by id).
func (s *solver) byPods() []*claim {
	order := s.liveClaims()
	slices.SortStableFunc(order, func(a, b *claim) int {
		if c := cmp.Compare(len(b.pods), len(a.pods)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return order
}

func (s *solver) liveClaims() []*claim {
	n := 0
	for _, cl := range s.claims {
		if cl.live() {
			n++
		}
	}
	out := make([]*claim, 0, n)
	for _, cl := range s.claims {
		if !cl.dropped && len(cl.pods) > 0 {
			out = append(out, cl)
		}
	}
	return out
}

// drain tries to move every pod of cl elsewhere; if one cannot move, the
// pods already moved go back and cl is left as it was. A claim holding an
// isolated pod (one per node among its group) is left alone: such a pod
// rarely finds a node without its peers.
func (s *solver) drain(cl *claim, budget *int) {
	s.drainWith(cl, false, budget)
}

// drainOtherTerms drains, last, the claims holding a pod with more than
// one required node-affinity term, letting each pod move under any of its
// terms: done earlier, such moves steer the rounds into other (not always
// cheaper) plans.
func (s *solver) drainOtherTerms(budget *int) {
	for _, cl := range s.byPrice() {
		if *budget <= 0 {
			return
		}
		if !cl.dropped && slices.ContainsFunc(cl.pods, func(pp *pending) bool { return len(pp.cls.alts) > 1 }) {
			s.drainWith(cl, true, budget)
		}
	}
}

// drainWith empties cl, or leaves it as it was: when a pod cannot move,
// the pods already moved go back. A pod that moved out under another
// required node-affinity term comes back under the term cl's requirements
// then imply, else the one it moved under; cl widened as its pods left, so
// that may be a term whose types cost more than cl did (a small claim
// turned large by the drain that failed to empty it). Then the pods that
// changed term go back under the one they were placed under in cl.
func (s *solver) drainWith(cl *claim, otherTerms bool, budget *int) {
	for _, pp := range cl.pods {
		if pp.cls.isolated {
			return
		}
	}
	pods := bySizeDesc(cl.pods)
	type move struct {
		pp    *pending
		under placedAttempt
	}
	var moves []move
	price := cl.price
	for _, pp := range pods {
		under := pp.att
		if s.moveOut(pp, otherTerms, budget) == nil {
			for i := len(moves) - 1; i >= 0; i-- {
				s.moveBack(moves[i].pp, cl)
			}
			for _, m := range moves {
				if cl.price > price+priceEps && m.pp.claim == cl && m.pp.att.alt != m.under.alt {
					s.moveBackUnder(m.pp, cl, m.under)
				}
			}
			return
		}
		moves = append(moves, move{pp, under})
	}
}

// shrink moves pods out of cl, largest first, while each finds room. A
// claim already on the cheapest type that could hold any one of its pods
// gains nothing unless it empties, which drain tried.
func (s *solver) shrink(cl *claim, budget *int) {
	if s.atSmallest(cl) {
		return
	}
	for _, pp := range bySizeDesc(cl.pods) {
		if *budget <= 0 {
			return
		}
		s.moveOut(pp, false, budget)
	}
}

// atSmallest reports whether, for every pod of cl, no type of cl's
// NodePool that holds that pod alone costs less than cl's: then whatever
// pod stays keeps the price. (The pod smallest by one measure is not
// enough: a pod light on cpu may need the most memory.)
func (s *solver) atSmallest(cl *claim) bool {
	if s.hasReservations || len(cl.pods) == 0 {
		return false
	}
	var seen []*class
	for _, pp := range cl.pods {
		if slices.Contains(seen, pp.cls) {
			continue
		}
		seen = append(seen, pp.cls)
		charged := cl.charged
		_, _, price, ok := s.cheapestFit(nil, cl.pool, cl.pool.reqID, pp.cls.requests, &charged, 0, math.Inf(1), cl)
		if !ok || price < cl.price-priceEps {
			return false
		}
	}
	return true
}

func bySizeDesc(pods []*pending) []*pending {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, largerFirst)
	return out
}

// smallerFirst orders pods by cpu request, then memory, ascending, then by
// name.
func smallerFirst(a, b *pending) int {
	ra, rb := &a.cls.requests, &b.cls.requests
	if c := cmp.Compare(ra[0], rb[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(ra[1], rb[1]); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// largerFirst orders pods by cpu request, then memory, descending, then by
// name.
func largerFirst(a, b *pending) int {
	ra, rb := &a.cls.requests, &b.cls.requests
	if c := cmp.Compare(rb[0], ra[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(rb[1], ra[1]); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// moveCandidates bounds how many receiving claims are compared for one pod,
// and moveExamined how many are examined in all.
const (
	moveCandidates  = 6
	moveExamined    = 48
	moveVisited     = 256
	moveVisitedEdge = 64
)

// moveOut moves pp from its claim to the claim (of src's pool first, then of
// any other pool it tolerates) that holds it at no extra price and is left
// fullest; with otherTerms (a drain, which empties the claim), also under the
// pod's other required node-affinity terms, and returns that claim (nil when
// none can).
func (s *solver) moveOut(pp *pending, otherTerms bool, budget *int) *claim {
	src := pp.claim
	c := pp.cls
	if src == nil || !s.leavable(pp) {
		return nil
	}
	a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
	if !ok {
		return nil
	}
	// Stay in the source's domain of every key the pod matters to, hostname aside.
	srcReqs := s.reqs.info(src.reqID).reqs
	if a.reqID, ok = s.pinToDomains(a.reqID, c, src.reqID); !ok {
		return nil
	}
	// Leave the source for the duration of the search.
	srcHost := topology.Host{Hostname: src.host, HostnameDomain: &src.hostDom, Requirements: srcReqs, Taints: src.pool.tmpl.Taints, Decided: &s.reqs.info(src.reqID).decided}
	s.topo.Unrecord(c.topo, a.active, &srcHost)
	best, found := s.roomFor(a, src, budget)
	crossed := false
	if !found && s.mayChangeDomain(c) && len(s.pending) <= crossMaxPods {
		// Another domain, when every spread the pod counts in still holds
		// for the pods that carry it once the pod has moved.
		free, _ := s.newAttempt(c, pp.att.alt, pp.att.level, false)
		if best, found = s.roomFor(free, src, budget); found {
			a, crossed = free, true
		}
	}
	if !found && otherTerms {
		a, best, found = s.roomUnderOtherTerm(pp, src, budget)
	}
	if !found {
		s.topo.Record(c.topo, a.active, &srcHost)
		return nil
	}
	dst := best.claim
	before := s.snapshot(dst)
	s.detach(pp)
	s.commit(pp, a, best)
	if crossed && !s.topo.SpreadHolds(c.topo) {
		s.moveBack(pp, src)
		s.restore(dst, before)
		return nil
	}
	return dst
}

// leavable reports whether pp may leave its claim for another node:
// topology.Pod.Movable, or a pod that pods follow on hostname when none of
// them is on its claim (g0 planned apart from the node its followers share
// with its peer: r33 seed 63230) and none is left unplaced (a node of its
// own may be where one goes when the plan is tried again: seed 51381). A
// pod that follows others on hostname stays.
func (s *solver) leavable(pp *pending) bool {
	t := pp.cls.topo
	if t.Movable() {
		return true
	}
	if t.FollowsOnHostname() || pp.claim == nil || s.followersLeft {
		return false
	}
	return !slices.ContainsFunc(pp.claim.pods, func(q *pending) bool { return q != pp && q.cls.topo.FollowsOnHostname() })
}

// crossMaxPods bounds the pending pods of a plan whose moves also search
// other domains: above it (with the merges, see improveWith) they do not.
// At 100,000 aws-mixed pods that search evaluated two million claims a
// round, nearly all refused by the hostname rules, for a few hundred moves
// (and without it the plan costs 0.4% less there; 0.1% less and 0.2% more
// on two other seeds).
const crossMaxPods = mergeMaxPods

// roomUnderOtherTerm looks for room for pp under each other required
// node-affinity term of its class, at the same relaxation level (the terms
// are ORed: any one holds the pod), pinned to the source's domains.
func (s *solver) roomUnderOtherTerm(pp *pending, src *claim, budget *int) (attempt, evaluation, bool) {
	c := pp.cls
	for alt := range c.alts {
		if alt == pp.att.alt || *budget <= 0 {
			continue
		}
		a, ok := s.newAttempt(c, alt, pp.att.level, false)
		if !ok {
			continue
		}
		if a.reqID, ok = s.pinToDomains(a.reqID, c, src.reqID); !ok {
			continue
		}
		if best, found := s.roomFor(a, src, budget); found {
			return a, best, true
		}
	}
	a, _ := s.newAttempt(c, pp.att.alt, pp.att.level, false)
	return a, evaluation{}, false
}

// roomFor finds the claim, other than src, that takes the attempt's pod at
// no extra price and is left the fullest, in src's pool first, then in every
// other NodePool whose taints the pod tolerates at this level, in weight
// order. A planned claim of any pool is a node like another to
// kube-scheduler, and the pod's requirements, pinned to its domains, are
// checked against each bucket's.
func (s *solver) roomFor(a attempt, src *claim, budget *int) (evaluation, bool) {
	r := roomSearch{s: s, a: a, src: src, avoid: s.moveAvoid, budget: budget}
	if r.avoid == nil {
		// A search that left another claim out proves nothing for later ones.
		r.memo = s.moveMemo(a)
	}
	if !r.searchPool(src.pool) || len(s.pools) == 1 {
		return r.best, r.found
	}
	for _, p := range s.pools {
		if p != src.pool && s.poolTolerated(a.c, p, a.level) && !r.searchPool(p) {
			break
		}
	}
	return r.best, r.found
}

// searchPool searches the buckets of pool p, and reports whether the
// search goes on to the next pool. A bucket whose noRoom holds and left
// out no claim but, perhaps, this search's own is passed over here:
// search would visit nothing there and write the same noRoom back (ten
// million times a solve at 100,000 pods).
func (r *roomSearch) searchPool(p *pool) bool {
	var m *moveMemo
	if r.s.remembers(p) {
		m = r.memo
	}
	for _, b := range p.buckets {
		if r.examined >= moveExamined || *r.budget <= 0 {
			return false
		}
		if b.slack == nil {
			continue
		}
		if m != nil {
			if last := &m.noRoom[b.idx]; last.set && (last.src == nil || last.src == r.src) && r.s.noRoomHolds(*last, b) {
				continue
			}
		}
		r.search(b)
		if r.seen >= moveCandidates {
			return false
		}
	}
	return true
}

// roomSearch is the state of one roomFor: the best claim found so far, how
// many claims took the pod (seen) and were evaluated (examined), and the
// search of the current bucket.
type roomSearch struct {
	s      *solver
	a      attempt
	src    *claim
	avoid  *claim // a claim left out too (solver.moveAvoid)
	budget *int
	memo   *moveMemo // the attempt's (moveMemo); bm is it for the current bucket, or nil
	bm     *moveMemo

	best, ev              evaluation // ev: the last claim's
	found                 bool
	seen, examined        int
	b                     *bucket
	be                    bucketEval
	checked, refused      bool
	visited, visitedLimit int
}

// search looks for room in bucket b: tight cells first, a few visits only;
// then the cells that surely fit. A bucket searched before in vain and
// unchanged since is skipped (noRoom), and so is one whose requirements
// the pod's conflict with or whose domains refused it as they stand
// (bucketCheck): evalBucket would refuse the pod at the first claim with
// room.
func (r *roomSearch) search(b *bucket) {
	s, c := r.s, r.a.c
	r.bm = nil
	if s.remembers(b.pool) {
		r.bm = r.memo
	}
	var last noRoom
	if r.bm != nil {
		last = r.bm.noRoom[b.idx]
	}
	known := last.set && s.noRoomHolds(last, b)
	seenBefore, examinedBefore := r.seen, r.examined
	r.b, r.checked, r.refused = b, false, false // r.be is set when checked
	r.visited, r.visitedLimit = 0, moveVisitedEdge
	switch {
	case known:
		// Nothing but, perhaps, the claim that search left out (the pod's
		// claim then).
		if x := last.src; x != nil && x != r.src && x.bucket == b && !x.dropped && len(x.pods) > 0 {
			r.visit(slackEntry{cl: x, cpu: math.MaxInt64, mem: math.MaxInt64})
		}
	case s.reqs.compat(b.reqID, r.a.reqID) < 0, r.bm != nil && r.bm.refuses(s, b):
	default:
		b.slack.edgeCells(c.requests[0], c.requests[1], r.visitCell)
		if !r.refused && r.seen < moveCandidates {
			r.visited, r.visitedLimit = 0, moveVisited
			b.slack.firmCells(c.requests[0], c.requests[1], r.visitCell)
		}
	}
	if r.bm == nil {
		return
	}
	if r.seen == seenBefore && r.examined < moveExamined && *r.budget > 0 {
		left := r.src
		if known && last.src != r.src {
			left = nil // both searches together left nothing out
		}
		r.bm.noRoom[b.idx] = noRoom{set: true, gen: b.slack.gen, domains: s.topo.DomainSum(), res: s.resVersion, src: left}
	} else if known && r.examined > examinedBefore {
		r.bm.noRoom[b.idx] = noRoom{}
	}
}

// visitCell visits the claims of one cell of the bucket searched in
// order, and reports whether the search goes on: visit, with the claims
// whose room the entry shows too small skipped in the loop.
func (r *roomSearch) visitCell(cell []slackEntry) bool {
	cpu, mem := r.a.c.requests[0], r.a.c.requests[1]
	for i := range cell {
		if r.visited++; r.visited > r.visitedLimit {
			return false
		}
		if e := &cell[i]; e.cpu >= cpu && e.mem >= mem && !r.visitClaim(e.cl) {
			return false
		}
	}
	return true
}

// visit evaluates the pod on one claim of the bucket searched, and reports
// whether the search goes on.
func (r *roomSearch) visit(e slackEntry) bool {
	if r.visited++; r.visited > r.visitedLimit {
		return false
	}
	if e.cpu < r.a.c.requests[0] || e.mem < r.a.c.requests[1] {
		return true
	}
	return r.visitClaim(e.cl)
}

// visitClaim evaluates the pod on claim cl of the bucket searched, whose
// entry shows room for its cpu and memory, and reports whether the search
// goes on.
func (r *roomSearch) visitClaim(cl *claim) bool {
	s, c := r.s, r.a.c
	if cl == r.src || cl == r.avoid || !cl.used.FitsSum(&c.requests, &cl.pool.usable[cl.typ]) {
		return true
	}
	if !r.checked {
		r.checked = true
		var ok bool
		if r.be, ok = s.checkBucket(r.a, r.b, r.bm); !ok {
			r.refused = true
			return false
		}
	}
	*r.budget--
	r.examined++
	ev := &r.ev
	if ok, _ := s.evalInBucket(&r.a, cl, &r.be, 0, ev); ok && ev.delta <= priceEps {
		if !r.found || ev.waste < r.best.waste {
			r.best, r.found = *ev, true
		}
		r.seen++
	}
	return r.seen < moveCandidates && r.examined < moveExamined && *r.budget > 0
}

// moveMemo is what roomFor remembers of the searches for one attempt, by
// bucket (bucket.idx).
type moveMemo struct {
	noRoom []noRoom
	checks []bucketCheck
}

// noRoom records (set) that a search of a bucket found no room for a pod:
// while the bucket's slack index (gen), the counts of every domain but
// hostnames (domains) and the reservations (res) stay as they were, the same
// search finds nothing again, but for claim src, which it left out.
type noRoom struct {
	set          bool
	gen, domains uint64
	res          int
	src          *claim
}

// bucketCheck is evalBucket's answer for the pod in a bucket (set): what
// it checks (the requirements, and topology on every key but hostname)
// answers the same while DomainSum (domains) and the reservations (res)
// stay as they were.
type bucketCheck struct {
	set, ok, pinned bool
	id              int32 // bucketEval's (its maxUsable is the set's)
	domains         uint64
	res             int
}

// eval is the bucketEval the check stands for.
func (c *bucketCheck) eval(s *solver) bucketEval {
	return bucketEval{id: c.id, pinned: c.pinned, maxUsable: s.reqs.info(c.id).maxUsable}
}

// checkBucket is evalBucket for attempt a in bucket b, answered from the
// attempt's memo m while it holds (m nil: no memo).
func (s *solver) checkBucket(a attempt, b *bucket, m *moveMemo) (bucketEval, bool) {
	if m == nil {
		be, ok, _ := s.evalBucket(a, b)
		return be, ok
	}
	c := &m.checks[b.idx]
	if c.set && c.domains == s.topo.DomainSum() && c.res == s.resVersion {
		if !c.ok {
			return bucketEval{}, false
		}
		return c.eval(s), true
	}
	be, ok, _ := s.evalBucket(a, b)
	*c = bucketCheck{set: true, ok: ok, pinned: be.pinned, id: be.id, domains: s.topo.DomainSum(), res: s.resVersion}
	return be, ok
}

// refuses reports whether the memo knows that evalBucket refuses its
// attempt in bucket b as things stand.
func (m *moveMemo) refuses(s *solver, b *bucket) bool {
	c := &m.checks[b.idx]
	return c.set && !c.ok && c.domains == s.topo.DomainSum() && c.res == s.resVersion
}

// noRoomKey is an attempt, as roomFor's memo knows it.
type noRoomKey struct {
	c          *class
	alt, level int
	reqID      int32
}

// moveMemo returns roomFor's memo for attempt a. Only the buckets of
// pools that remember (remembers) are written in it.
func (s *solver) moveMemo(a attempt) *moveMemo {
	key := noRoomKey{c: a.c, alt: a.alt, level: a.level, reqID: a.reqID}
	m := s.noRoom[key]
	if m == nil {
		m = &moveMemo{}
		s.noRoom[key] = m
	}
	if n := len(s.buckets); len(m.noRoom) < n {
		m.noRoom = append(m.noRoom, make([]noRoom, n-len(m.noRoom))...)
		m.checks = append(m.checks, make([]bucketCheck, n-len(m.checks))...)
	}
	return m
}

// remembers reports whether what a search of pool p found may be
// remembered: not in a NodePool with limits (a claim anywhere in the pool
// changes what fits), nor when the pool must fill its limits.
func (s *solver) remembers(p *pool) bool {
	return !p.limited && !s.fills(p)
}

func (s *solver) noRoomHolds(m noRoom, b *bucket) bool {
	return m.gen == b.slack.gen && m.domains == s.topo.DomainSum() && m.res == s.resVersion
}

// moveBack returns pp to claim dst (undoing a move from dst to another
// claim or to an existing node), refitting dst.
func (s *solver) moveBack(pp *pending, dst *claim) { s.moveBackUnder(pp, dst, pp.att) }

// moveBackUnder is moveBack with the pod held under its required term and
// relaxation level of under first (backUnder), where it is now held under
// another.
func (s *solver) moveBackUnder(pp *pending, dst *claim, under placedAttempt) {
	c := pp.cls
	a, _ := s.newAttempt(c, pp.att.alt, pp.att.level, false)
	fromHost := s.hostOf(pp)
	s.topo.Unrecord(c.topo, a.active, &fromHost)
	fromNode, from := pp.node, pp.claim
	var fromState claimState
	if fromNode != nil {
		s.unplaceExisting(pp)
	} else {
		fromState = s.snapshot(from)
		s.detach(pp)
	}
	need := dst.used.Add(c.requests)
	ports := append(slices.Clone(dst.ports), c.ports...)
	back := a
	if under.alt != pp.att.alt || under.level != pp.att.level {
		if b, ok := s.newAttempt(c, under.alt, under.level, false); ok {
			back = b
		}
	}
	back, id := s.backUnder(back, dst)
	t, pos, price, ok := s.fitBack(ports, dst, id, need)
	if !ok {
		// dst held the pod before, but it may have widened or narrowed
		// since (backUnder): keep the pod where it is.
		if fromNode != nil {
			s.putExisting(pp, a, fromNode)
			return
		}
		s.topo.Record(c.topo, a.active, &fromHost)
		s.reattach(pp, from)
		s.undrop(from)             // when pp was its last pod
		s.restore(from, fromState) // detach may have refitted it smaller
		return
	}
	s.undrop(dst)
	s.commit(pp, back, evaluation{claim: dst, pool: dst.pool, reqID: id, typ: t, pos: pos, price: price, need: need})
}

// backUnder returns the attempt a pod going back to claim dst is held
// under, and dst's requirements with it. A pod may have moved under another
// of its required node-affinity terms and be going back to the claim that
// held it under the first, and dst may have widened since the pod left:
// the term dst's requirements already imply comes first, then the pod's
// current term, then the others; each only where some type of the pool
// holds dst's pods and this one under both. Else a, with dst's
// requirements and a's, or -1.
func (s *solver) backUnder(a attempt, dst *claim) (attempt, int32) {
	need := dst.used.Add(a.c.requests)
	holds := func(id int32) bool {
		if id < 0 {
			return false
		}
		info := s.reqs.info(id)
		info.typeSet(s)
		return need.Fits(info.maxUsable)
	}
	var fallback attempt
	fallbackID := int32(-1)
	for i := range a.c.alts {
		alt := (a.alt + i) % len(a.c.alts)
		b := a
		if alt != a.alt {
			var ok bool
			if b, ok = s.newAttempt(a.c, alt, a.level, false); !ok {
				continue
			}
		}
		id := s.reqs.compat(dst.reqID, b.reqID)
		if id == dst.reqID {
			return b, id
		}
		if fallbackID < 0 && holds(id) {
			fallback, fallbackID = b, id
		}
	}
	if fallbackID >= 0 {
		return fallback, fallbackID
	}
	// No term holds: dst with the pod's own term, which the fit then
	// refuses (-1 when the pod no longer fits dst's requirements at all).
	// dst's requirements alone would put the pod on a claim that does not
	// imply what it requires (a custom label it selects: scenario
	// move-back-keeps-pod-requirements).
	return a, s.reqs.compat(dst.reqID, a.reqID)
}

// fitBack is cheapestFit of a pod going back to claim dst under the
// requirements id that backUnder gave (-1: none fits).
func (s *solver) fitBack(ports []hostPort, dst *claim, id int32, need binpack.Vec) (t, pos int, price float64, ok bool) {
	if id < 0 {
		return 0, 0, 0, false
	}
	return s.cheapestFit(ports, dst.pool, id, need, &dst.charged, 0, math.Inf(1), dst)
}

// reattach puts pp back on cl without checks (used only to undo a detach).
func (s *solver) reattach(pp *pending, cl *claim) {
	cl.pods = append(cl.pods, pp)
	cl.used = cl.used.Add(pp.cls.requests)
	cl.ports = append(cl.ports, pp.cls.ports...)
	pp.claim = cl
	pp.cls.placedN++
}

// detach removes pp from its claim (its topology counts must already be
// unrecorded) and refits the claim to the cheapest instance type that holds
// what is left; an emptied claim is dropped and its limits refunded.
func (s *solver) detach(pp *pending) {
	cl := pp.claim
	s.note(cl)
	i := slices.Index(cl.pods, pp)
	cl.pods = slices.Delete(cl.pods, i, i+1)
	cl.used = cl.used.Sub(pp.cls.requests)
	cl.ports = cl.ports[:0]
	for _, o := range cl.pods {
		cl.ports = append(cl.ports, o.cls.ports...)
	}
	pp.claim = nil
	pp.cls.placedN--
	if len(cl.pods) == 0 {
		var zero binpack.Vec
		cl.pool.charge(&zero, &cl.charged)
		cl.charged = zero
		if !cl.dropped { // a claim that cannot launch was dropped with its pods (dropClaim)
			cl.dropped = true
			cl.pool.giveNode()
		}
		s.reindex(cl)
		s.updateHold(cl)
		return
	}
	if cl == s.frozen {
		return // the caller restores cl's state (undoInto)
	}
	defer s.updateHold(cl)
	defer s.reindex(cl)
	s.widen(cl)
	s.refit(cl)
}

// recharge charges cl's NodePool for cl's type (and minValues) only, after
// a plan that charged it more while it scheduled.
func (s *solver) recharge(cl *claim) {
	if capT, ok := s.chargeFor(cl.pool, cl.reqID, cl.used, cl.typ, cl.ports, &cl.charged); ok {
		cl.pool.charge(&capT, &cl.charged)
		cl.charged = capT
	}
}

// refit moves cl to the cheapest type that holds its pods, when that costs
// no more than its type, and charges its NodePool for it.
func (s *solver) refit(cl *claim) {
	t, pos, price, ok := s.cheapestFit(cl.ports, cl.pool, cl.reqID, cl.used, &cl.charged, 0, cl.price, cl)
	if !ok || price > cl.price || t == cl.typ {
		return
	}
	capT, ok := s.chargeFor(cl.pool, cl.reqID, cl.used, t, cl.ports, &cl.charged)
	if !ok {
		return
	}
	cl.pool.charge(&capT, &cl.charged)
	cl.charged = capT
	cl.typ, cl.pos, cl.price = t, pos, price
}

// widen gives a claim back the requirements its remaining pods do not need:
// its NodePool's ∩ each remaining pod's, with the claim's own values kept
// on every key topology counts on (its pods were counted in those domains)
// and every key a spread's node filter reads (they decided whether its pods
// were counted).
// A claim that held a pod needing a memory-heavy type may then refit to a
// small one once that pod has left.
func (s *solver) widen(cl *claim) {
	id := cl.pool.reqID
	for _, o := range cl.pods {
		if id = s.reqs.compat(id, o.att.reqID); id < 0 {
			return
		}
	}
	if keys := s.keptOnWiden(); len(keys) > 0 {
		keep, ok := s.keepMemo[cl.reqID]
		if !ok {
			keep = s.domainPins(keys, cl.reqID)
			s.keepMemo[cl.reqID] = keep
		}
		if id = s.reqs.and(id, s.declaredPins(id, keep)); id < 0 {
			return
		}
	}
	if id == cl.reqID {
		return
	}
	s.rebucket(cl, id)
}

// declaredPins is keep without the pins on custom keys that the claim's
// NodePool and pods (id) do not have: widen keeps a claim's domains, but a
// custom label is the NodePool's to declare (or a pod's NotIn to open), and
// a pin kept after the pod that opened the key left would let a pod that
// requires the label join a NodePool that cannot take it (UndefinedLabel).
func (s *solver) declaredPins(id, keep int32) int32 {
	pins := s.reqs.info(keep).reqs
	have := s.reqs.info(id).reqs
	var drop []string
	for r := range pins.All() {
		if k := r.Key(); !s.schema.IsWellKnown(k) && !have.Has(k) {
			drop = append(drop, k)
		}
	}
	if len(drop) == 0 {
		return keep
	}
	return s.reqs.intern(pins.Without(drop...), nil)
}

// keptOnWiden returns the keys widen keeps (computed once: groups are all
// registered before placement).
func (s *solver) keptOnWiden() []string {
	if s.widenKeys == nil {
		s.widenKeys = append(s.topo.Keys(), s.topo.FilterKeys()...)
	}
	return s.widenKeys
}

// buildSlack indexes the room of every live claim, bucket by bucket.
func (s *solver) buildSlack() {
	for _, b := range s.buckets {
		for _, cl := range b.claims {
			if cl.bucket != b || cl.dropped || len(cl.pods) == 0 {
				continue
			}
			if b.slack == nil {
				b.slack = &slackIndex{}
			}
			b.slack.place(s, cl)
		}
	}
}

// reindex updates cl's place in its bucket's slack index, if indexed.
func (s *solver) reindex(cl *claim) {
	if cl.bucket == nil {
		return
	}
	if cl.bucket.slack == nil {
		if !s.slackBuilt {
			return
		}
		cl.bucket.slack = &slackIndex{}
	}
	cl.bucket.slack.place(s, cl)
}

// unindex takes cl out of its bucket's slack index.
func (s *solver) unindex(cl *claim) {
	if cl.bucket == nil || cl.bucket.slack == nil || !cl.slackIn {
		return
	}
	dropped := cl.dropped
	cl.dropped = true
	cl.bucket.slack.place(s, cl)
	cl.dropped = dropped
}

// absorbTries bounds how many claims one claim tries to absorb, and
// absorbStep how much (relatively) one absorption may cost on its own: a
// sequence whose steps each cost a little may still end cheaper (two half
// nodes are rarely exactly one node's price), and the sequence is undone
// unless it ends cheaper than it started.
const (
	absorbTries = 8
	absorbScan  = 32
	absorbStep  = 1e-3
)

// absorb moves every pod of smaller claims of dst's bucket (same
// requirements, so the same domains) into dst, one claim at a time, and
// keeps the result only when the total price falls.
func (s *solver) absorb(dst *claim, budget *int) {
	if dst.bucket == nil {
		return
	}
	cands := s.absorbCandidates(dst)
	start, state := dst.price, s.snapshot(dst)
	var taken []*claim
	var moved [][]*pending
	// Passes until none succeeds: a claim that did not fit may fit once dst
	// has grown to a larger type.
	for progress := true; progress && *budget > 0; {
		progress = false
		for i, src := range cands {
			if src == nil || *budget <= 0 {
				continue
			}
			if pods, ok := s.absorbInto(src, dst, budget); ok {
				taken = append(taken, src)
				moved = append(moved, pods)
				cands[i] = nil
				progress = true
			}
		}
	}
	total := start
	for _, src := range taken {
		total += src.chargedPrice
	}
	// Each claim absorbed saves its node cost too (WithNodeCost).
	if len(taken) > 0 && dst.price > total+s.cfg.nodeCost*float64(len(taken))+priceEps {
		s.undoInto(dst, state, func() {
			for i := len(taken) - 1; i >= 0; i-- {
				s.unfold(taken[i], moved[i])
			}
		})
	}
}

// absorbCandidates lists the claims of dst's bucket, newest first (at most
// absorbScan looked at), no fuller or dearer than dst, whose pods could
// join dst's at the bucket's largest type: the absorbTries cheapest.
func (s *solver) absorbCandidates(dst *claim) []*claim {
	b := dst.bucket
	maxUsable := s.reqs.info(b.reqID).maxUsable
	cands := s.absorbScratch[:0] // absorb is never nested
	defer func() { s.absorbScratch = cands[:0] }()
	for i, seen := b.prevLive(len(b.claims)-1), 0; i >= 0 && seen < absorbScan; i = b.prevLive(i - 1) {
		if b.deadEntry(i) {
			continue
		}
		cl := b.claims[i]
		if cl == dst || len(cl.pods) == 0 || len(cl.pods) > len(dst.pods) || cl.price > dst.price {
			continue
		}
		seen++
		if !cl.used.FitsSum(&dst.used, &maxUsable) {
			continue
		}
		cands = insertCheapest(cands, cl)
	}
	return cands
}

// insertCheapest inserts cl into cands, which holds at most absorbTries
// claims cheapest first (then by id), after those equal to it, and drops
// the dearest beyond absorbTries: what a stable sort of every candidate
// cut at absorbTries would keep, without sorting them all (absorb looks
// for candidates 70,000 times a round at 100,000 pods).
func insertCheapest(cands []*claim, cl *claim) []*claim {
	byPrice := func(x, y *claim) int {
		if c := cmp.Compare(x.price, y.price); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	}
	n := len(cands)
	if n == absorbTries && byPrice(cl, cands[n-1]) >= 0 {
		return cands
	}
	i := n
	for i > 0 && byPrice(cands[i-1], cl) > 0 {
		i--
	}
	if n == absorbTries {
		cands = cands[:n-1]
	}
	return slices.Insert(cands, i, cl)
}

// absorbInto moves every pod of src into dst when dst grows by at most
// src's price (plus absorbStep); on failure nothing changes. It returns the
// pods moved.
func (s *solver) absorbInto(src, dst *claim, budget *int) ([]*pending, bool) {
	for _, pp := range src.pods {
		if !pp.cls.topo.Movable() {
			return nil, false
		}
	}
	limit := (dst.price + src.price + s.cfg.nodeCost) * (1 + absorbStep)
	if s.foldCosts(dst, src) > limit {
		return nil, false
	}
	src.chargedPrice = src.price
	var moved []*pending
	before := s.snapshot(dst)
	rollback := func() {
		s.undoInto(dst, before, func() { s.unfold(src, moved) })
	}
	for _, pp := range bySizeDesc(src.pods) {
		c := pp.cls
		a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
		if !ok {
			rollback()
			return nil, false
		}
		srcHost := s.claimHost(src)
		s.topo.Unrecord(c.topo, a.active, &srcHost)
		*budget--
		ev, ok := s.evalClaim(a, dst)
		if !ok || ev.price > limit {
			s.topo.Record(c.topo, a.active, &srcHost)
			rollback()
			return nil, false
		}
		s.detach(pp)
		s.commit(pp, a, ev)
		moved = append(moved, pp)
	}
	return moved, true
}
