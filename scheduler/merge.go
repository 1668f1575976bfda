package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// The merge move folds claims of one NodePool into one larger instance type
// when that type costs less than the claims apart: three 8-cpu nodes each
// holding one 4.75-cpu pod ($0.16 each) become one 16-cpu node ($0.33).
// Greedy placement cannot see this, because no single step pays: growing
// one claim to hold a second pod costs more ($0.33) than a second small node
// ($0.16), and only the third pod makes the larger type the better buy.
//
// A merge is planned on prices alone (the cheapest type that holds the
// union of requests under the union of requirements, within the pool's
// limits, with DaemonSet overhead), over growing sets of candidates taken
// smallest first; the best set is then carried out pod by pod through the
// ordinary evaluation, which checks every topology rule and port, and is
// undone unless the plan ends cheaper.

// mergeScan bounds how many claims one merge considers, mergeWidth how
// many it folds into one, and mergeShare the share of the improvement budget
// one round of merges may spend (the rest is for shrinking).
const (
	mergeScan    = 24
	mergeOwnScan = 32
	mergeWidth   = 12
	mergeShare   = 2
	// mergeStepLoss is how much (relative to the merged price) one claim
	// may lower the saving of a chain and still join it: two of three
	// half-empty nodes rarely fit a cheaper type, all three may.
	mergeStepLoss = 0.15
)

// mergeRound tries a merge into each claim of order: the live claims of
// each pool are sorted once, smallest first, and each merge looks at the
// smallest that may join.
func (s *solver) mergeRound(order []*claim, budget *int) {
	bySize := map[*pool][]*claim{}
	for _, cl := range order {
		bySize[cl.pool] = append(bySize[cl.pool], cl)
	}
	for _, list := range bySize {
		slices.SortStableFunc(list, smallerClaim)
	}
	spend := *budget / mergeShare
	left := spend
	for _, dst := range order {
		if left <= 0 {
			break
		}
		if !dst.dropped {
			s.merge(dst, bySize[dst.pool], &left)
		}
	}
	*budget -= spend - left
}

