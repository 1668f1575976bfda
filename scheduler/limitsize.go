package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
)

// Limit-aware sizing. When a NodePool's limits bind, every node spends them
// on capacity its pods cannot use (overhead, and the remainder once no
// further pod fits), so the cheapest type for one pod is the wrong choice:
// nine 2-cpu nodes holding three or four 400m pods each spend an 18-cpu limit
// on 35 pods, where two 8-cpu nodes of sixteen and one 2-cpu node of four
// place all 36, for less. In the plan Solve makes for NodePools whose limits
// left pods unplaced, a new claim of a bounded NodePool takes the type that
// is cheapest per pod of its class (counting how many it holds), among the
// types that still leave room within the limits for the rest of the class's
// pods on the most limit-sparing type; when none does, the type that places
// the most of them within the limits.

// sizeOption is an instance type for a new claim, with the pods of the class
// it holds (at most those left) and what it costs.
type sizeOption struct {
	t, pos, k int
	price     float64
	capT      binpack.Vec
}

// limitSized picks a new claim's type for class c in pool p under the
// requirement set id.
func (s *solver) limitSized(c *class, p *pool, id int32) (sizeOption, bool) {
	opts := s.sizeOptions(c, p, id)
	if len(opts) == 0 {
		return sizeOption{}, false
	}
	left := len(c.pods) - c.placedN
	sparing := slices.Clone(opts)
	slices.SortStableFunc(sparing, func(x, y sizeOption) int { return cmp.Compare(p.limitShare(x), p.limitShare(y)) })
	sparing = sparing[:min(len(sparing), sizeSparing)]
	best, found := sizeOption{}, false
	for _, o := range opts {
		rest := left - o.k
		if rest > 0 && !p.restFits(rest, o.capT, sparing) {
			continue
		}
		if !found || o.price*float64(best.k) < best.price*float64(o.k)-priceEps {
			best, found = o, true
		}
	}
	if found {
		return best, true
	}
	// Nothing leaves room for all: place the most within the limits.
	most := -1
	for _, o := range opts {
		if n := p.placeable(o, left); n > most || (n == most && o.price*float64(best.k) < best.price*float64(o.k)-priceEps) {
			best, most = o, n
		}
	}
	return best, true
}

// largestWithin is the type of set id with the most capacity in the
// NodePool's limited resources (larger; then the cheapest) that holds a pod of c within the remaining limits.
func (s *solver) largestWithin(c *class, p *pool, id int32) (sizeOption, bool) {
	best, found := sizeOption{}, false
	for _, o := range s.sizeOptions(c, p, id) {
		if !found || p.larger(o.capT, best.capT) {
			best, found = o, true
		}
	}
	return best, found
}

// largestOption is, per resource, the largest capacity of the types of set
// id that hold need within the pool's remaining limits (what Karpenter
// takes off a NodePool's limits for a new NodeClaim).
func (s *solver) largestOption(p *pool, id int32, need binpack.Vec) binpack.Vec {
	info := s.reqs.info(id)
	info.typeSet(s)
	var zero, out binpack.Vec
	for _, t32 := range info.members {
		t := int(t32)
		if capT := s.idx.Capacity(t); need.Fits(p.usable[t]) && p.withinLimits(&capT, &zero) {
			out = out.Max(capT)
		}
	}
	return out
}

// larger reports whether capacity x exceeds y in the first limited
// resource they differ in, then in cpu, then in memory (a NodePool that
// limits only its nodes packs the most on each).
func (p *pool) larger(x, y binpack.Vec) bool {
	for _, d := range append(slices.Clip(p.limitDims), 0, 1) {
		if x[d] != y[d] {
			return x[d] > y[d]
		}
	}
	return false
}

// sizeSparing bounds the limit-sparing types the rest is tried on.
const sizeSparing = 8

// sizeOptions lists the types of set id that hold one pod of c within the
// pool's remaining limits, in price order, with the pods each holds.
func (s *solver) sizeOptions(c *class, p *pool, id int32) []sizeOption {
	info := s.reqs.info(id)
	info.typeSet(s)
	prices := s.idx.Prices(info.offer)
	left := len(c.pods) - c.placedN
	var zero binpack.Vec
	var out []sizeOption
	for i, t32 := range info.members {
		t := int(t32)
		if !c.requests.Fits(p.usable[t]) || math.IsInf(prices[t], 1) {
			continue
		}
		capT := s.idx.Capacity(t)
		if !p.withinLimits(&capT, &zero) || (len(c.ports) > 0 && s.dsPortClash(p, t, c.ports)) {
			continue
		}
		k := min(podsHeld(p.usable[t], c.requests), max(left, 1))
		if len(c.ports) > 0 {
			k = 1 // a host port allows one pod of the class per node
		}
		out = append(out, sizeOption{t: t, pos: i, k: k, price: prices[t], capT: capT})
	}
	return out
}

// podsHeld is how many pods of size need fit usable.
func podsHeld(usable, need binpack.Vec) int {
	k := math.MaxInt
	for d := range need {
		if need[d] > 0 {
			k = min(k, int(usable[d]/need[d]))
		}
	}
	return k
}

// limitShare is the largest share of a remaining limit one pod on o spends.
func (p *pool) limitShare(o sizeOption) float64 { return p.nodeShare(o.capT, float64(o.k)) }

// nodeShare is the largest share of a remaining limit (a limited resource,
// or the nodes left) that a node of capacity capT spends per pod when it
// holds k of them.
func (p *pool) nodeShare(capT binpack.Vec, k float64) float64 {
	share := 0.0
	for _, d := range p.limitDims {
		if p.remaining[d] > 0 {
			share = max(share, float64(capT[d])/k/float64(p.remaining[d]))
		}
	}
	if p.nodesLeft > 0 {
		share = max(share, 1/k/float64(p.nodesLeft))
	}
	return share
}

