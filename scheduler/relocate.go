package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
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
//
// relocateLast does so on the plan Solve keeps, after the last moves (as
// they do, it leaves the plans compared, and which of them is kept, as
// they were), and keeps a relocation only when the plan as it launches
// costs less: with capacity reservations, a claim's price depends on the
// order claims launch in (launchTotal). Made while the plans are improved,
// a relocation cheaper there could steer the phases after it into a
// dearer plan. A claim whose pods a zone spread counts together with pods
// elsewhere is left where it is (spreadConfined): the move would rest on
// the spread's counts of the others.

// relocateMaxPods bounds the pending pods of a plan whose claims are
// relocated, and relocateTries the relocations tried on it (each checks
// every placed pod's topology again).
const (
	relocateMaxPods = 2000
	relocateTries   = 64
)

// relocateZones bounds the zones tried per claim (the cheapest first).
const relocateZones = 2

// relocateLast tries to relocate every live claim of the kept plan, the
// dearest first, then (without capacity reservations) to relocate them to
// take others in (below).
func (s *solver) relocateLast() {
	if s.final != nil || !s.slackBuilt || len(s.pending) > relocateMaxPods {
		return
	}
	if s.placed() < len(s.pending) && s.limitsLeftPods() {
		return // a relocation may spend the limits differently
	}
	s.dearestFirst(relocateTries, func(cl *claim, budget, tries *int) { s.relocate(cl, budget, tries, false) })
	if !s.hasReservations {
		s.dearestFirst(relocateTries, func(cl *claim, budget, tries *int) { s.relocate(cl, budget, tries, true) })
	}
}

// dearestFirst calls try on every live claim of the plan, the dearest
// first, with one move budget and one count of tries, while the budget
// lasts and fewer than maxTries were made.
func (s *solver) dearestFirst(maxTries int, try func(cl *claim, budget, tries *int)) {
	budget, tries := s.moveBudget(), 0
	order := s.byPrice()
	slices.Reverse(order)
	for _, cl := range order {
		if budget <= 0 || tries >= maxTries {
			return
		}
		if cl.live() {
			try(cl, &budget, &tries)
		}
	}
}

// relocate moves every pod of cl to one new claim in the zone where they
// cost least together, when the plan then launches for less; with absorb,
// to a zone where they cost no more and a claim of cl's NodePool could
// fold into it, when the folds that follow make the plan launch for less.
func (s *solver) relocate(cl *claim, budget, tries *int, absorb bool) {
	if s.relocateWhole(cl, budget, tries, absorb) || !absorb {
		return
	}
	s.relocateShed(cl, budget, tries)
}

// relocateShed is relocate with absorb for a claim some of whose pods may
// not change zone, or are counted by a spread on a key the offering
// decides with other pods: those move first to other claims in the zone
// where there is room at no extra price (moveOut), and the rest of the
// claim is relocated to take others in; if that fails, every pod goes back. Five replicas of a
// zone spread shared a 16-cpu node with pods that could run in any zone,
// beside a node of the same zone with room for them and a small node of
// another zone whose claim could fold into a large one there (r33 seed
// 62076: $0.6432, Karpenter $0.6144).
func (s *solver) relocateShed(cl *claim, budget, tries *int) {
	var pinned []*pending
	for _, pp := range cl.pods {
		pods := []*topology.Pod{pp.cls.topo}
		open, openOffZone := false, false // a spread on an offering key counts pods elsewhere
		for _, key := range offeringKeys {
			if !s.topo.SpreadConfined(pods, key) {
				open, openOffZone = true, openOffZone || key != requirements.LabelTopologyZone
			}
		}
		if openOffZone {
			// moveOut may put it on a claim that launches another capacity
			// type (or zone ID), and no check below sees that domain before
			// the offering decides it (r34 seed 64746: a replica of a
			// capacity-type spread of maxSkew 2 shed from an on-demand claim
			// onto a spot one left the spread at 7 against 10).
			return
		}
		if !s.mayRelocate(pp.cls, true) || open {
			pinned = append(pinned, pp)
		}
	}
	if len(pinned) == 0 || len(pinned) == len(cl.pods) || *budget <= 0 || *tries >= relocateTries {
		return
	}
	outer := s.beginJournal()
	var log []ejected
	for _, pp := range pinned {
		from := pp.claim
		if s.moveOut(pp, false, budget) == nil {
			s.undoSwap(log, outer)
			return
		}
		log = append(log, ejected{pp, from})
	}
	if cl.live() && s.relocateWhole(cl, budget, tries, true) {
		s.keepJournal(outer)
		return
	}
	s.undoSwap(log, outer)
}

