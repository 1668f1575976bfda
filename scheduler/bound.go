package scheduler

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// The lower bound on the price of any valid plan for the pods this plan puts
// on new NodeClaims.
//
// Setting. Every new node is an instance type t of some NodePool, costing
// P_t (its cheapest offering) and offering U_t (allocatable minus the
// DaemonSet overhead of that pool on t). A pod p may only use the (pool,
// type) pairs T_p compatible with it (requirements, taints, resources).
//
// Claim. For any weight vector w ≥ 0 over resources, let
//
//	α_p(w) = min over t in T_p of P_t / (w·U_t)        (the cheapest price of one unit of w-weighted capacity p can use)
//	LB(w)  = Σ_p (w·req_p) · α_p(w)
//
// Then every valid plan costs at least LB(w).
//
// Proof. Take a node of type t hosting pods S. Its pods fit: Σ_{p∈S} req_p ≤
// U_t componentwise, so with w ≥ 0, Σ_{p∈S} w·req_p ≤ w·U_t. Each p ∈ S may
// use t, so α_p(w) ≤ P_t / (w·U_t). Hence
// Σ_{p∈S} (w·req_p) α_p(w) ≤ (P_t / (w·U_t)) Σ_{p∈S} w·req_p ≤ P_t.
// Summing over the plan's nodes, every pod counted once, gives LB(w) ≤ cost. ∎
//
// The bound holds for every w, so the solver searches w (coordinate ascent
// from each unit vector, a bounded number of evaluations) and reports the
// best found. With w a unit vector e_r it is the per-resource bound
// Σ_p req_{p,r} · (cheapest price per unit of r p can use); mixing
// resources lets it charge cpu-heavy and memory-heavy pods at once.
//
// Two more bounds: every placed pod needs some node, so the plan costs at
// least the cheapest node the most demanding pod can use; and pods that
// need a node each (required hostname anti-affinity to their own group)
// need that many nodes, each at least the cheapest type one of them can
// use. The reported bound is the largest of the three.

// boundGroup is the demand of the classes that may use the same (price,
// capacity) pairs: α depends only on the pairs, so their demand adds up.
type boundGroup struct {
	demand [binpack.MaxDims]float64
	pairs  []boundPair
}

type boundPair struct {
	price  float64
	usable *binpack.Vec // the pool's usable vector of the type (shared)
}

// boundEvaluations bounds the work of the search for w.
const boundEvaluations = 120

// lowerBound is the largest of the three bounds on the price of the pods
// this plan puts on new NodeClaims (0 when it puts none).
func (s *solver) lowerBound() float64 {
	classes, counts := s.boundClasses()
	if len(classes) == 0 {
		return 0
	}
	b := boundSearch{dims: s.dims.Len(), active: make([]bool, s.dims.Len())}
	best := s.boundGroups(&b, classes, counts)
	return max(best, b.maximise())
}

// boundClasses returns the classes of the pods on new NodeClaims, by id,
// and how many of each.
func (s *solver) boundClasses() ([]*class, map[*class]int) {
	counts := map[*class]int{}
	for _, pp := range s.pending {
		if pp.claim != nil && !pp.claim.dropped {
			counts[pp.cls]++
		}
	}
	classes := make([]*class, 0, len(counts))
	for c := range counts {
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b *class) int { return a.id - b.id })
	return classes, counts
}

// boundSearch is the search for the weight vector w that maximises LB(w):
// the groups of demand (in the order they were formed) and the dimensions
// some pod asks for.
type boundSearch struct {
	dims   int
	groups []*boundGroup
	active []bool
}