// smallerClaim orders claims by used cpu, then memory, then id.
func smallerClaim(x, y *claim) int {
	if c := cmp.Compare(x.used[0], y.used[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(x.used[1], y.used[1]); c != 0 {
		return c
	}
	return cmp.Compare(x.id, y.id)
}

// merge folds claims of bySize (dst's pool, smallest first) into dst, one
// candidate at a time through the ordinary evaluation (topology, ports,
// limits, minValues), and keeps the prefix of folds that saves the most; a
// longer prefix that saves as much wins (fewer nodes, and one larger room
// for the moves that follow). A fold may lose a little on its own
// (mergeStepLoss): two of three half-empty nodes rarely fit a cheaper type
// together, all three may.
func (s *solver) merge(dst *claim, bySize []*claim, budget *int) {
	if len(dst.pods) == 0 {
		return
	}
	if dst.pool.limited {
		s.mergeAtOnce(dst, bySize, budget)
		return
	}
	cands := s.mergeCandidates(dst, bySize)
	chain := s.mergePlan(dst, cands, budget)
	if len(chain) > 0 {
		if s.foldChain(dst, chain, budget) {
			return
		}
		// Undone, the claims have new places in their buckets: look again.
		cands = s.mergeCandidates(dst, bySize)
	}
	s.foldGreedy(dst, cands, budget)
}

// mergeFold is a claim folded into dst, with its pods and dst after it.
type mergeFold struct {
	src   *claim
	pods  []*pending
	after claimState // dst once src was folded in
}

// foldGreedy folds the candidates into dst one by one, in passes while one
// folds something, and keeps the prefix of folds that saves most.
func (s *solver) foldGreedy(dst *claim, cands []*claim, budget *int) {
	var folds []mergeFold
	start := s.snapshot(dst)
	apart := dst.price + s.cfg.nodeCost // what dst and the claims folded so far cost apart
	bestN, bestSave, lastSave := 0, priceEps, 0.0
	// Passes while one folds something: a claim that did not fit may fit
	// once dst has grown to a larger type.
	left := cands
	for progress := true; progress && len(left) > 0; {
		progress = false
		rest := left[:0]
		for _, src := range left {
			if *budget <= 0 || len(folds) >= mergeWidth {
				rest = append(rest, src)
				continue
			}
			if s.foldCannotPay(dst, src, apart, lastSave) {
				rest = append(rest, src)
				continue
			}
			before := s.snapshot(dst)
			pods, ok := s.mergeInto(src, dst, budget)
			save := apart + src.chargedPrice + s.cfg.nodeCost - (dst.price + s.cfg.nodeCost)
			if !ok || save < lastSave-mergeStepLoss*dst.price-priceEps {
				s.undoInto(dst, before, func() { s.unfold(src, pods) })
				rest = append(rest, src)
				continue
			}
			progress = true
			apart += src.chargedPrice + s.cfg.nodeCost
			folds = append(folds, mergeFold{src, pods, s.snapshot(dst)})
			if lastSave = save; save > bestSave {
				bestN, bestSave = len(folds), save
			}
		}
		left = rest
	}
	to := start
	if bestN > 0 {
		to = folds[bestN-1].after
	}
	s.undoInto(dst, to, func() {
		for i := len(folds) - 1; i >= bestN; i-- {
			s.unfold(folds[i].src, folds[i].pods)
		}
	})
}

// foldChain folds every claim of chain into dst, the set a plan on prices
// alone (mergePlan) found cheaper together, and keeps the result when the
// plan ends cheaper; else everything goes back. The set is taken whole: its
// first folds may each cost more (two of four half-empty nodes need a type
// twice the price, all four fit one type that costs what they did apart,
// and a fifth claim rides free).
func (s *solver) foldChain(dst *claim, chain []*claim, budget *int) bool {
	start := s.snapshot(dst)
	apart := dst.price + s.cfg.nodeCost
	type fold struct {
		src  *claim
		pods []*pending
	}
	var folds []fold
	ok := true
	for _, src := range chain {
		apart += src.price + s.cfg.nodeCost
		pods, in := s.mergeInto(src, dst, budget)
		folds = append(folds, fold{src, pods})
		if !in {
			ok = false
			break
		}
	}
	if ok && dst.price+s.cfg.nodeCost < apart-priceEps {
		return true
	}
	s.undoInto(dst, start, func() {
		for i := len(folds) - 1; i >= 0; i-- {
			s.unfold(folds[i].src, folds[i].pods)
		}
	})
	return false
}

// undoInto runs undo, which moves pods that joined dst back out, and
// returns dst to state st, a state it had with the pods it keeps. While
// undo runs dst is neither widened nor refitted pod by pod (detach leaves
// it alone): st says what it becomes.
func (s *solver) undoInto(dst *claim, st claimState, undo func()) {
	s.frozen = dst
	s.releaseTo(dst, st)
	undo()
	s.frozen = nil
	s.restore(dst, st)
}

// foldCannotPay reports, before any pod moves, that folding src into dst
// would be refused on price alone: a fold is refused when its saving,
// apart+src.price-price, falls below lastSave-mergeStepLoss*price, which a
// price above foldCosts only makes worse.
func (s *solver) foldCannotPay(dst, src *claim, apart, lastSave float64) bool {
	est := s.foldCosts(dst, src)
	return apart+src.price-est < lastSave-mergeStepLoss*est-priceEps
}

// foldCosts is a lower bound on dst's price once every pod of src joined
// it (+Inf when no type can hold them): the claim dst becomes narrows dst's
// requirements and holds at least both claims' requests, so no type it can
// get costs less than the cheapest type of dst's requirements that holds
// the sum (ports and minValues only rule types out). With reservations it
// is 0: a reserved offering src frees may cost less than any other.
func (s *solver) foldCosts(dst, src *claim) float64 {
	if s.hasReservations {
		return 0
	}
	need := dst.used.Add(src.used)
	charged := dst.charged
	_, _, est, ok := s.cheapestFit(nil, dst.pool, dst.reqID, need, &charged, 0, math.Inf(1), dst)
	if !ok {
		return math.Inf(1)
	}
	return est
}

// claimState is what a claim's pods do not determine: its requirement set,
// instance type and what it is charged, which narrow or grow as pods join
// and stay so when they leave.
type claimState struct {
	reqID    int32
	typ, pos int
	price    float64
	charged  binpack.Vec
}

func (s *solver) snapshot(cl *claim) claimState {
	return claimState{reqID: cl.reqID, typ: cl.typ, pos: cl.pos, price: cl.price, charged: cl.charged}
}

// releaseTo charges dst's NodePool for st's capacity only, before the pods
// that grew dst beyond st go back: the claims they return to find the
// limits they held.
func (s *solver) releaseTo(dst *claim, st claimState) {
	capT := st.charged
	dst.pool.charge(&capT, &dst.charged)
	dst.charged = capT
}

// restore returns cl to a state it had with the pods it holds now (the
// pods that joined since have left again).
func (s *solver) restore(cl *claim, st claimState) {
	capT := st.charged
	cl.pool.charge(&capT, &cl.charged)
	cl.charged = capT
	if cl.reqID != st.reqID {
		s.rebucket(cl, st.reqID)
	}
	cl.typ, cl.pos, cl.price = st.typ, st.pos, st.price
	s.reindex(cl)
	s.updateHold(cl)
}

// unfold moves pods back to the claim they were folded from.
func (s *solver) unfold(src *claim, pods []*pending) {
	for j := len(pods) - 1; j >= 0; j-- {
		s.moveBack(pods[j], src)
	}
}

// mayFold is the cheap test before a fold: the requirements of dst and src
// meet, their ports do not clash, and some type of the pool could hold both.
func (s *solver) mayFold(dst, src *claim) bool {
	if _, clash := portsConflict(dst.ports, src.ports); clash {
		return false
	}
	return s.foldReqs(dst.reqID, dst.used, src) >= 0
}

// foldReqs returns the requirement set of a claim with requirements id and
// requests used once src's pods joined it (-1 when none holds them): id ∩
// src's requirements, or, when that holds nothing and src's pods are of one
// class with several required node-affinity terms, id ∩ the first other
// term (widened to the NodePool, src's domains kept) that does: any term
// places the pod, and the one it was placed under may be the narrow one.
func (s *solver) foldReqs(id int32, used binpack.Vec, src *claim) int32 {
	fits := func(nid int32) bool {
		if nid < 0 {
			return false
		}
		info := s.reqs.info(nid)
		info.typeSet(s)
		return used.FitsSum(&src.used, &info.maxUsable)
	}
	if nid := s.reqs.and(id, src.reqID); fits(nid) {
		return nid
	}
	if nid := s.and(id, s.crossingReqs(src)); fits(nid) {
		return nid
	}
	c := src.pods[0].cls
	if len(c.alts) < 2 || slices.ContainsFunc(src.pods, func(pp *pending) bool { return pp.cls != c || pp.att.level != src.pods[0].att.level }) {
		return -1
	}
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, src.pods[0].att.level, false)
		if !ok || alt == src.pods[0].att.alt {
			continue
		}
		wide := s.reqs.compat(src.pool.reqID, a.reqID)
		if wide < 0 {
			continue
		}
		if wide, ok = s.pinToDomains(wide, c, src.reqID); ok {
			if nid := s.reqs.and(id, wide); fits(nid) {
				return nid
			}
		}
	}
	return -1
}