// restFits reports whether rest pods still fit within the limits left after
// a node of capacity used, on nodes of one of the sparing types.
func (p *pool) restFits(rest int, used binpack.Vec, sparing []sizeOption) bool {
	for _, o := range sparing {
		n := (rest + o.k - 1) / o.k
		if p.nodesLeft >= 0 && n > p.nodesLeft-1 {
			continue
		}
		ok := true
		for _, d := range p.limitDims {
			if int64(n)*o.capT[d] > p.remaining[d]-used[d] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// placeable is how many of left pods nodes of type o place within the
// pool's remaining limits.
func (p *pool) placeable(o sizeOption, left int) int {
	nodes := math.MaxInt
	for _, d := range p.limitDims {
		if o.capT[d] > 0 {
			nodes = min(nodes, int(p.remaining[d]/o.capT[d]))
		}
	}
	if p.nodesLeft >= 0 {
		nodes = min(nodes, p.nodesLeft)
	}
	if nodes == math.MaxInt {
		return left
	}
	return min(left, nodes*o.k)
}

// fillMayHelp reports whether an unplaced pod could use a bounded NodePool
// whose limits its claims spend on room no pod uses: the limit left plus
// that unused capacity would hold the pod (a nodes limit always may, since
// fuller nodes need fewer of them). Only then is the plan that fills claims
// first worth making.
func (s *solver) fillMayHelp() bool {
	var unplaced []*class
	for _, pp := range s.pending {
		if pp.claim == nil && pp.node == nil && pp.cls.invalid == nil && !slices.Contains(unplaced, pp.cls) {
			unplaced = append(unplaced, pp.cls)
		}
	}
	if len(unplaced) == 0 {
		return false
	}
	for _, p := range s.pools {
		if !p.bounded() {
			continue
		}
		spare := p.remaining
		for _, cl := range s.liveClaims() {
			if cl.pool == p {
				for _, d := range p.limitDims {
					spare[d] += cl.charged[d] - cl.used[d]
				}
			}
		}
		for _, c := range unplaced {
			if s.poolTolerated(c, p, len(c.steps)) && s.classFitsPool(c, p) && (p.nodesLeft >= 0 || fitsDims(c.requests, spare, p.limitDims)) {
				return true
			}
		}
	}
	return false
}

// classFitsPool reports whether some requirement alternative of c is
// compatible with pool p and one of its instance types holds a pod of c.
func (s *solver) classFitsPool(c *class, p *pool) bool {
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, len(c.steps), true)
		if !ok {
			continue
		}
		if id := s.reqs.compat(p.reqID, a.reqID); id >= 0 {
			info := s.reqs.info(id)
			info.typeSet(s)
			if c.requests.Fits(info.maxUsable) {
				return true
			}
		}
	}
	return false
}

// fitsDims reports whether need fits room on the given dimensions.
func fitsDims(need, room binpack.Vec, dims []int) bool {
	for _, d := range dims {
		if need[d] > room[d] {
			return false
		}
	}
	return true
}

// limitSpends is, per class, the least share of a bounded NodePool's
// remaining limits one of its pods spends (limitSpend), for the classes
// some bounded NodePool takes; the others spend nothing.
func (s *solver) limitSpends() map[*class]float64 {
	out := make(map[*class]float64, len(s.classes))
	for _, c := range s.classes {
		if c.invalid != nil {
			continue
		}
		least := math.Inf(1)
		for _, p := range s.pools {
			if p.bounded() && s.poolTolerated(c, p, len(c.steps)) {
				least = min(least, s.limitSpend(c, p))
			}
		}
		if !math.IsInf(least, 1) {
			out[c] = least
		}
	}
	return out
}

// limitSpend is the least share of p's remaining limits one pod of c
// spends, over the types of p that hold it within them: the pod's share of
// the node (its largest request over the node's usable room, the pods
// slot included, so that a pod heavy in memory spends the node's cpu as
// well) times the node's share of the limits (its capacity in each limited
// resource over what is left of it, one node over the nodes left). Pods
// that spend least go first where the most should fit within the limits:
// ordered by their requests in the limited resources alone, a pod asking
// little cpu and most of a node's memory takes a node's whole cpu each.
// +Inf when no type holds one.
func (s *solver) limitSpend(c *class, p *pool) float64 {
	least := math.Inf(1)
	var zero binpack.Vec
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, len(c.steps), true)
		if !ok {
			continue
		}
		id := s.reqs.compat(p.reqID, a.reqID)
		if id < 0 {
			continue
		}
		info := s.reqs.info(id)
		info.typeSet(s)
		for _, t32 := range info.members {
			t := int(t32)
			u := p.usable[t]
			capT := s.idx.Capacity(t)
			if !c.requests.Fits(u) || !p.withinLimits(&capT, &zero) {
				continue
			}
			frac := 0.0
			for d, x := range c.requests {
				if x > 0 && u[d] > 0 {
					frac = max(frac, float64(x)/float64(u[d]))
				}
			}
			least = min(least, frac*p.nodeShare(capT, 1))
		}
	}
	return least
}

// spendOf is what pp spends of the bounded NodePools' limits (limitSpends),
// or its share of the limits by its requests (limitShare) when no bounded
// NodePool takes it.
func (s *solver) spendOf(pp *pending, w binpack.Vec) float64 {
	if x, ok := s.spend[pp.cls]; ok {
		return x
	}
	return limitShare(pp, w)
}
