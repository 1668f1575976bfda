package scheduler

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// claim is a NodeClaim under construction: its requirements (its NodePool's
// ∩ every pod's ∩ topology pins), its pods and their summed requests, and
// the cheapest instance type that fits them. Adding a pod narrows the
// requirements and can only raise the requests, so a type that fits later
// fitted before: earlier pods are never invalidated.
type claim struct {
	id      int
	host    string // placeholder hostname, unique in the solve
	pool    *pool
	reqID   int32
	used    binpack.Vec
	pods    []*pending
	typ     int
	pos     int
	price   float64
	charged binpack.Vec // capacity charged to the pool's limits
	ports   []hostPort
	bucket  *bucket
	dropped bool
	// dormant are the claim's bucket entries whose bits a search cleared
	// (bucket.live), to set again when the claim is live there again.
	dormant []bucketEntry
	// resID is the capacity reservation the claim holds ("" for none).
	resID string
	// chargedPrice is the claim's price before the improvement phase
	// absorbed it (to judge a sequence of absorptions).
	chargedPrice float64
	// position in its bucket's slack index (improvement phase)
	slackIn            bool
	slackCPU, slackMem uint8
	slackPos           int
	// hostDom is where topology keeps the domain of host.
	hostDom topology.HostnameDomain
	// mark is the solver's mark when a search last saw the claim.
	mark uint64
	// launched is the node the claim last launched as (plandomains.go).
	launched *launchMemo
}

// evaluation is a candidate placement, computed without side effects.
type evaluation struct {
	claim *claim // nil for a new claim
	pool  *pool
	reqID int32
	typ   int
	pos   int
	price float64
	delta float64
	need  binpack.Vec
	pins  bool
	// waste is the share of the instance type's cpu and memory left unused.
	waste float64
}

// attempt is one try to place a pod: a requirement alternative at a
// relaxation level.
type attempt struct {
	c        *class
	alt      int
	level    int
	reqID    int32 // the pod's requirements for this attempt
	allowNew bool
	active   topology.Active
}

func (s *solver) newAttempt(c *class, alt, level int, allowNew bool) (attempt, bool) {
	a := attempt{c: c, alt: alt, level: level, allowNew: allowNew}
	k := variantKey{alt: alt, level: level}
	id, ok := c.variants[k]
	if !ok {
		r := c.alts[alt]
		for i, p := range c.prefs {
			if c.activePref(i, level) {
				if c.singlePref {
					r = karpenterIntersect(r, p.reqs)
				} else {
					r = r.Intersect(p.reqs)
				}
			}
		}
		id = -1
		if _, empty := r.Empty(); !empty {
			id = s.reqs.intern(r, nil)
		}
		c.variants[k] = id
	}
	if id < 0 || level < c.unseenLevels {
		return a, false
	}
	a.reqID = id
	a.active = c.activeAt(level)
	return a, true
}

// place tries to place one pending pod, relaxing preferences as needed;
// the first pod of a group bound to one node opens a claim only where the
// whole group fits, when it can (hostgroup.go).
func (s *solver) place(pp *pending) bool {
	c := pp.cls
	if c.invalid != nil {
		pp.failure = c.invalid
		return false
	}
	if s.groupLeft(c) > 1 {
		s.wholeGroup = true
		ok := s.placeRelaxing(pp)
		s.wholeGroup = false
		if ok {
			return true
		}
	}
	return s.placeRelaxing(pp)
}

// placeRelaxing is place: each required term at each relaxation level.
func (s *solver) placeRelaxing(pp *pending) bool {
	c := pp.cls
	if s.cfg.karpenterRelaxation && len(c.alts) > 1 {
		return s.placeKarpenterOrder(pp)
	}
	level := 0
	for {
		allowNew := level >= c.nWhile
		for alt := range c.alts {
			a, ok := s.newAttempt(c, alt, level, allowNew)
			if !ok {
				continue
			}
			if s.tryPlace(pp, a) {
				pp.relaxed = c.relaxedAt(level)
				return true
			}
		}
		if level >= len(c.steps) {
			return s.placeOpenRelaxed(pp, level, allowNew)
		}
		if level < c.nWhile {
			level = c.nWhile // honour-while-free: drop every WhileFree preference at once
			if level == 0 {
				level = 1
			}
			continue
		}
		level++
	}
}

// placeKarpenterOrder places pp in the order Karpenter relaxes a pod with
// several required node-affinity terms: each term with every preference
// kept, the first terms dropped one by one, and only the last term with
// its preferences relaxed in turn (Karpenter never returns to a dropped
// term, whatever the preferences it relaxes later).
func (s *solver) placeKarpenterOrder(pp *pending) bool {
	c := pp.cls
	last := len(c.alts) - 1
	for alt := range c.alts {
		for level := 0; ; level++ {
			if a, ok := s.newAttempt(c, alt, level, level >= c.nWhile); ok && s.tryPlace(pp, a) {
				pp.relaxed = c.relaxedAt(level)
				return true
			}
			if alt < last || level >= len(c.steps) {
				break
			}
		}
	}
	return s.placeOpenRelaxed(pp, len(c.steps), len(c.steps) >= c.nWhile)
}