// crossingReqs returns the requirements src's pods need where each may
// leave src's domains (the pool's, under each pod's own term and level,
// without the domains topology pinned), or -1 when a pod that topology
// counts on a key other than hostname may not change domain (foldCrossing
// moves them, and the merge checks that their spreads hold).
func (s *solver) crossingReqs(src *claim) int32 {
	id := src.pool.reqID
	for _, pp := range src.pods {
		c := pp.cls
		if !s.mayChangeDomain(c) && slices.ContainsFunc(c.topo.Keys(), func(k string) bool { return k != requirements.LabelHostname }) {
			return -1
		}
		a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
		if !ok {
			return -1
		}
		if id = s.reqs.compat(id, a.reqID); id < 0 {
			return -1
		}
	}
	return id
}

func (s *solver) and(a, b int32) int32 {
	if a < 0 || b < 0 {
		return -1
	}
	return s.reqs.and(a, b)
}

// allMovable reports whether every pod of cl may leave its node.
func allMovable(cl *claim) bool {
	for _, pp := range cl.pods {
		if !pp.cls.topo.Movable() {
			return false
		}
	}
	return true
}

// mergeCandidates lists the claims that could fold into dst (mayFold),
// at most mergeScan: first those of dst's own bucket (same requirements)
// that are no larger, cheapest first, then the smallest claims of dst's
// pool (bySize). Every pod of theirs may move.
func (s *solver) mergeCandidates(dst *claim, bySize []*claim) []*claim {
	var out []*claim
	// A claim is seen when its mark is this call's.
	s.mark++
	seen := func(cl *claim) bool { return cl.mark == s.mark }
	dst.mark = s.mark
	add := func(cl *claim) bool {
		if seen(cl) || cl.dropped || len(cl.pods) == 0 || !allMovable(cl) || !s.mayFold(dst, cl) {
			return false
		}
		cl.mark = s.mark
		out = append(out, cl)
		return true
	}
	if b := dst.bucket; b != nil {
		for i, n := len(b.claims)-1, 0; i >= 0 && n < mergeOwnScan; i-- {
			if cl := b.claims[i]; cl.bucket == b && len(cl.pods) <= len(dst.pods) && cl.price <= dst.price {
				n++
				add(cl)
			}
		}
		slices.SortStableFunc(out, func(x, y *claim) int {
			if c := cmp.Compare(x.price, y.price); c != 0 {
				return c
			}
			return cmp.Compare(x.id, y.id)
		})
		out = out[:min(len(out), mergeScan/3)]
	}
	for i, n := 0, 0; i < len(bySize) && len(out) < mergeScan && n < mergeScan*4; i++ {
		if cl := bySize[i]; !seen(cl) {
			n++
			add(cl)
		}
	}
	return out
}