// relocateWhole is relocate for every pod of cl; it reports whether the
// claim moved.
func (s *solver) relocateWhole(cl *claim, budget, tries *int, absorb bool) bool {
	// The new claim's offering decides its capacity type (and zone ID) as
	// well as its zone: a spread on any of them that counts pods elsewhere
	// leaves the claim where it is (r3 seed 4016: a capacity-type spread of
	// maxSkew 2 broken by a claim moved from on-demand to spot). With
	// absorb, a zone spread alone may count pods elsewhere: the target pins
	// the zone, and every rule a placed pod honoured must then hold on the
	// plan's domains (honoredHold). The capacity type and zone ID are
	// decided by the offering after that check (r34 seed 64746: two
	// replicas of a capacity-type spread of maxSkew 2 relocated from
	// on-demand claims onto spot ones left it at 6 against 11;
	// honoredHold passed, and verify.Solve then left 11 pods out).
	confined := true
	for _, key := range offeringKeys {
		if !s.spreadConfined(cl, key) {
			if !absorb || key != requirements.LabelTopologyZone {
				return false
			}
			confined = false
		}
	}
	atts, free, ok := s.relocateAttempts(cl, absorb)
	if !ok {
		return false
	}
	below := cl.price - priceEps
	if absorb {
		below = math.Inf(1)
	}
	targets := s.relocateTargets(cl, free, below)
	if absorb {
		for i := range targets {
			targets[i].slack = s.foldSlack(cl, s.reqs.and(free, targets[i].pin), targets[i].pin)
			targets[i].confined = confined
		}
		targets = slices.DeleteFunc(targets, func(z relocateTarget) bool {
			return z.slack < 0 || z.price > cl.price+z.slack+priceEps
		})
	}
	if len(targets) == 0 {
		return false
	}
	before, ok := s.launchTotal()
	if !ok {
		return false
	}
	for _, z := range targets {
		if *budget <= 0 || *tries >= relocateTries || !cl.live() {
			return false
		}
		*tries++
		if s.relocateTo(cl, atts, z, before, budget, absorb) {
			return true
		}
	}
	return false
}

// Relocating a claim to take others in. A claim's zone is pinned when it
// opens, by the pod that opens it: a pod whose zone affinity finds its
// matches in two zones takes the first where it costs least, and a pod
// that comes later and may not run in that zone (another pod's
// anti-affinity keeps it out) opens a claim of its own, where Karpenter,
// whose NodeClaim stays open on both zones, would have put it on the
// first and narrowed the claim to the other zone. relocateLast then
// tries, on the kept plan, each claim whose pods could all run in another
// zone where a claim holding them costs no more, when a claim of the same
// NodePool that could fold into it is there: it moves the claim there
// whole (relocateTo) and folds into it, one at a time, the claims that
// then make the plan launch for less (foldInto); else everything goes
// back (relocate with absorb, from relocateLast). Plans with capacity
// reservations are left alone (a claim's price there depends on the order
// the claims launch in).

// foldSlack returns the price of the dearest live claim of cl's NodePool
// other than cl that has requirements meeting pin (a zone) and could fold
// into cl moved there (with requirements id), -1 when there is none: the
// claim moved may cost up to that much more, the fold then paying for it.
func (s *solver) foldSlack(cl *claim, id, pin int32) float64 {
	slack := -1.0
	if id < 0 {
		return slack
	}
	for _, o := range s.claims {
		if o == cl || !o.live() || o.pool != cl.pool || !allMovable(o) || o.price <= slack || s.reqs.and(o.reqID, pin) < 0 {
			continue
		}
		if _, clash := portsConflict(cl.ports, o.ports); !clash && s.foldReqs(id, cl.used, o) >= 0 {
			slack = o.price
		}
	}
	if cl.pool.limited && slack > 0 {
		// Under NodePool limits a dearer claim spends capacity the
		// others may need: there the moved claim may cost no more.
		slack = 0
	}
	return slack
}

// foldInto folds into dst, one at a time, the claims of its NodePool
// that may fold into it (mergeCandidates, the smallest first), keeping
// each fold that makes the plan launch for less than it did; it reports
// whether the plan then launches for less than before.
func (s *solver) foldInto(dst *claim, before float64, budget *int) bool {
	var bySize []*claim
	for _, cl := range s.liveClaims() {
		if cl.pool == dst.pool {
			bySize = append(bySize, cl)
		}
	}
	slices.SortStableFunc(bySize, smallerClaim)
	best := before
	for _, src := range s.mergeCandidates(dst, bySize) {
		if *budget <= 0 {
			break
		}
		if !src.live() {
			continue
		}
		st := s.snapshot(dst)
		pods, ok := s.mergeInto(src, dst, budget)
		if ok {
			after, launches := s.launchTotal()
			if ok = launches && after < best-priceEps; ok {
				best = after
				continue
			}
		}
		s.undoInto(dst, st, func() { s.unfold(src, pods) })
	}
	return best < before-priceEps
}