// tryPlace places the pod: on an existing node when one takes it, else on
// the planned NodeClaim of any NodePool whose price grows the least, unless
// a new NodeClaim of the first NodePool (by weight) that can take the pod
// costs less than that growth. Weight orders new NodeClaims only: a planned
// claim of a lighter pool with room beats a new claim of a heavier one, as
// in Karpenter (existing nodes, then in-flight NodeClaims, then new ones).
func (s *solver) tryPlace(pp *pending, a attempt) bool {
	c := a.c
	if s.cfg.pickRequired {
		s.topo.PickRequiredDomains(a.alt < len(c.alts)-1 || a.level < len(c.steps))
		defer s.topo.PickRequiredDomains(false)
	}
	if s.cfg.poolSoftDomains && len(c.alts) > 1 {
		// Karpenter counts a soft spread's domains from the term it tries.
		s.topo.SoftDomainsFrom(&c.alts[a.alt])
		defer s.topo.SoftDomainsFrom(nil)
	}
	if en := s.findExisting(pp, a); en != nil {
		return true
	}
	var nc evaluation
	haveNew := false
	if a.allowNew {
		nc, haveNew = s.newOf(a)
	}
	if s.cfg.joinFewest {
		return s.joinFewestOrNew(pp, a, nc, haveNew)
	}
	// A new claim's price caps what growing a planned claim may cost,
	// which bounds the search.
	maxDelta := math.Inf(1)
	if haveNew && !s.cfg.joinPlanned {
		maxDelta = (nc.price + s.cfg.nodeCost) * (1 + upgradeSlack)
	}
	var best evaluation
	found := false
	for _, p := range s.pools {
		if !s.poolTolerated(c, p, a.level) || len(p.buckets) == 0 {
			continue
		}
		if s.cfg.joinPlanned && haveNew && p.tmpl.Weight < nc.pool.tmpl.Weight {
			break // weight orders the pools: a lighter pool's claim never beats a heavier one's new claim here
		}
		md := maxDelta
		if s.fills(p) {
			md = math.Inf(1)
		}
		ev, ok := s.findClaim(pp, a, p, md)
		if ok && (!found || better(ev, best)) {
			best, found = ev, true
			if best.delta <= priceEps {
				break
			}
		}
	}
	switch {
	case found && (best.delta <= priceEps || !haveNew || s.cfg.joinPlanned || s.fills(best.pool) || !newIsCheaper(nc.price+s.cfg.nodeCost, best.delta)):
		s.commit(pp, a, best)
		return true
	case haveNew:
		s.commit(pp, a, nc)
		return true
	}
	return false
}

// newOf evaluates a new claim for the attempt in the first NodePool by
// weight that can take the pod. Weight is the user's order; between pools
// of one weight Karpenter goes by name (descending), which says nothing of
// the user's: a 14-cpu pod took a 96-cpu type ($1.79/h) of the pool named
// last where another pool of the same weight had a 16-cpu one ($0.31/h).
// Under cheapTies the pod takes, of the NodePools of that weight, the one
// whose claim costs least (the first on a tie); otherwise the first plan
// of the solve to find one that would have cost less raises tieSeen (the
// others stop looking), and Solve then also solves with cheapTies and keeps
// the better (orCheapTies). The plan that packs like Karpenter keeps
// Karpenter's order.
func (s *solver) newOf(a attempt) (nc evaluation, haveNew bool) {
	for _, p := range s.pools {
		if haveNew && (s.cfg.joinPlanned || s.cfg.nameOrderTies || p.tmpl.Weight != nc.pool.tmpl.Weight || (!s.cfg.cheapTies && s.cfg.sawTie())) {
			break
		}
		if !s.poolTolerated(a.c, p, a.level) {
			continue
		}
		ev, ok := s.evalNew(a, p)
		switch {
		case !ok:
		case !haveNew:
			nc, haveNew = ev, true
		case ev.price < nc.price-priceEps:
			if !s.cfg.cheapTies {
				s.cfg.noteTie()
				return nc, true
			}
			nc = ev
		}
	}
	return nc, haveNew
}

// fills reports whether planned claims of pool p take pods before a new
// claim does, whatever they grow to: in the plan made for NodePools whose
// limits bind, every new node spends the limit on its own overhead.
func (s *solver) fills(p *pool) bool {
	return s.cfg.fillBounded && p.bounded()
}

// poolTolerated reports whether the class's pods may use NodePool p at
// the relaxation level: they tolerate its taints, and the plan does not
// keep it for other pods (reserve.go).
func (s *solver) poolTolerated(c *class, p *pool, level int) bool {
	return s.tolerates(c, p, level) && !s.reservedFrom(c, p)
}

// tolerates reports whether the class's pods tolerate p's taints at the
// relaxation level (poolTolerated without the reserve).
func (s *solver) tolerates(c *class, p *pool, level int) bool {
	if _, bad := requirements.UntoleratedTaint(p.tmpl.Taints, c.tolerations); bad {
		return false
	}
	if p.preferNo && !c.toleratesPreferNoSchedule(level) {
		if _, bad := requirements.UntoleratedPreference(p.tmpl.Taints, c.tolerations); bad {
			return false
		}
	}
	return true
}

// findExisting places the pod on the first existing node that takes it.
func (s *solver) findExisting(pp *pending, a attempt) *existingNode {
	st := s.staticScan(a)
	for _, en := range st.nodes {
		if en != s.avoidNode && s.existingFits(a, en) {
			s.putExisting(pp, a, en)
			return en
		}
	}
	for st.next < len(s.existing) {
		en := s.existing[st.next]
		st.next++
		if !s.existingStatic(a, en) {
			continue
		}
		st.nodes = append(st.nodes, en)
		if en != s.avoidNode && s.existingFits(a, en) {
			s.putExisting(pp, a, en)
			return en
		}
	}
	return nil
}

// staticScan is, for the attempts alike for existingStatic (class,
// requirements, whether PreferNoSchedule taints are tolerated), the
// existing nodes it admits among the first next of s.existing, in order:
// the pods of a class scan the same nodes again and again, and what
// existingStatic says of a node never changes within a solve.
type staticScan struct {
	nodes []*existingNode
	next  int
}

type staticScanKey struct {
	c        *class
	reqID    int32
	preferNo bool
}

func (s *solver) staticScan(a attempt) *staticScan {
	k := staticScanKey{a.c, a.reqID, a.c.toleratesPreferNoSchedule(a.level)}
	st := s.staticScans[k]
	if st == nil {
		if s.staticScans == nil {
			s.staticScans = map[staticScanKey]*staticScan{}
		}
		st = &staticScan{}
		s.staticScans[k] = st
	}
	return st
}