// mergeInto moves every pod of src into dst, whatever dst's price becomes
// (the caller judges the whole merge). On failure it returns the pods that
// moved, for the caller to undo (undoInto). A pod that topology counts on
// some key stays in src's domain of that key, so no other pod's spread or
// affinity count changes, unless it may change domain and every spread
// counting it holds after the move. It returns the pods moved.
func (s *solver) mergeInto(src, dst *claim, budget *int) ([]*pending, bool) {
	src.chargedPrice = src.price
	var moved []*pending
	srcHost := s.claimHost(src)
	for _, pp := range bySizeDesc(src.pods) {
		a, ev, ok := s.foldAttempt(pp, dst, src.reqID, &srcHost, budget)
		crossed := false
		if !ok {
			if a, ev, ok = s.foldCrossing(pp, dst, &srcHost, budget); !ok {
				return moved, false
			}
			crossed = true
		}
		s.detach(pp)
		s.commit(pp, a, ev)
		moved = append(moved, pp)
		if crossed && !s.topo.SpreadHolds(pp.cls.topo) {
			return moved, false
		}
	}
	return moved, true
}

// foldCrossing evaluates pp on dst in another domain of a key topology
// counts it on, when the pod may change domain (the caller checks that
// every spread counting it still holds once it has moved), under the term
// it was placed under.
func (s *solver) foldCrossing(pp *pending, dst *claim, srcHost *topology.Host, budget *int) (attempt, evaluation, bool) {
	c := pp.cls
	if !s.mayChangeDomain(c) {
		return attempt{}, evaluation{}, false
	}
	a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
	if !ok {
		return attempt{}, evaluation{}, false
	}
	s.topo.Unrecord(c.topo, a.active, srcHost)
	*budget--
	if ev, ok := s.evalClaim(a, dst); ok {
		return a, ev, true
	}
	s.topo.Record(c.topo, a.active, srcHost)
	return attempt{}, evaluation{}, false
}