// launchTotal is the price of the plan's live claims as they would launch
// now, in the order finalisation launches them (the claims that hold a
// reservation first, each taking a place of the next ones); false when
// one would not launch.
func (s *solver) launchTotal() (float64, bool) {
	resUsed := map[string]int{}
	left := func(id string) int { return s.resCap[id] - resUsed[id] }
	total := 0.0
	for _, holders := range []bool{true, false} {
		for _, cl := range s.claims {
			if !cl.live() || (cl.resID != "") != holders {
				continue
			}
			info := s.reqs.info(cl.reqID)
			info.typeSet(s)
			l, drop := s.chooseLaunch(cl, info, left)
			if drop != nil {
				return 0, false
			}
			if l.resID != "" {
				resUsed[l.resID]++
			}
			total += l.price
		}
	}
	return total, true
}

// relocateAttempts returns the attempt each pod of cl would move under
// (its term and level; pinned to cl's domains on the keys topology counts
// it on when it may not change domain), and the requirements of a claim
// of cl's NodePool that holds them all. With followed, a pod that others
// follow on a zone may change domain too (the caller checks that they
// keep a match: topology.Tracker.FollowedKept).
func (s *solver) relocateAttempts(cl *claim, followed bool) ([]attempt, int32, bool) {
	atts := make([]attempt, len(cl.pods))
	id := cl.pool.reqID
	var confined map[string]bool // spreadConfined(cl, key), once per key
	pinned := func(k string) bool {
		if k == requirements.LabelTopologyZone || k == requirements.LabelHostname {
			return false
		}
		v, ok := confined[k]
		if !ok {
			if confined == nil {
				confined = map[string]bool{}
			}
			v = s.spreadConfined(cl, k)
			confined[k] = v
		}
		return !v
	}
	for i, pp := range cl.pods {
		c := pp.cls
		a, ok := s.newAttempt(c, pp.att.alt, pp.att.level, false)
		if !ok {
			return nil, -1, false
		}
		if !s.mayRelocate(c, followed) {
			if a.reqID, ok = s.pinToDomains(a.reqID, c, cl.reqID); !ok {
				return nil, -1, false
			}
		} else if slices.ContainsFunc(c.topo.Keys(), pinned) {
			keys := slices.DeleteFunc(slices.Clone(c.topo.Keys()), func(k string) bool { return !pinned(k) })
			// A relocation changes the zone; on every other key topology
			// counts the pod on with pods elsewhere, the claim keeps its
			// domains (r37 seed 71547: a claim pinned to family x86 moved
			// to another zone as an arm.32, and its two pods of a family
			// spread, maxSkew 3, left it at 8 against 1).
			if a.reqID = s.reqs.and(a.reqID, s.domainPins(keys, cl.reqID)); a.reqID < 0 {
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

// mayRelocate reports whether a pod of class c may move to another zone
// with its claim (its rules checked there); with followed, a pod that
// others follow on a zone too (the caller checks they keep a match).
func (s *solver) mayRelocate(c *class, followed bool) bool {
	may := s.mayChangeDomain(c)
	if followed && !may {
		may = c.topo.MayChangeDomainFollowed() && !s.keepsDomains(c)
	}
	return may
}

// relocateTarget is a zone a claim may move to and the requirements of
// the claim there.
type relocateTarget struct {
	pin   int32
	price float64
	// slack is what the claim may cost more there (absorb: foldSlack),
	// and confined whether the spreads that count its pods count no
	// other pods (else every honoured rule is checked once it moved).
	slack    float64
	confined bool
}

// relocateTargets lists, for a claim pinned to one zone whose pods could
// all run in others, the other zones where a claim with requirements free
// holds cl's pods for less than below, the cheapest first (at most
// relocateZones).
func (s *solver) relocateTargets(cl *claim, free int32, below float64) []relocateTarget {
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
		if ok && price < below {
			out = append(out, relocateTarget{pin: pin, price: price})
		}
	}
	slices.SortStableFunc(out, func(a, b relocateTarget) int { return cmp.Compare(a.price, b.price) })
	return out[:min(len(out), relocateZones)]
}

// relocateTo moves the pods of cl, under atts, to a new claim pinned to
// the target's zone, and keeps the move when the new claim costs less than
// cl did, the plan's topology holds and the plan launches for less than
// before; with absorb, when the new claim costs at most the target's
// slack more than cl did, the pods it leaves keep their matches
// (FollowedKept, else honoredHold) and folding claims into it makes the
// plan launch for less (foldInto); else it puts everything back.
func (s *solver) relocateTo(cl *claim, atts []attempt, z relocateTarget, before float64, budget *int, absorb bool) bool {
	pods := slices.Clone(cl.pods)
	if len(pods) == 0 || len(pods) != len(atts) {
		return false
	}
	placed := make([]placedAttempt, len(pods))
	price, nodesLeft, nodesOver := cl.price, cl.pool.nodesLeft, cl.pool.nodesOver
	left := s.claimHost(cl) // where the pods were
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
	switch {
	case ok && absorb:
		// The claim costs at most the slack more there; the folds that
		// follow pay. A pod that others follow on a zone keeps them a match where it
		// was (FollowedKept), or its followers moved too: every placed
		// pod's honoured rules then hold where it is (honoredHold).
		ok = dst.price <= price+z.slack+priceEps && s.relocatedHold(pods) &&
			((z.confined && !slices.ContainsFunc(pods, func(pp *pending) bool { return !s.topo.FollowedKept(pp.cls.topo, &left) })) || s.honoredHold())
		if ok {
			at, launches := s.launchTotal()
			ok = launches && at <= before+z.slack+priceEps && s.foldInto(dst, before, budget)
		}
	case ok:
		ok = dst.price < price-priceEps && s.relocatedHold(pods)
		if ok {
			after, launches := s.launchTotal()
			ok = launches && after < before-priceEps
		}
	}
	if ok {
		s.keepJournal(outer)
		return true
	}
	// The way back: every pod off the claim it went to first, so that
	// claim's charge under NodePool limits is released, then onto cl.
	// One at a time, the first pod back found no type for cl while the
	// new claim still held the limit (r35 seed 66491 under relocateShed:
	// the pods stayed on the new claim, cl was left dropped, and a pod
	// whose way back failed was lost).
	for _, pp := range pods {
		if pp.claim == nil {
			continue
		}
		if a, ok := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false); ok {
			host := s.hostOf(pp)
			s.topo.Unrecord(pp.cls.topo, a.active, &host)
		}
		s.detach(pp)
	}
	for i, pp := range pods {
		s.returnTo(pp, atts[i], cl)
	}
	for i, pp := range pods {
		pp.att = placed[i]
	}
	s.rollback(nil, outer)
	// The NodePool's node count as before the move (cl's drop and undrop,
	// the new claim's opening and drop moved it).
	cl.pool.nodesLeft, cl.pool.nodesOver = nodesLeft, nodesOver
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

// Repinning a claim on the kept plan. While the plan is made, every value
// a NodePool can launch with is a domain of a spread (planroom.go): a zone
// spread, or a capacity-type spread, sees an empty domain where no node of
// the plan will be, and keeps the claim of a pod it counts out of the
// domain the others fill. kube-scheduler counts the domains of the nodes
// only: once the plan opens no more claims, a claim may move to another
// value of its zone or capacity type (spot instead of on-demand, say) when
// every placed pod's topology still holds on the plan's nodes as they then
// launch. repinLast does so on the plan Solve keeps, after the last moves
// and under their limits (lastMovesApply: no capacity reservations, whose
// prices depend on the order claims launch in), the dearest claim first,
// each to the value of the key where its pods cost least, when that costs
// less; the plan places the same pods for less, and the plans compared
// before it stay as they were. As relocateLast, it leaves alone a claim
// whose pods a spread on the key counts with pods elsewhere
// (spreadConfined).

// repinTries bounds the repins tried on a plan: each checks every placed
// pod's topology again.
const repinTries = 64

// repinKeys are the keys repinLast moves a claim along.
var repinKeys = []string{requirements.LabelTopologyZone, requirements.LabelCapacityType}

// repinLast repins the kept plan's claims (see above).
func (s *solver) repinLast() {
	if !s.lastMovesApply() {
		return
	}
	s.dearestFirst(repinTries, func(cl *claim, budget, tries *int) {
		_, free, ok := s.relocateAttempts(cl, false)
		if !ok {
			return
		}
		for _, key := range repinKeys {
			if !s.spreadConfined(cl, key) {
				continue
			}
			if id, price, ok := s.repinTarget(cl, free, key); ok {
				*budget--
				*tries++
				if s.repin(cl, id, price) {
					return
				}
			}
		}
	})
}

// repinTarget returns cl's requirements with its one value of key replaced
// by the value, among those its pods allow (free), where cl's pods cost
// least, and that price, when it is below cl's.
func (s *solver) repinTarget(cl *claim, free int32, key string) (int32, float64, bool) {
	reqs := s.reqs.info(cl.reqID).reqs
	cur := reqs.Get(key)
	allowed := s.reqs.info(free).reqs.Get(key)
	if cur.Len() != 1 || !allowed.IsFinite() || allowed.Len() < 2 {
		return -1, 0, false
	}
	bestID, best := int32(-1), cl.price-priceEps
	for _, v := range allowed.Values() {
		if cur.Has(v) {
			continue
		}
		id := s.reqs.and(free, s.reqs.intern(reqs.Without(key).Add(requirements.In(key, v)), cl.pool))
		if id < 0 {
			continue
		}
		charged := cl.charged
		if _, _, price, ok := s.cheapestFit(cl.ports, cl.pool, id, cl.used, &charged, 0, best, cl); ok && price < best {
			bestID, best = id, price
		}
	}
	return bestID, best, bestID >= 0
}

// repin moves cl to requirements id (its cheapest type there costs price)
// and keeps the move when the plan's topology holds on its nodes as they
// then launch; else cl returns to what it was.
func (s *solver) repin(cl *claim, id int32, price float64) bool {
	st := s.snapshot(cl)
	t, pos, p, ok := s.cheapestFit(cl.ports, cl.pool, id, cl.used, &cl.charged, 0, math.Inf(1), cl)
	if !ok || p > price+priceEps {
		return false
	}
	capT, ok := s.chargeFor(cl.pool, id, cl.used, t, cl.ports, &cl.charged)
	if !ok {
		return false
	}
	s.rehost(cl, func() {
		cl.pool.charge(&capT, &cl.charged)
		cl.charged = capT
		s.rebucket(cl, id)
		cl.typ, cl.pos, cl.price = t, pos, p
		s.reindex(cl)
		s.updateHold(cl)
	})
	if s.honoredHold() {
		return true
	}
	s.rehost(cl, func() { s.restore(cl, st) })
	return false
}

// rehost runs change, which changes cl's requirements, with cl's pods
// counted off its host before and on it after.
func (s *solver) rehost(cl *claim, change func()) {
	host := s.claimHost(cl)
	for _, pp := range cl.pods {
		if pp.cls.topo.Relevant() {
			a, _ := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
			s.topo.Unrecord(pp.cls.topo, a.active, &host)
		}
	}
	change()
	host = s.claimHost(cl)
	for _, pp := range cl.pods {
		if pp.cls.topo.Relevant() {
			a, _ := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
			s.topo.Record(pp.cls.topo, a.active, &host)
		}
	}
}

// honoredHold reports whether every placed pod's topology rules that its
// placement honoured (the required ones, and the preferences active at its
// relaxation level) hold where it is, on the plan's domains when a spread
// counts (closeDomains): the open ones are what kept the claim where it
// was.
func (s *solver) honoredHold() bool {
	if s.topo.HasSpread() {
		_, reopen, ok := s.closeDomains()
		if !ok {
			return false
		}
		defer reopen()
	}
	for _, pp := range s.pending {
		if !placedOn(pp) || !pp.cls.topo.Relevant() {
			continue
		}
		a, ok := s.newAttempt(pp.cls, pp.att.alt, pp.att.level, false)
		if !ok {
			return false
		}
		host := s.hostOf(pp)
		s.topo.Unrecord(pp.cls.topo, a.active, &host)
		_, v := s.topo.Check(pp.cls.topo, a.active, &host, nil)
		s.topo.Record(pp.cls.topo, a.active, &host)
		if v != nil {
			return false
		}
	}
	return true
}

// offeringKeys are the keys whose value a NodeClaim's offering decides.
var offeringKeys = []string{requirements.LabelTopologyZone, requirements.LabelCapacityType, "topology.k8s.aws/zone-id"}

// spreadConfined reports whether every spread on key that counts a pod of
// cl counts only pods of cl (topology.Tracker.SpreadConfined): moving cl to
// another domain of key then changes no count but the domain that holds
// them all, and the move does not rest on the counts of pods elsewhere.
func (s *solver) spreadConfined(cl *claim, key string) bool {
	pods := make([]*topology.Pod, 0, len(cl.pods))
	for _, pp := range cl.pods {
		pods = append(pods, pp.cls.topo)
	}
	return s.topo.SpreadConfined(pods, key)
}