// existingStatic reports whether an existing node could ever take the
// attempt's pods, room aside: readiness, taints and labels.
func (s *solver) existingStatic(a attempt, en *existingNode) bool {
	c := a.c
	if _, bad := requirements.UntoleratedTaint(en.taints, c.tolerations); bad {
		return false
	}
	if !c.toleratesPreferNoSchedule(a.level) {
		if _, bad := requirements.UntoleratedPreference(en.taints, c.tolerations); bad {
			return false
		}
	}
	return s.reqs.info(a.reqID).reqs.Matches(en.labels)
}

// existingAdmits reports whether an existing node takes the attempt's pod
// now: room, taints, labels, host ports and topology.
func (s *solver) existingAdmits(a attempt, en *existingNode) bool {
	return a.c.requests.Fits(en.free) && s.existingStatic(a, en) && s.existingFits(a, en)
}

// existingFits is existingAdmits without the static checks: room, host
// ports and topology.
func (s *solver) existingFits(a attempt, en *existingNode) bool {
	c := a.c
	if !c.requests.Fits(en.free) {
		return false
	}
	if _, clash := portsConflict(en.ports, c.ports); clash {
		return false
	}
	host := topology.Host{Node: en.topo, NodeDomains: &en.doms}
	_, v := s.topo.Check(c.topo, a.active, &host, nil)
	return v == nil
}

// putExisting places pp on an existing node (the one place that does).
func (s *solver) putExisting(pp *pending, a attempt, en *existingNode) {
	c := a.c
	en.free = en.free.Sub(c.requests)
	en.ports = append(en.ports, c.ports...)
	en.placed = append(en.placed, pp)
	pp.node = en
	c.placedN++
	pp.att = placedAttempt{alt: a.alt, level: a.level, reqID: a.reqID}
	host := topology.Host{Node: en.topo, NodeDomains: &en.doms}
	s.topo.Record(c.topo, a.active, &host)
}

// priceEps absorbs float noise when prices are compared.
const priceEps = 1e-9

// upgradeSlack is how much more (relatively) growing a planned claim may
// cost than opening a new one and still be preferred: catalog prices are
// rounded per type, so "twice the size" is rarely exactly twice the price,
// and the room an upgrade leaves serves the pods that follow, on fewer nodes
// (less DaemonSet overhead).
const upgradeSlack = 0.01

// newIsCheaper reports whether a new claim costing newCost beats growing a
// planned claim by delta.
func newIsCheaper(newCost, delta float64) bool {
	return newCost*(1+upgradeSlack) < delta-priceEps
}

// better orders candidate claims: the smaller price increase, then the
// fuller instance type afterwards (best fit), then the earlier claim.
func better(a, b evaluation) bool {
	if a.delta < b.delta-priceEps {
		return true
	}
	if a.delta > b.delta+priceEps {
		return false
	}
	return a.waste < b.waste
}

// findClaim returns the best planned claim of pool p for the pod: the one
// whose instance type grows the least in price (none, when the pod fits the
// room it has), then the fullest afterwards.
//
// Each bucket's claims are examined newest first (partly filled claims are
// the recent ones), at most claimsExamined in all, stopping at the first
// claim the pod fits without growing. A claim that refuses the pod for good
// (resources at the largest type, host ports, required anti-affinity) and
// sits at the front of its bucket is skipped by the pod's class from then on,
// and so is a bucket none of whose types holds the pod alone, without
// examining its claims.
func (s *solver) findClaim(pp *pending, a attempt, p *pool, maxDelta float64) (evaluation, bool) {
	c := a.c
	q := claimSearch{a: a, maxDelta: maxDelta, grow: s.growScratch[:0]}
	defer func() { s.growScratch = q.grow[:0] }()
	for _, b := range p.buckets {
		ck := cursorKey{a.reqID, int32(b.idx)}
		cur := c.cursors[ck]
		if cur >= len(b.claims) || q.examined >= claimsExamined {
			continue
		}
		be, ok, perm := s.evalBucket(a, b)
		if !ok {
			if perm {
				c.cursors[ck] = len(b.claims)
			}
			continue
		}
		if !c.requests.Fits(be.maxUsable) {
			// No type of the bucket holds the pod even alone (a resource
			// none of them has): none of its claims can take it, and
			// examining them would spend the budget the other buckets need.
			if !be.pinned {
				c.cursors[ck] = len(b.claims)
			}
			continue
		}
		permFrom, done := s.scanBucket(&q, b, &be, cur)
		if done {
			return q.ev, true
		}
		if permFrom == cur {
			// Everything from the cursor on refused for good: skip it next time.
			c.cursors[ck] = len(b.claims)
			continue
		}
		if be.pinned && s.rescanForClaim(&q, b, &be, cur) {
			return q.ev, true
		}
	}
	for _, g := range q.grow {
		if ok, _ := s.evalInBucket(&q.a, g.cl, &g.be, maxDelta, &q.ev); ok && (!q.found || better(q.ev, q.best)) {
			q.best, q.found = q.ev, true
		}
	}
	return q.best, q.found
}

// rescanForClaim scans bucket b again when topology pinned the pod's
// placement there to a domain chosen for the pod alone: among domains of
// equal count the cheapest for the pod may be one where the bucket's claims,
// which already hold other pods, cannot launch their type (a large type's
// spot offering missing in the zone), while another domain of the same
// count holds them. The domains are ranked again, the ties among them by the
// newest live claim with its pods, and the bucket is scanned with that pin
// when it differs;
// it reports done when a claim there holds the pod without growing (the
// search is otherwise left as it was).
func (s *solver) rescanForClaim(q *claimSearch, b *bucket, be *bucketEval, cur int) bool {
	i := b.prevLive(len(b.claims) - 1)
	for ; i >= cur && b.deadEntry(i); i = b.prevLive(i - 1) {
	}
	if i < cur {
		return false
	}
	used := b.claims[i].used
	be2, ok, _ := s.evalBucketWith(q.a, b, &used)
	if !ok || be2.id == be.id || !q.a.c.requests.Fits(be2.maxUsable) {
		return false
	}
	saved := *q
	if _, done := s.scanBucket(q, b, &be2, cur); done {
		return true
	}
	// Only a claim that holds the pod as it is counts: a claim grown in
	// the other domain is compared with the rest no better than before.
	*q = saved
	q.grow = q.grow[:len(saved.grow)]
	return false
}