// foldAttempt evaluates pp, on a claim with requirement set srcID at
// srcHost, on dst: under the required node-affinity term it was placed
// under, else under each other term in turn. On success the pod's topology
// counts are off srcHost (commit records them on dst).
func (s *solver) foldAttempt(pp *pending, dst *claim, srcID int32, srcHost *topology.Host, budget *int) (attempt, evaluation, bool) {
	c := pp.cls
	for i := range c.alts {
		alt := (pp.att.alt + i) % len(c.alts)
		a, ok := s.newAttempt(c, alt, pp.att.level, false)
		if ok {
			a.reqID, ok = s.pinToDomains(a.reqID, c, srcID)
		}
		if !ok {
			continue
		}
		s.topo.Unrecord(c.topo, a.active, srcHost)
		*budget--
		if ev, ok := s.evalClaim(a, dst); ok {
			return a, ev, true
		}
		s.topo.Record(c.topo, a.active, srcHost)
	}
	return attempt{}, evaluation{}, false
}

// pinToDomains narrows requirement set id to the domain of set from on
// every key but hostname that topology counts the class on (false when
// nothing is left).
func (s *solver) pinToDomains(id int32, c *class, from int32) (int32, bool) {
	k := pinKey{c, from}
	pins, ok := s.pinMemo[k]
	if !ok {
		pins = -1
		if slices.ContainsFunc(c.topo.Keys(), func(k string) bool { return k != requirements.LabelHostname }) {
			pins = s.domainPins(c.topo.Keys(), from)
		}
		s.pinMemo[k] = pins
	}
	if pins < 0 {
		return id, true
	}
	id = s.reqs.and(id, pins)
	return id, id >= 0
}

// pinKey is a class and the requirement set of the claim it leaves.
type pinKey struct {
	c    *class
	from int32
}

// domainPins returns the id of the requirements that keep set from's
// values on keys (hostname aside). A custom key from does not define stays
// undefined: pinning it to Any would declare it, and a label its NodePool
// does not declare would then take a pod that requires a value of it.
func (s *solver) domainPins(keys []string, from int32) int32 {
	reqs := s.reqs.info(from).reqs
	pins := make([]requirements.Requirement, 0, len(keys))
	for _, k := range keys {
		if k != requirements.LabelHostname && (reqs.Has(k) || s.schema.IsWellKnown(k)) {
			pins = append(pins, reqs.Get(k))
		}
	}
	return s.reqs.intern(requirements.NewRequirements(pins...), nil)
}

// mergeAtOnce is the merge for a NodePool with resource limits, where the
// claims to fold must leave before dst can grow: one at a time, dst would
// need limits that only the last fold gives back. It plans the set on
// prices (the cheapest type for the union of requests under the union of
// requirements, within the limits the set frees), takes every pod of the
// set off its claim, then adds each to dst through the ordinary evaluation;
// if one is refused, or the result is not cheaper, everything goes back.
func (s *solver) mergeAtOnce(dst *claim, bySize []*claim, budget *int) {
	chain := s.mergePlan(dst, s.mergeCandidates(dst, bySize), budget)
	if len(chain) == 0 {
		return
	}
	start := s.snapshot(dst)
	before := dst.price + s.cfg.nodeCost
	for _, src := range chain {
		before += src.price + s.cfg.nodeCost
	}
	offs := s.takeOffChain(chain)
	if s.putOn(dst, offs, budget) && dst.price+s.cfg.nodeCost < before-priceEps {
		return
	}
	s.undoInto(dst, start, func() {
		for i := len(offs) - 1; i >= 0; i-- {
			o := offs[i]
			if o.pp.claim == nil {
				s.returnTo(o.pp, o.a, o.src)
			} else {
				s.moveBack(o.pp, o.src)
			}
		}
	})
}

// mergeOff is a pod taken off a claim of a merge chain, with the attempt
// it moves under.
type mergeOff struct {
	pp  *pending
	src *claim
	a   attempt
}