// boundGroups adds the classes' demand to b, grouped by the (price,
// capacity) pairs each class may use, and returns the best of the other two
// bounds: the cheapest node the most demanding pod needs, and the nodes
// isolated pods need one each.
func (s *solver) boundGroups(b *boundSearch, classes []*class, counts map[*class]int) float64 {
	frontiers := map[string][]boundPair{}
	groups := map[string]*boundGroup{}
	best := 0.0
	for _, c := range classes {
		sets := s.boundSets(c)
		key := boundKey(sets)
		frontier, ok := frontiers[key]
		if !ok {
			frontier = paretoPairs(s.boundPairs(sets))
			frontiers[key] = frontier
		}
		// Keep the pairs that fit the class; dominance survives the filter
		// (a dominating pair is larger, so it fits whenever the other does).
		mask, fits, cheapest := fitMask(c, frontier)
		if fits == 0 {
			continue
		}
		gk := key + "|" + string(mask)
		g, ok := groups[gk]
		if !ok {
			g = &boundGroup{pairs: make([]boundPair, 0, fits)}
			for i := range frontier {
				if mask[i] == 1 {
					g.pairs = append(g.pairs, frontier[i])
				}
			}
			groups[gk] = g
			b.groups = append(b.groups, g)
		}
		n := float64(counts[c])
		for d := 0; d < b.dims; d++ {
			if c.requests[d] > 0 {
				g.demand[d] += n * float64(c.requests[d])
				b.active[d] = true
			}
		}
		best = max(best, cheapest)
		if c.isolated {
			best = max(best, n*cheapest)
		}
	}
	return best
}

// fitMask marks the pairs of frontier whose capacity holds one pod of c,
// and returns how many do and the cheapest of them.
func fitMask(c *class, frontier []boundPair) (mask []byte, fits int, cheapest float64) {
	mask = make([]byte, len(frontier))
	cheapest = math.Inf(1)
	for i := range frontier {
		if c.requests.Fits(*frontier[i].usable) {
			mask[i] = 1
			fits++
			cheapest = min(cheapest, frontier[i].price)
		}
	}
	return mask, fits, cheapest
}

// eval is LB(w).
func (b *boundSearch) eval(w []float64) float64 {
	total := 0.0
	for _, g := range b.groups {
		wr := 0.0
		for d := 0; d < b.dims; d++ {
			wr += w[d] * g.demand[d]
		}
		if wr <= 0 {
			continue
		}
		alpha := math.Inf(1)
		for _, pr := range g.pairs {
			if wu := dot(w, pr.usable, b.dims); wu > 0 {
				alpha = min(alpha, pr.price/wu)
			}
		}
		if !math.IsInf(alpha, 1) {
			total += wr * alpha
		}
	}
	return total
}

// maximise searches w by coordinate ascent from each active unit vector,
// within boundEvaluations evaluations, and returns the best LB(w) found.
func (b *boundSearch) maximise() float64 {
	budget := boundEvaluations
	scale := b.scale()
	best := 0.0
	for d := 0; d < b.dims && budget > 0; d++ {
		if !b.active[d] {
			continue
		}
		w := make([]float64, b.dims)
		w[d] = scale[d]
		v := b.eval(w)
		budget--
		best = max(best, b.ascend(w, v, scale, &budget))
	}
	return best
}

// scale weighs each dimension by the inverse of its total demand, so that
// every active dimension contributes comparably.
func (b *boundSearch) scale() []float64 {
	scale := make([]float64, b.dims)
	for d := 0; d < b.dims; d++ {
		sum := 0.0
		for _, g := range b.groups {
			sum += g.demand[d]
		}
		if sum > 0 {
			scale[d] = 1 / sum
		}
	}
	return scale
}

// ascend raises each other dimension of w while that raises LB(w) (v is
// LB(w)), spending budget, and returns the best value reached.
func (b *boundSearch) ascend(w []float64, v float64, scale []float64, budget *int) float64 {
	for improved := true; improved && *budget > 0; {
		improved = false
		for e := 0; e < b.dims && *budget > 0; e++ {
			if !b.active[e] {
				continue
			}
			for _, f := range []float64{0.25, 1, 4} {
				if *budget <= 0 {
					break
				}
				trial := slices.Clone(w)
				trial[e] += f * scale[e] * sumOf(w, scale, b.dims)
				tv := b.eval(trial)
				*budget--
				if tv > v*(1+1e-9) {
					w, v, improved = trial, tv, true
				}
			}
		}
	}
	return v
}