// tieBreak ranks domains by first, and breaks exact ties by then: then's
// rank, bounded, adds less than any difference of prices first can make
// (catalog prices have six decimals), and a domain then finds no type in
// ranks after every one it does.
func tieBreak(first, then topology.Ranker) topology.Ranker {
	return func(pins []requirements.Requirement, key, value string) float64 {
		r := first(pins, key, value)
		if math.IsInf(r, 1) {
			return r
		}
		return r + min(then(pins, key, value), tieBreakCap)*tieBreakScale
	}
}

// tieBreakCap and tieBreakScale bound what tieBreak adds to a rank: under
// 1e-8, below the smallest difference of two prices.
const (
	tieBreakCap   = 1e4
	tieBreakScale = 1e-12
)

// claimSearch is findClaim's state across buckets: the best evaluation so
// far, the claims examined, and those that would need a larger type.
type claimSearch struct {
	a        attempt
	maxDelta float64
	best, ev evaluation
	found    bool
	examined int
	grow     []grown
}

// scanBucket examines bucket b's claims from the newest down to cur. It
// returns the lowest index from which every examined claim refused the
// pod for good, and done when the pod fits a claim without growing it
// (q.ev is that claim's evaluation).
func (s *solver) scanBucket(q *claimSearch, b *bucket, be *bucketEval, cur int) (permFrom int, done bool) {
	c := q.a.c
	permFrom = len(b.claims)
	for i := len(b.claims) - 1; i >= cur && q.examined < claimsExamined; i-- {
		if j := max(b.prevLive(i), cur-1); j < i {
			// Entries j+1..i are dead.
			if permFrom == i+1 {
				permFrom = j + 1
			}
			if i = j; i < cur {
				break
			}
		}
		if b.deadEntry(i) {
			if permFrom == i+1 {
				permFrom = i
			}
			continue
		}
		cl := b.claims[i]
		if cl == s.avoidClaim || cl == s.emptying {
			continue // not refused for good
		}
		q.examined++
		if !cl.used.FitsSum(&c.requests, &be.maxUsable) {
			if permFrom == i+1 {
				permFrom = i
			}
			continue
		}
		if !cl.used.FitsSum(&c.requests, &cl.pool.usable[cl.typ]) {
			// It would need a larger type: compare it later, with a few others.
			if len(q.grow) < claimsGrown {
				q.grow = append(q.grow, grown{cl, *be})
			}
			continue
		}
		ok, mono := s.evalInBucket(&q.a, cl, be, q.maxDelta, &q.ev)
		if !ok {
			if mono && permFrom == i+1 {
				permFrom = i
			}
			continue
		}
		if q.ev.delta <= priceEps {
			return permFrom, true
		}
		if !q.found || better(q.ev, q.best) {
			q.best, q.found = q.ev, true
		}
	}
	return permFrom, false
}

// grown is a planned claim that would need a larger instance type.
type grown struct {
	cl *claim
	be bucketEval
}

// claimsGrown bounds how many claims that would need a larger instance type
// one pod compares.
const claimsGrown = 8

// claimsExamined bounds how many planned claims one pod looks at.
const claimsExamined = 64

// bucketEval is what a pod's placement on any claim of one bucket shares:
// the requirements after intersection and topology pins (every key but
// hostname).
type bucketEval struct {
	id        int32
	pinned    bool
	maxUsable binpack.Vec
	// charged: the pins came from plannedRanker (config.joinCharged), so
	// a claim of the bucket takes the pod only on a type that spends no
	// more of its pool's limits than the claim is charged.
	charged bool
}

// evalBucket checks the pod against the requirements every claim of bucket b
// shares. perm reports a refusal that can only persist (the pod's class may
// skip the bucket's current claims for good).
func (s *solver) evalBucket(a attempt, b *bucket) (be bucketEval, ok, perm bool) {
	return s.evalBucketWith(a, b, nil)
}

// evalBucketWith is evalBucket with the ties between topology's domains
// broken for a claim whose pods already use *used (nil: for the pod alone,
// and no tie-break).
func (s *solver) evalBucketWith(a attempt, b *bucket, used *binpack.Vec) (be bucketEval, ok, perm bool) {
	return s.evalBucketRanked(a, b, func(id int32) topology.Ranker {
		rank := s.ranker(id, a.c)
		if used != nil {
			rank = tieBreak(rank, s.rankerNeed(id, a.c, used.Add(a.c.requests), ""))
		}
		return rank
	})
}

// evalBucketRanked is evalBucketWith with topology's choices (domains, a
// spread filter's pins) ranked by rankFor's ranker for the requirements.
func (s *solver) evalBucketRanked(a attempt, b *bucket, rankFor func(id int32) topology.Ranker) (be bucketEval, ok, perm bool) {
	id := s.reqs.compat(b.reqID, a.reqID)
	if id < 0 {
		return be, false, true
	}
	if a.c.topo.Relevant() {
		info := s.reqs.info(id)
		host := topology.Host{Hostname: newHost, Requirements: info.reqs, Taints: b.pool.tmpl.Taints, Domains: info, Decided: &info.decided, LookAhead: s.lookAhead}
		rank := rankFor(id)
		pins, v := s.topo.CheckScope(a.c.topo, a.active, &host, rank, topology.ExceptHostname)
		if v != nil && s.lookAhead {
			pins, v = s.checkHolding(a, b, id, host, pins, v)
		}
		if v != nil && (s.lookAhead || s.cfg.joinCharged) && v.NoInstanceType() && b.pool.limited {
			pins, v = s.topo.CheckScope(a.c.topo, a.active, &host, s.plannedRanker(id, a.c), topology.ExceptHostname)
			be.charged = v == nil && !s.lookAhead
		}
		if v != nil {
			return be, false, v.Permanent
		}
		if len(pins) > 0 {
			id = s.reqs.and(id, s.reqs.intern(requirements.NewRequirements(pins...), nil))
			if id < 0 {
				return be, false, false
			}
			be.pinned = true
		}
	}
	info := s.reqs.info(id)
	info.typeSet(s)
	be.id, be.maxUsable = id, info.maxUsable
	return be, true, false
}