// takeOffChain takes the pods off the claims of chain, each with an attempt
// pinned to its claim's domains where it can be, largest first.
func (s *solver) takeOffChain(chain []*claim) []mergeOff {
	var offs []mergeOff
	for _, src := range chain {
		for _, pp := range slices.Clone(src.pods) {
			a, ok := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
			if ok {
				a.reqID, ok = s.pinToDomains(a.reqID, pp.cls, src.reqID)
			}
			if !ok {
				a, _ = s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
			}
			host := s.hostOf(pp)
			s.topo.Unrecord(pp.cls.topo, a.active, &host)
			s.detach(pp)
			offs = append(offs, mergeOff{pp, src, a})
		}
	}
	slices.SortStableFunc(offs, func(x, y mergeOff) int { return largerFirst(x.pp, y.pp) })
	return offs
}

// putOn commits the pods taken off to dst, in order, and reports whether
// all fit, the spreads of those that crossed to another domain holding.
func (s *solver) putOn(dst *claim, offs []mergeOff, budget *int) bool {
	var crossed []*pending
	for i := range offs {
		o := &offs[i]
		*budget--
		ev, fits := s.evalClaim(o.a, dst)
		if !fits && s.mayChangeDomain(o.pp.cls) {
			// Another domain, when its spreads hold once all have moved.
			if free, ok := s.newAttempt(o.pp.cls, o.pp.att.alt, o.pp.att.level, false); ok {
				if ev, fits = s.evalClaim(free, dst); fits {
					o.a = free
					crossed = append(crossed, o.pp)
				}
			}
		}
		if !fits {
			return false
		}
		s.commit(o.pp, o.a, ev)
	}
	ok := true
	for _, pp := range crossed {
		ok = ok && s.topo.SpreadHolds(pp.cls.topo)
	}
	return ok
}

// returnTo puts pp, which is on no claim, back on claim cl it left.
func (s *solver) returnTo(pp *pending, a attempt, cl *claim) {
	need := cl.used.Add(pp.cls.requests)
	ports := append(slices.Clone(cl.ports), pp.cls.ports...)
	a, id := s.backUnder(a, cl)
	t, pos, price, ok := s.fitBack(ports, cl, id, need)
	if !ok {
		// No term of the pod fits cl as it is now: the pod is on no claim,
		// so it goes back under cl's own requirements, which held it.
		id = cl.reqID
		if t, pos, price, ok = s.fitBack(ports, cl, id, need); !ok {
			return // cannot happen: cl held the pod
		}
	}
	s.undrop(cl)
	s.commit(pp, a, evaluation{claim: cl, pool: cl.pool, reqID: id, typ: t, pos: pos, price: price, need: need})
}

// mergePlan returns the claims worth folding into dst at once: candidates
// (mergeCandidates) taken in turn into a growing set while some type of the
// pool holds the union within the limits the set frees, and the prefix
// whose cheapest type saves the most over the claims apart (nil when none
// saves).
func (s *solver) mergePlan(dst *claim, cands []*claim, budget *int) []*claim {
	p := dst.pool
	id, need, charged := dst.reqID, dst.used, dst.charged
	ports := slices.Clone(dst.ports)
	apart := dst.price
	var chain []*claim
	bestLen, bestSave := 0, priceEps
	for _, src := range cands {
		if *budget <= 0 || len(chain) >= mergeWidth {
			break
		}
		nid := s.foldReqs(id, need, src)
		if nid < 0 {
			continue
		}
		if _, clash := portsConflict(ports, src.ports); clash {
			continue
		}
		nneed := need.Add(src.used)
		info := s.reqs.info(nid)
		info.typeSet(s)
		if !nneed.Fits(info.maxUsable) {
			continue
		}
		id, need, charged = nid, nneed, charged.Add(src.charged)
		ports = append(ports, src.ports...)
		apart += src.price + s.cfg.nodeCost
		chain = append(chain, src)
		*budget--
		t, _, price, ok := s.cheapestFit(ports, p, id, need, &charged, 0, math.Inf(1), nil)
		if !ok {
			continue
		}
		if _, mv := s.chargeFor(p, id, need, t, ports, &charged); mv && apart-price > bestSave {
			bestLen, bestSave = len(chain), apart-price
		}
	}
	return chain[:bestLen]
}