func sumOf(w, scale []float64, dims int) float64 {
	// The weight of w measured in the same scaled units, so increments are
	// relative to w's size.
	total := 0.0
	for d := 0; d < dims; d++ {
		if scale[d] > 0 {
			total += w[d] / scale[d]
		}
	}
	return total
}

func dot(w []float64, v *binpack.Vec, dims int) float64 {
	x := 0.0
	for d := 0; d < dims; d++ {
		if w[d] != 0 {
			x += w[d] * float64(v[d])
		}
	}
	return x
}

// boundSets lists the claim-level requirement sets (one per requirement
// alternative and tolerated pool) a class could use with every preference
// relaxed: the (pool, type) pairs it may use are their members.
func (s *solver) boundSets(c *class) []int32 {
	var ids []int32
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, len(c.steps), true)
		if !ok {
			continue
		}
		for _, p := range s.pools {
			if !s.poolTolerated(c, p, len(c.steps)) {
				continue
			}
			if id := s.reqs.compat(p.reqID, a.reqID); id >= 0 {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// boundKey identifies the (pool, type) pairs of sets: classes with the same
// key share a frontier.
func boundKey(sets []int32) string {
	key := make([]byte, 0, 4*len(sets))
	for _, id := range sets {
		key = append(key, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	return string(key)
}

// boundPairs lists the (price, usable) of every (pool, type) of sets,
// whatever the class's size.
func (s *solver) boundPairs(sets []int32) []boundPair {
	var pairs []boundPair
	for _, id := range sets {
		info := s.reqs.info(id)
		info.typeSet(s)
		prices := s.idx.Prices(info.offer)
		for _, t := range info.members {
			if pr := prices[t]; !math.IsInf(pr, 1) {
				pairs = append(pairs, boundPair{price: pr, usable: &info.pool.usable[t]})
			}
		}
	}
	return pairs
}

// paretoPairs drops every pair another pair dominates (no more expensive
// and at least as large in every dimension): it can never give the minimum.
func paretoPairs(pairs []boundPair) []boundPair {
	byPrice := func(a, b boundPair) int { return cmp.Compare(a.price, b.price) }
	if !slices.IsSortedFunc(pairs, byPrice) { // one requirement set's pairs come sorted
		slices.SortStableFunc(pairs, byPrice)
	}
	var out []boundPair
	for i := range pairs {
		p := &pairs[i]
		dominated := false
		for j := range out {
			q := &out[j]
			// cpu and memory first: most pairs differ there.
			if q.price <= p.price && p.usable[0] <= q.usable[0] && p.usable[1] <= q.usable[1] && p.usable.Fits(*q.usable) {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, *p)
		}
	}
	return out
}

// PriceLowerBound returns the bound above (what Solve reports as
// Summary.PriceLowerBound) for the pending pods that res places on new
// NodeClaims: for a Result changed after Solve, such as verify.Solve's
// plan with the pods kube-scheduler would leave pending taken off it (a
// bound for more pods is no bound for fewer). pods, nodePools, catalog and
// opts are the input res was solved from.
func PriceLowerBound(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res Result, opts ...Option) (float64, error) {
	cfg, err := resolveFor(catalog, opts)
	if err != nil {
		return 0, err
	}
	cfg.shared = newExistingShare(cfg.memo)
	s, err := newSolver(pods, nodePools, catalog, cfg)
	if err != nil {
		return 0, err
	}
	onClaim := map[string]bool{}
	for _, nc := range res.NodeClaims {
		for _, p := range nc.Pods {
			onClaim[p] = true
		}
	}
	counted := &claim{} // the bound reads only that a pod is on a live claim
	for _, pp := range s.pending {
		if onClaim[pp.name] {
			pp.claim = counted
		}
	}
	return roundPrice(s.lowerBound()), nil
}