// evalClaim evaluates adding the pod to a planned claim (the improvement
// phase's moves: the bucket's part answered from the attempt's memo).
func (s *solver) evalClaim(a attempt, cl *claim) (evaluation, bool) {
	var m *moveMemo
	if s.noRoom != nil && s.remembers(cl.pool) {
		m = s.moveMemo(a)
	}
	be, ok := s.checkBucket(a, cl.bucket, m)
	if !ok {
		return evaluation{}, false
	}
	var ev evaluation
	ok, _ = s.evalInBucket(&a, cl, &be, math.Inf(1), &ev)
	if !ok && be.pinned {
		// The pins were chosen for the pod alone: a spread filter entered
		// by a term whose types the pod fits but not with the claim's
		// pods (seed 55679: integer Lt 5 for a pod joining an r8). Choose
		// them again for what the claim must hold.
		need := cl.used.Add(a.c.requests)
		if be, ok, _ = s.evalBucketRanked(a, cl.bucket, func(id int32) topology.Ranker { return s.rankerNeed(id, a.c, need, "") }); ok {
			ok, _ = s.evalInBucket(&a, cl, &be, math.Inf(1), &ev)
		}
	}
	return ev, ok
}

// evalInBucket evaluates the claim-specific part: host ports, hostname
// topology and the instance type that fits, into *ev when ok (a, be and ev
// are pointers because the moves call it millions of times).
func (s *solver) evalInBucket(a *attempt, cl *claim, be *bucketEval, maxDelta float64, ev *evaluation) (ok, mono bool) {
	c := a.c
	if _, clash := portsConflict(cl.ports, c.ports); clash {
		return false, true
	}
	id := be.id
	if c.topo.Relevant() {
		info := s.reqs.info(id)
		host := topology.Host{Hostname: cl.host, HostnameDomain: &cl.hostDom, Requirements: info.reqs, Taints: cl.pool.tmpl.Taints, Decided: &info.decided}
		if _, v := s.topo.CheckScope(c.topo, a.active, &host, nil, topology.HostnameOnly); v != nil {
			return false, v.Permanent
		}
	}
	need := cl.used.Add(c.requests)
	from := 0
	if id == cl.reqID {
		from = cl.pos
	}
	// The type must suit the host ports of every pod of the claim, not
	// only the newcomer's: a DaemonSet of the type may hold a port a pod
	// already on the claim holds.
	ports := cl.ports
	if len(c.ports) > 0 {
		ports = append(slices.Clone(cl.ports), c.ports...)
	}
	t, pos, price, fits := s.cheapestFit(ports, cl.pool, id, need, &cl.charged, from, cl.price+maxDelta, cl)
	if !fits || ((be.charged || s.fills(cl.pool)) && !cl.pool.spendsNoMore(s.idx.Capacity(t), cl.charged)) || s.leavesReservations(cl, id, need) {
		return false, false
	}
	if _, ok := s.chargeFor(cl.pool, id, need, t, ports, &cl.charged); !ok {
		return false, false
	}
	*ev = evaluation{claim: cl, pool: cl.pool, reqID: id, typ: t, pos: pos, price: price, delta: price - cl.price, need: need, pins: be.pinned,
		waste: slackShare(need, cl.pool.usable[t])}
	return true, false
}

// evalNew evaluates a new claim of pool p for the pod.
func (s *solver) evalNew(a attempt, p *pool) (evaluation, bool) {
	c := a.c
	if p.nodesLeft == 0 || p.types.IsEmpty() {
		return evaluation{}, false
	}
	id := s.reqs.compat(p.reqID, a.reqID)
	if id < 0 {
		return evaluation{}, false
	}
	if c.topo.Relevant() {
		info := s.reqs.info(id)
		host := topology.Host{Hostname: newHost, Requirements: info.reqs, Taints: p.tmpl.Taints, Domains: info, Decided: &info.decided, LookAhead: s.lookAhead}
		pins, v := s.topo.Check(c.topo, a.active, &host, s.ranker(id, c))
		if v != nil {
			return evaluation{}, false
		}
		if len(pins) > 0 {
			id = s.reqs.and(id, s.reqs.intern(requirements.NewRequirements(pins...), nil))
			if id < 0 {
				return evaluation{}, false
			}
		}
	}
	var zero binpack.Vec
	t, pos, price, fits := s.cheapestFit(c.ports, p, id, c.requests, &zero, 0, math.Inf(1), nil)
	if !fits {
		return evaluation{}, false
	}
	if s.wholeGroup && !s.groupHeld(a, p, id) {
		return evaluation{}, false // hostgroup.go
	}
	if s.fills(p) && !s.hasReservations {
		if o, ok := s.limitSized(c, p, id); ok {
			t, pos, price = o.t, o.pos, o.price
		}
	}
	if s.cfg.packLargest && p.bounded() && !s.hasReservations {
		if o, ok := s.largestWithin(c, p, id); ok {
			t, pos, price = o.t, o.pos, o.price
		}
	}
	if _, ok := s.chargeFor(p, id, c.requests, t, c.ports, &zero); !ok {
		return evaluation{}, false
	}
	return evaluation{pool: p, reqID: id, typ: t, pos: pos, price: price, delta: price, need: c.requests}, true
}

// slackShare is the unused share of cpu plus that of memory.
func slackShare(need, usable binpack.Vec) float64 {
	w := 0.0
	for d := 0; d < 2; d++ {
		if usable[d] > 0 {
			w += float64(usable[d]-need[d]) / float64(usable[d])
		}
	}
	return w
}

// newHost is the hostname a new claim is checked under: a domain no pod is
// ever recorded in.
const newHost = "\x00new"

// cheapestFit returns the cheapest instance type of the set id (of pool p)
// whose usable capacity holds need and whose capacity stays within the pool's
// limits given what the claim is already charged, scanning the price order
// from position from.
func (s *solver) cheapestFit(ports []hostPort, p *pool, id int32, need binpack.Vec, charged *binpack.Vec, from int, maxPrice float64, holder *claim) (t, pos int, price float64, ok bool) {
	info := s.reqs.info(id)
	info.typeSet(s)
	if !need.Fits(info.maxUsable) {
		return 0, 0, 0, false
	}
	scan := info.scanFor(s, p)
	var left binpack.ReservationsLeft
	if s.hasReservations {
		left = s.leftFor(holder) // once, not per type
	}
	for i := from; ; i++ {
		var ok bool
		if i, ok = nextFit(scan, info.blocks, i, &need, maxPrice); !ok {
			return 0, 0, 0, false
		}
		m := &scan[i]
		tt := int(m.t)
		if !need.Fits(p.usable[tt]) {
			continue
		}
		if p.limited {
			capT := s.idx.Capacity(tt)
			if !p.withinLimits(&capT, charged) {
				continue
			}
		}
		if len(ports) > 0 && s.dsPortClash(p, tt, ports) {
			continue
		}
		pr := m.price
		if s.hasReservations {
			// Reservations other claims fill are not for this one.
			pr, _, _ = s.idx.Cheapest(tt, info.offer, left)
		}
		if math.IsInf(pr, 1) {
			continue
		}
		return tt, i, pr, true
	}
}

func (s *solver) dsPortClash(p *pool, t int, ports []hostPort) bool {
	for _, d := range p.dsSets[t] {
		if _, clash := portsConflict(s.daemonSets[d].HostPorts(), ports); clash {
			return true
		}
	}
	return false
}

// chargeFor returns the capacity a claim of pool p with requirements id,
// holding need on its cheapest type t, is charged against the pool's
// limits, and whether it can be placed at all. Without minValues it is t's
// capacity. With minValues (Strict) the claim lists at least the cheapest
// options that meet them, any of which the cloud may launch, so it is
// charged the largest capacity among them (as Karpenter subtracts the
// largest option), and it cannot be placed when the options that fit need
// within the limits left to it (charged: what it holds now), capped at the
// number of options, fall short.
func (s *solver) chargeFor(p *pool, id int32, need binpack.Vec, t int, ports []hostPort, charged *binpack.Vec) (binpack.Vec, bool) {
	capT := s.idx.Capacity(t)
	if len(p.minValues) == 0 || s.cfg.minValues == MinValuesBestEffort {
		return capT, true
	}
	info := s.reqs.info(id)
	info.typeSet(s)
	prices := s.idx.Prices(info.offer)
	set := binpack.NewTypeSet(s.idx.Len())
	charge, n := capT, 0
	for _, t32 := range info.members {
		tt := int(t32)
		if n >= s.cfg.maxOptions {
			break
		}
		capTT := s.idx.Capacity(tt)
		if math.IsInf(prices[tt], 1) || !s.optionFits(p, tt, need, false, nil, ports) || !p.withinLimits(&capTT, charged) {
			continue
		}
		set.Set(tt)
		charge, n = charge.Max(capTT), n+1
		if _, ok := s.minValuesShort(p, info.reqs, set); ok {
			return charge, p.withinLimits(&charge, charged)
		}
	}
	return capT, false
}

// optionFits is the test an instance type passes to be one of a NodeClaim's
// options: it holds need with DaemonSet overhead, spends no more of the
// pool's limits than the claim is charged (when capped: capChosen), and its
// DaemonSets take none of ports.
func (s *solver) optionFits(p *pool, t int, need binpack.Vec, capped bool, capChosen *binpack.Vec, ports []hostPort) bool {
	if u := &p.usable[t]; need[0] > u[0] || need[1] > u[1] || !need.Fits(*u) {
		return false
	}
	if capped && p.limited && !p.spendsNoMore(s.idx.Capacity(t), *capChosen) {
		return false
	}
	return len(ports) == 0 || !s.dsPortClash(p, t, ports)
}

// minValuesShort returns the first minValues requirement the types of set
// fall short of.
func (s *solver) minValuesShort(p *pool, reqs requirements.Requirements, set binpack.TypeSet) (string, bool) {
	for _, mv := range p.minValues {
		key := mv.Key()
		r := reqs.Get(key)
		var n int
		switch {
		case s.idx.IsLabelKey(key):
			for _, v := range s.idx.LabelValues(key, set) {
				if r.Has(v) {
					n++
				}
			}
		case key == requirements.LabelInstanceType:
			n = set.Count()
		case key == requirements.LabelTopologyZone || key == requirements.LabelCapacityType || key == instancetypes.LabelZoneID:
			zones := make([]bool, len(s.idx.Zones()))
			cts := make([]bool, len(s.idx.CapacityTypes()))
			s.idx.MarkOfferedSet(set, binpack.NewOfferFilter(s.idx, reqs), zones, cts)
			flags := zones
			if key == requirements.LabelCapacityType {
				flags = cts
			}
			for _, f := range flags {
				if f {
					n++
				}
			}
		default:
			// No instance type carries the key: its types offer no value of
			// it, as Karpenter counts them (a template label does not count).
			return fmt.Sprintf("minValues %d of %s not met: no instance type carries the label", mv.MinValues(), key), false
		}
		if n < mv.MinValues() {
			return fmt.Sprintf("minValues %d of %s not met: %d available", mv.MinValues(), key, n), false
		}
	}
	return "", true
}

// ranker prices the domains topology may pin a claim to: the cheapest
// offering in the domain of an instance type of set id that holds need
// (+Inf when none does). Topology pins a claim only to a domain where the
// pod can launch, and among equally loaded domains to the cheapest. With
// minValuesPins (and in a pod's last try) a domain pin (key set), or the
// pins ranked alone that settle a spread's node filter (key "",
// topology/pod.go filterPins), whose types fall short of the NodePool's
// minValues is +Inf too: a claim narrowed out of the carriers' kind of node
// onto fewer types than minValues asks could take no pod, where one left
// open launches its cheapest option as Karpenter's does.
func (s *solver) ranker(id int32, c *class) topology.Ranker {
	return s.rankerFor(id, c, "")
}

// rankerFor is ranker for a check that counts one place of each
// reservation of held free (heldres.go).
func (s *solver) rankerFor(id int32, c *class, held heldRes) topology.Ranker {
	return s.rankerNeed(id, c, c.requests, held)
}

// rankerNeed is rankerFor for a claim whose usable capacity must hold need
// (the pod's requests and what a planned claim already holds).
func (s *solver) rankerNeed(id int32, c *class, need binpack.Vec, held heldRes) topology.Ranker {
	return func(pins []requirements.Requirement, key, value string) float64 {
		if key == requirements.LabelHostname {
			return 0
		}
		if key != "" && value == "" && s.cfg.karpenterRelaxation {
			return math.Inf(1) // Karpenter launches no NodeClaim into an empty label value
		}
		_, ranks := s.reqs.info(id).topoMemos()
		dense := s.densePin(c, key)
		// The last try (placeAhead) ranks as the minValuesPins plan does: a
		// domain that leaves too few types for minValues is no domain.
		minValues := s.cfg.minValuesPins || s.lookAhead
		mk := rankKey{key: key, value: value, need: need, pins: pinsKey(pins), minValues: minValues, held: held}
		if dense {
			mk.pods = len(c.pods) - c.placedN
		}
		if r, ok := ranks[mk]; ok {
			return r
		}
		all := slices.Clip(pins)
		if key != "" {
			all = append(all, requirements.In(key, value))
		}
		var r float64
		if dense {
			r = s.domainPricePerPod(id, all, need, mk.pods, held)
		} else {
			r = s.domainPrice(id, all, need, held)
		}
		if minValues && len(all) > 0 && !math.IsInf(r, 1) && !s.domainKeepsMinValues(id, all, need) {
			r = math.Inf(1)
		}
		ranks[mk] = r
		return r
	}
}

// pinsKey identifies a list of pins for a memo ("" for none, the common case).
func pinsKey(pins []requirements.Requirement) string {
	if len(pins) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range pins {
		b.WriteString(p.String())
		b.WriteByte(0)
	}
	return b.String()
}

// domainPrice is the cheapest launchable price of a node of set id that
// also meets pins (one value per key) and whose usable capacity holds need,
// within the pool's limits (+Inf when none), one place of each
// reservation of held counted free.
func (s *solver) domainPrice(id int32, pins []requirements.Requirement, need binpack.Vec, held heldRes) float64 {
	var zero binpack.Vec
	return s.domainPriceHolding(id, pins, need, &zero, held)
}

// domainPriceCharged is domainPrice for a claim already charged the
// capacity charged against its pool's limits (nil: limits aside).
func (s *solver) domainPriceCharged(id int32, pins []requirements.Requirement, need binpack.Vec, charged *binpack.Vec) float64 {
	return s.domainPriceHolding(id, pins, need, charged, "")
}

// domainPriceHolding is domainPriceCharged with one place of each
// reservation of held counted free.
func (s *solver) domainPriceHolding(id int32, pins []requirements.Requirement, need binpack.Vec, charged *binpack.Vec, held heldRes) float64 {
	info, d, early, ok := s.domainScanOf(id, pins, held)
	if !ok {
		return early
	}
	p, labelPins, f, left, prices := info.pool, d.labelPins, d.f, d.left, d.prices
	best := math.Inf(1)
	for _, t32 := range info.members {
		t := int(t32)
		if prices[t] >= best {
			break // members are in price order: the rest cost at least this
		}
		if u := &p.usable[t]; need[0] > u[0] || need[1] > u[1] || !need.Fits(*u) {
			continue
		}
		if p.limited && charged != nil {
			capT := s.idx.Capacity(t)
			if !p.withinLimits(&capT, charged) {
				continue
			}
		}
		if !typeHasLabels(s.idx.Type(t).Labels, labelPins) {
			continue
		}
		if pr, _, ok := s.idx.Cheapest(t, f, left); ok && pr < best {
			best = pr
		}
	}
	return best
}

// domainScan is what pricing a set's types in one domain reads: the pins
// on instance-type labels, the offering filter of the pinned requirements,
// the reservations left and the types' prices.
type domainScan struct {
	labelPins []requirements.Requirement
	f         binpack.OfferFilter
	left      binpack.ReservationsLeft
	prices    []float64
}

// domainScanOf prepares the scan of set id pinned to pins, one place of
// each reservation of held counted free; when there is nothing to scan it
// returns false with the price to report (0 for a set of no NodePool, +Inf
// when the pins leave no requirement set).
func (s *solver) domainScanOf(id int32, pins []requirements.Requirement, held heldRes) (*reqInfo, domainScan, float64, bool) {
	info := s.reqs.info(id)
	if info.pool == nil {
		return info, domainScan{}, 0, false
	}
	info.typeSet(s)
	reqs, labelPins := s.withPins(info.reqs, pins)
	if _, empty := reqs.Empty(); empty {
		return info, domainScan{}, math.Inf(1), false
	}
	d := domainScan{labelPins: labelPins, f: binpack.NewOfferFilter(s.idx, reqs), prices: s.idx.Prices(info.offer)}
	if s.hasReservations {
		d.left = s.leftHolding(held)
	}
	return info, d, 0, true
}

// withPins returns reqs with pins added, and the pins on keys that are
// instance-type labels (checked against each type's labels).
func (s *solver) withPins(reqs requirements.Requirements, pins []requirements.Requirement) (requirements.Requirements, []requirements.Requirement) {
	var labelPins []requirements.Requirement
	for _, pin := range pins {
		reqs = reqs.Add(pin)
		if s.idx.IsLabelKey(pin.Key()) {
			labelPins = append(labelPins, pin)
		}
	}
	return reqs, labelPins
}

// domainKeepsMinValues reports whether a claim of set id pinned to a
// domain (pins, one value per key) can still list options that hold need
// and meet its NodePool's minValues (Strict), as chargeFor requires: a
// domain that leaves too few types is no domain to pin a claim to, however
// cheap its cheapest type. A set that falls short unpinned is not judged
// here (no domain can help it). Limits are chargeFor's: what a planned
// claim may spend depends on what it is charged already.
func (s *solver) domainKeepsMinValues(id int32, pins []requirements.Requirement, need binpack.Vec) bool {
	info := s.reqs.info(id)
	p := info.pool
	if p == nil || len(p.minValues) == 0 || s.cfg.minValues == MinValuesBestEffort {
		return true
	}
	info.typeSet(s)
	if !s.meetsMinValues(info, info.reqs, info.offer, nil, need) {
		return true
	}
	reqs, labelPins := s.withPins(info.reqs, pins)
	if _, empty := reqs.Empty(); empty {
		return false
	}
	return s.meetsMinValues(info, reqs, binpack.NewOfferFilter(s.idx, reqs), labelPins, need)
}

// meetsMinValues reports whether the types of set info that have an
// offering under f, carry labelPins and hold need meet the minValues of
// info's NodePool under reqs.
func (s *solver) meetsMinValues(info *reqInfo, reqs requirements.Requirements, f binpack.OfferFilter, labelPins []requirements.Requirement, need binpack.Vec) bool {
	p := info.pool
	prices := s.idx.Prices(f)
	set := binpack.NewTypeSet(s.idx.Len())
	for _, t32 := range info.members {
		t := int(t32)
		if math.IsInf(prices[t], 1) || !s.optionFits(p, t, need, false, nil, nil) || !typeHasLabels(s.idx.Type(t).Labels, labelPins) {
			continue
		}
		set.Set(t)
		if _, ok := s.minValuesShort(p, reqs, set); ok {
			return true
		}
	}
	return false
}

// typeHasLabels reports whether an instance type's labels meet every pin.
func typeHasLabels(labels map[string]string, pins []requirements.Requirement) bool {
	for _, pin := range pins {
		if v, ok := labels[pin.Key()]; !ok && !pin.AllowsAbsent() || ok && !pin.Has(v) {
			return false
		}
	}
	return true
}

// commit applies an evaluation: the one place a placement changes state.
func (s *solver) commit(pp *pending, a attempt, ev evaluation) {
	c := a.c
	cl := ev.claim
	s.note(cl)
	if cl == nil {
		cl = &claim{id: len(s.claims), pool: ev.pool, reqID: -1}
		cl.host = fmt.Sprintf("nodeplan-claim-%d", cl.id)
		s.claims = append(s.claims, cl)
		ev.pool.takeNode()
	}
	capT, _ := s.chargeFor(cl.pool, ev.reqID, ev.need, ev.typ, append(slices.Clip(cl.ports), c.ports...), &cl.charged)
	if s.cfg.karpenterRelaxation && cl.pool.limited {
		// Karpenter charges a NodeClaim the largest of its options (within
		// the limits) while it schedules; the plan refits them after.
		if ev.claim == nil {
			capT = capT.Max(s.largestOption(cl.pool, ev.reqID, ev.need))
		} else {
			capT = capT.Max(cl.charged)
		}
	}
	cl.pool.charge(&capT, &cl.charged)
	cl.charged = capT
	if cl.reqID != ev.reqID {
		s.rebucket(cl, ev.reqID)
	}
	cl.used = ev.need
	cl.typ, cl.pos, cl.price = ev.typ, ev.pos, ev.price
	s.reindex(cl)
	cl.pods = append(cl.pods, pp)
	s.updateHold(cl)
	cl.ports = append(cl.ports, c.ports...)
	pp.claim = cl
	c.placedN++
	pp.att = placedAttempt{alt: a.alt, level: a.level, reqID: a.reqID}
	if c.topo.Relevant() {
		host := s.claimHost(cl)
		s.topo.Record(c.topo, a.active, &host)
	}
}

// anyPreferNoScheduleTaint reports whether some pool or node carries a
// PreferNoSchedule taint (only then is tolerating them a relaxation step).
func anyPreferNoScheduleTaint(pools []*pool, nodes []*existingNode) bool {
	for _, p := range pools {
		if p.preferNo {
			return true
		}
	}
	for _, n := range nodes {
		for _, t := range n.taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				return true
			}
		}
	}
	return false
}

// leftFor says how many instances each reservation can still host for a
// claim: its capacity minus the claims holding it, plus the place the claim
// itself holds (nil: a claim that holds none).
func (s *solver) leftFor(cl *claim) binpack.ReservationsLeft {
	return func(id string) int {
		n := s.resCap[id] - s.resHeld[id]
		if cl != nil && cl.resID == id {
			n++
		}
		return n
	}
}

// updateHold makes the claim hold the reservation of its cheapest offering
// (or none), releasing the one it held.
func (s *solver) updateHold(cl *claim) {
	if !s.hasReservations {
		return
	}
	want := ""
	if !cl.dropped && len(cl.pods) > 0 {
		info := s.reqs.info(cl.reqID)
		info.typeSet(s)
		if _, off, ok := s.idx.Cheapest(cl.typ, info.offer, s.leftFor(cl)); ok {
			_, _, _, want = s.idx.Offering(cl.typ, off)
		}
	}
	if want == cl.resID {
		return
	}
	if old := cl.resID; old != "" {
		if s.resHeld[old] == s.resCap[old] {
			s.resVersion++ // it has a free place again
		}
		s.resHeld[old]--
	}
	if want != "" {
		s.resHeld[want]++
		if s.resHeld[want] == s.resCap[want] {
			s.resVersion++ // full
		}
	}
	cl.resID = want
}
