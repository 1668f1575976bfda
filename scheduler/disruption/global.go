package disruption

import (
	"cmp"
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// SearchGlobal keeps every rule that decides whether a node may go and
// whether its pods fit (the candidates, do-not-disrupt, PodDisruptionBudgets,
// budgets, consolidateAfter, the simulation, Balanced, spot-to-spot) and
// changes how commands are sought:
//
//   - per NodePool (one pool's pending pods never enter another's
//     simulation: a pool's are those it takes), it tries a subset of the
//     pool's candidates, as many as the budget allows (at most maxSubset):
//     those whose pods a first-fit packing finds room for on the nodes
//     that stay (packable), taken from the pool's surplus first (the nodes
//     dearest per unit of room, which the pool's pods do not need:
//     surplus.go), then the others, each dearest first; else the most
//     wasteful (price × the share of the node its pods leave unused);
//     pods that fit nowhere take their node out of the subset, a subset
//     that does not pay is halved; a subset that pays at once is grown to
//     the budget with the most wasteful others that could pay alone, when
//     that saves more (one that had to be repaired is not: the packing
//     overrated the room, and a larger subset fails the same way);
//   - its simulations let pods land only on the nodes with the most room
//     that admit them, a few more than the pods (view.go: landable);
//   - a command may replace m nodes with n ≥ 0 NodeClaims when they cost
//     less in total (each NodeClaim priced at its worst launch: its options
//     are cut to those no dearer than its cheapest option at its worst);
//   - a command must save at least WithMinSavings (per hour, and as a
//     share of the price of the nodes it disrupts), counting what the
//     pool's pending pods would cost anyway;
//   - nodes an earlier command launched or moved pods onto are not
//     disrupted again (no command undoes another);
//   - a found command with replacements is pruned: a node whose removal
//     does not add to the saving stays (the fewest disrupted nodes for the
//     saving; a command that only deletes saves every node's price);
//   - when no subset pays, single nodes are tried, in Karpenter's order
//     (savings ratio); a pool whose subsets keep failing sits out rounds
//     of subsets (backOff), never the last;
//   - of the pools' commands the round takes the one that saves most.
func (m *model) globalRound(whys map[*node]*why) (*proposal, error) {
	if p, err := m.expiration(whys); p != nil || err != nil {
		return p, err
	}
	if p := m.emptiness(); p != nil {
		return p, nil
	}
	if p, err := m.staticDrift(); p != nil || err != nil {
		return p, err
	}
	if p, err := m.drift(); p != nil || err != nil {
		return p, err
	}
	return m.globalConsolidation(whys)
}

// A pool whose subset search found nothing twice in a row sits out the
// next round's, then two, four, up to maxBackOff rounds while it keeps
// finding nothing (the rounds in between take single nodes, whose commands
// rarely make a subset pay); a round that finds nothing else tries it
// anyway, so the plan never ends before it. It saves the large
// simulations of the rounds of single nodes at the end of a plan.
type backOff struct{ skip, next, fails int }

const maxBackOff = 32

// backedOff reports whether the pool sits this round out, counting it.
func (m *model) backedOff(pool string) bool {
	b := m.backOffs[pool]
	if b == nil || b.skip == 0 {
		return false
	}
	b.skip--
	return true
}

// backOff records a pool's subset search: failed, or found a command.
func (m *model) backOff(pool string, failed bool) {
	if !failed {
		delete(m.backOffs, pool)
		return
	}
	if m.backOffs == nil {
		m.backOffs = map[string]*backOff{}
	}
	b := m.backOffs[pool]
	if b == nil {
		b = &backOff{}
		m.backOffs[pool] = b
	}
	b.fails++
	if b.fails > 1 {
		b.next = min(max(1, 2*b.next), maxBackOff)
		b.skip = b.next
	}
}

// globalProposal is a proposal of the global search with its saving.
type globalProposal struct {
	*proposal
	saving float64
}

func (m *model) globalConsolidation(whys map[*node]*why) (*proposal, error) {
	cands, all := m.consolidationCandidates()
	g := globalRound{m: m, totals: m.poolTotals(all), budgets: m.budgets(ReasonUnderutilized), byPool: map[string][]*candidate{}}
	pools := g.group(cands, whys)
	var skipped, tried []string
	for _, pool := range pools {
		if m.backedOff(pool) {
			skipped = append(skipped, pool)
		} else {
			tried = append(tried, pool)
		}
	}
	// Subsets first, in every pool; the one that saves most wins. A pool
	// whose subset search failed sits out rounds (backedOff).
	var best *globalProposal
	var err error
	if !m.cfg.singlesOnly {
		if best, err = g.subsets(tried); err != nil {
			return nil, err
		}
	}
	// Else single nodes, pool by pool; else the subsets skipped.
	for _, pool := range pools {
		if best != nil {
			break
		}
		if best, err = m.singleFor(pool, g.byPool[pool], g.totals, whys); err != nil {
			return nil, err
		}
	}
	if best == nil && len(skipped) > 0 && !m.cfg.singlesOnly {
		if best, err = g.subsets(skipped); err != nil {
			return nil, err
		}
	}
	if best == nil {
		return nil, nil
	}
	best, err = m.prune(best.cands[0].n.poolName, best, g.totals)
	if err != nil {
		return nil, err
	}
	return best.proposal, nil
}

// globalRound is one round of the global search: its candidates by
// NodePool, the pools' totals and the budgets.
type globalRound struct {
	m       *model
	totals  map[string]poolTotal
	budgets budgetMap
	byPool  map[string][]*candidate
}

// group sorts the candidates by NodePool and returns the pools, in name
// order, whose budget lets a node go; a node a command created, or of a
// pool without budget, is kept with its reason.
func (g *globalRound) group(cands []*candidate, whys map[*node]*why) []string {
	for _, c := range cands {
		if by := c.n.createdBy; by > 0 {
			whys[c.n] = keep(KeepNoUndo, Details{Command: by})
			continue
		}
		g.byPool[c.n.poolName] = append(g.byPool[c.n.poolName], c)
	}
	var pools []string
	for _, pool := range slices.Sorted(maps.Keys(g.byPool)) {
		if g.budgets.left[pool] == 0 {
			for _, c := range g.byPool[pool] {
				whys[c.n] = g.budgets.why[pool]
			}
			continue
		}
		pools = append(pools, pool)
	}
	return pools
}

// subsets runs the subset search of every pool and returns the proposal
// that saves most, recording each pool's outcome for backOff.
func (g *globalRound) subsets(pools []string) (*globalProposal, error) {
	var best *globalProposal
	for _, pool := range pools {
		p, err := g.m.subsetFor(pool, g.byPool[pool], min(g.budgets.left[pool], maxSubset), g.totals)
		if err != nil {
			return nil, err
		}
		g.m.backOff(pool, p == nil)
		if p != nil && (best == nil || p.saving > best.saving) {
			best = p
		}
	}
	return best, nil
}

// waste is what a node costs for the room its pods leave unused: price ×
// (1 − the larger of its cpu and memory use by the pods that would move).
func waste(c *candidate) float64 {
	alloc := c.n.obj.Status.Allocatable
	if len(alloc) == 0 {
		alloc = c.n.obj.Status.Capacity
	}
	used := 0.0
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		a := alloc[name]
		if a.IsZero() {
			continue
		}
		sum := 0.0
		for _, p := range c.movable {
			q := p.requests()[name]
			sum += float64(q.MilliValue())
		}
		used = max(used, sum/float64(a.MilliValue()))
	}
	return c.n.price * max(0, 1-used)
}

// byWaste orders candidates most wasteful first, ties by name.
func byWaste(cs []*candidate) []*candidate {
	out := slices.Clone(cs)
	w := map[*candidate]float64{}
	for _, c := range out {
		w[c] = waste(c)
	}
	slices.SortStableFunc(out, func(a, b *candidate) int {
		return cmp.Or(cmp.Compare(w[b], w[a]), strings.Compare(a.n.name, b.n.name))
	})
	return out
}

// byPrice orders candidates dearest first (each saves its price when
// deleted), keeping the order they come in for equal prices.
func byPrice(cs []*candidate) []*candidate {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b *candidate) int { return cmp.Compare(b.n.price, a.n.price) })
	return out
}

// subsetFor tries a subset of a pool's candidates within its budget:
// first those packable finds room for (the surplus, then the others, each
// dearest first: bySurplus), else the most wasteful, repaired and halved
// until it pays; a subset that paid without repair is then grown to the
// budget with the most wasteful others that could pay alone (cannotPay),
// kept when that saves more (their pods may share replacements).
func (m *model) subsetFor(pool string, cs []*candidate, budget int, totals map[string]poolTotal) (*globalProposal, error) {
	order := byWaste(cs)
	set := m.packable(m.bySurplus(pool, order), budget)
	if len(set) < 2 {
		set = order[:min(budget, len(order))]
	}
	p, err := m.repairSubset(pool, set, totals)
	if err != nil || p == nil {
		return p, err
	}
	if len(p.cands) < len(set) {
		return p, nil // repaired: a larger subset fails the same way
	}
	var grown []*candidate // in waste order
	extra := budget - len(p.cands)
	for _, c := range order {
		switch {
		case slices.Contains(p.cands, c):
			grown = append(grown, c)
		case extra > 0 && m.cannotPay(pool, []*candidate{c}) == nil:
			grown, extra = append(grown, c), extra-1
		}
	}
	if len(grown) == len(p.cands) || m.cannotPay(pool, grown) != nil {
		return p, nil
	}
	q, _, err := m.globalProbe(pool, grown, totals)
	if err != nil || q == nil || q.saving <= p.saving {
		return p, err
	}
	return q, nil
}

// repairSubset simulates a subset and, while it does not pay, drops the
// node of a pod that fits nowhere, keeps the spot nodes whose pods all
// found room (spot-to-spot off), or halves it.
func (m *model) repairSubset(pool string, set []*candidate, totals map[string]poolTotal) (*globalProposal, error) {
	for attempts := 0; len(set) > 1 && attempts < maxGlobalAttempts; attempts++ {
		p, w, sim, err := m.globalProbeSim(pool, set, totals)
		if err != nil || p != nil {
			return p, err
		}
		if w != nil && w.code == KeepPodsDoNotFit {
			if src := m.sourceOf(w.d.Pod, set); src != nil {
				set = slices.DeleteFunc(slices.Clone(set), func(c *candidate) bool { return c == src })
				continue
			}
		}
		if w != nil && w.code == KeepSpotToSpot && w.d.Disabled {
			// Spot nodes may only be deleted: keep those whose pods all
			// found room on existing nodes.
			if kept := deletable(sim, set); len(kept) > 0 && len(kept) < len(set) {
				set = kept
				continue
			}
		}
		set = set[:len(set)/2]
	}
	return nil, nil
}

// singleFor tries a pool's candidates one at a time, in savings-ratio
// order, and returns the first that pays; whys records why the others do
// not.
func (m *model) singleFor(pool string, cs []*candidate, totals map[string]poolTotal, whys map[*node]*why) (*globalProposal, error) {
	var found *globalProposal
	try := func(c *candidate) trial {
		t := trial{key: m.cacheKey("global", []*candidate{c})}
		if t.w = m.cannotPay(pool, []*candidate{c}); t.w != nil {
			return t
		}
		if t.w = m.cached(t.key); t.w != nil {
			t.hit = true
			return t
		}
		t.g, t.w, t.sim, t.err = m.globalTry(pool, []*candidate{c}, totals)
		return t
	}
	judge := func(_ *candidate, t trial) bool {
		found = t.g
		return true
	}
	_, err := m.firstSuccess(cs, try, judge, func(c *candidate, w *why) { whys[c.n] = w })
	return found, err
}

// deletable are the nodes of a set whose pods all landed on existing nodes
// in the set's simulation (nil when it is not at hand: a cached failure).
func deletable(sim *simulation, set []*candidate) []*candidate {
	if sim == nil {
		return nil
	}
	onClaim := map[string]bool{}
	for _, nc := range sim.res.NodeClaims {
		for _, key := range nc.Pods {
			onClaim[key] = true
		}
	}
	var out []*candidate
	for _, c := range set {
		if !slices.ContainsFunc(c.movable, func(p *pod) bool { return onClaim[p.key] || sim.pods[p.key] == nil }) {
			out = append(out, c)
		}
	}
	return out
}

// maxGlobalAttempts bounds the repairs and halvings of one pool's subset;
// maxPrunes the nodes pruning tries to keep; maxSubset the nodes of one
// command (Karpenter's multi-node consolidation takes at most 100 too), so
// that a simulation costs what a command moves whatever the cluster's size.
const (
	maxGlobalAttempts = 8
	maxPrunes         = 6
	maxSubset         = 100
)

// sourceOf is the candidate a pod comes from.
func (m *model) sourceOf(podKey string, set []*candidate) *candidate {
	for _, c := range set {
		for _, p := range c.movable {
			if p.key == podKey {
				return c
			}
		}
	}
	return nil
}

// prune tries to keep the least wasteful nodes of a command: a node whose
// removal adds nothing to the saving stays. A command without replacements
// saves the price of every node it removes (and what the pool's pending
// pods would cost, whatever it removes): keeping one would save less, but
// with deferSmall its small nodes are left to later commands.
func (m *model) prune(pool string, p *globalProposal, totals map[string]poolTotal) (*globalProposal, error) {
	if len(p.cands) < 2 {
		return p, nil
	}
	if len(p.repls) == 0 {
		if m.cfg.deferSmall == 0 {
			return p, nil
		}
		return m.deferSmall(pool, p, totals)
	}
	order := byWaste(p.cands)
	for i := 0; i < maxPrunes && i < len(order) && len(p.cands) > 1; i++ {
		x := order[len(order)-1-i]
		rest := slices.DeleteFunc(slices.Clone(p.cands), func(c *candidate) bool { return c == x })
		if m.cannotPay(pool, rest) != nil {
			continue
		}
		q, _, err := m.globalProbe(pool, rest, totals)
		if err != nil {
			return nil, err
		}
		if q != nil && q.saving >= p.saving-1e-9 {
			p = q
		}
	}
	return p, nil
}

// deferSmall leaves to later commands the nodes of a command that only
// deletes priced under the share cfg.deferSmall of its dearest node's,
// when the others still make a command: the saving then comes first from
// the nodes that save most each, the small ones last (planGlobal's
// convergences for fewer disruptions on the way to Karpenter's saving).
func (m *model) deferSmall(pool string, p *globalProposal, totals map[string]poolTotal) (*globalProposal, error) {
	top := 0.0
	for _, c := range p.cands {
		top = max(top, c.n.price)
	}
	rest := slices.DeleteFunc(slices.Clone(p.cands), func(c *candidate) bool { return c.n.price < m.cfg.deferSmall*top })
	if len(rest) == 0 || len(rest) == len(p.cands) || m.cannotPay(pool, rest) != nil {
		return p, nil
	}
	q, _, err := m.globalProbe(pool, rest, totals)
	if err != nil || q == nil {
		return p, err
	}
	return q, nil
}

// globalProbe simulates removing a set of one pool's candidates with any
// number of NodeClaims (the pool's pending pods included) and prices it.
func (m *model) globalProbe(pool string, set []*candidate, totals map[string]poolTotal) (*globalProposal, *why, error) {
	p, w, _, err := m.globalProbeSim(pool, set, totals)
	return p, w, err
}

// globalProbeSim is globalProbe that also returns the simulation (nil when
// the cache answered).
func (m *model) globalProbeSim(pool string, set []*candidate, totals map[string]poolTotal) (*globalProposal, *why, *simulation, error) {
	key := m.cacheKey("global", set)
	if w := m.cached(key); w != nil {
		return nil, w, nil, nil
	}
	p, w, sim, err := m.globalTry(pool, set, totals)
	if w != nil && w.code != KeepBalanced {
		m.remember(key, sim, w)
	}
	return p, w, sim, err
}

// globalTry is one simulation of the global search, with no side effect
// on the cache (so that it may run in parallel).
func (m *model) globalTry(pool string, set []*candidate, totals map[string]poolTotal) (*globalProposal, *why, *simulation, error) {
	p := m.poolByName[pool]
	sim, err := m.simulate(simInput{cands: set, gate: true, method: MethodGlobal,
		pending: func(x *pod) bool { return m.takes(p, x) }})
	if err != nil {
		return nil, nil, nil, err
	}
	if w := sim.failure(); w != nil {
		return nil, w, sim, nil
	}
	prop := &proposal{method: MethodGlobal, reason: ReasonUnderutilized, cands: set, sim: sim}
	cost, w, err := m.globalReplacements(prop)
	if err != nil || w != nil {
		return nil, w, sim, err
	}
	base, err := m.pendingBaseline(pool)
	if err != nil {
		return nil, nil, nil, err
	}
	price := prop.price()
	saving := price + base - cost
	least := max(m.cfg.minSavings, m.cfg.minSavingsRatio*price, 1e-9)
	if saving < 1e-9 && base == 0 && len(sim.res.NodeClaims) > 0 {
		// Not a small saving: none (minValues, say, kept options as dear
		// as the nodes).
		return nil, keep(KeepNoCheaper, Details{Price: roundPrice(price), ReplacementPrice: ptr(roundPrice(cost))}), sim, nil
	}
	if saving < least {
		return nil, keep(KeepMinSavings, Details{Savings: ptr(roundPrice(saving)), MinSavings: ptr(roundPrice(least))}), sim, nil
	}
	if ok, w := m.approve(prop, totals); !ok {
		return nil, w, sim, nil
	}
	return &globalProposal{proposal: prop, saving: saving}, nil, sim, nil
}

// globalReplacements turns every NodeClaim of the simulation into a
// replacement under Karpenter's capacity-type rules (spot goes to spot only
// behind the gate and, for one node, with enough cheaper types; a NodeClaim
// allowing spot and on-demand is pinned to spot) and returns their cost at
// worst launch.
func (m *model) globalReplacements(p *proposal) (float64, *why, error) {
	allSpot := true
	for _, c := range p.cands {
		allSpot = allSpot && c.n.ct == "spot"
	}
	cost := 0.0
	for _, nc := range p.sim.res.NodeClaims {
		r, err := m.newReplacement(nc)
		if err != nil {
			return 0, nil, err
		}
		switch {
		case allSpot && r.allows("spot"):
			if !m.cfg.spotToSpot {
				return 0, keep(KeepSpotToSpot, Details{Disabled: true}), nil
			}
			r.pinSpot()
			if len(p.cands) == 1 && len(r.types) < m.cfg.spotMinTypes {
				return 0, keep(KeepSpotToSpot, Details{CheaperTypes: len(r.types), MinTypes: m.cfg.spotMinTypes}), nil
			}
		case r.allows("spot") && r.allows("on-demand"):
			r.pinSpot()
		}
		est, ok := m.capOptions(r)
		if !ok {
			return 0, keep(KeepNoCheaper, Details{Price: p.price()}), nil
		}
		cost += est
		p.repls = append(p.repls, r)
	}
	return cost, nil, nil
}

// capOptions cuts a replacement's options to those whose worst launch
// price is at most the lowest one (more when minValues needs them), and
// returns that price: what the NodeClaim costs at worst.
func (m *model) capOptions(r *replacement) (float64, bool) {
	if len(r.types) == 0 {
		return 0, false
	}
	worst := make(map[string]float64, len(r.types))
	byWorst := slices.Clone(r.types)
	for _, it := range byWorst {
		worst[it.Name] = worstLaunchPrice(it, r.reqs)
	}
	slices.SortStableFunc(byWorst, func(a, b *instancetypes.InstanceType) int {
		return cmp.Or(cmp.Compare(worst[a.Name], worst[b.Name]), strings.Compare(a.Name, b.Name))
	})
	need := max(minValuesPrefix(byWorst, m.minValuesReqs(r)), 1)
	if need < 0 || need > len(byWorst) {
		return 0, false
	}
	limit := worst[byWorst[need-1].Name]
	r.types = slices.DeleteFunc(r.types, func(it *instancetypes.InstanceType) bool { return worst[it.Name] > limit })
	return limit, true
}

// takes reports whether a pool takes a pending pod into its simulations:
// the pod may use it (mayUse) and one of the instance types it allows
// holds the pod's requests (a GPU pod never waits on a pool without GPUs;
// m.mu held).
func (m *model) takes(p *poolState, x *pod) bool {
	if !m.mayUse(x.obj, p) {
		return false
	}
	v, ok := m.placeVec(x)
	if !ok {
		return true
	}
	return slices.ContainsFunc(m.poolFits(p), func(f typeFit) bool { return v.within(f.alloc) })
}

// pendingBaseline is what the pool's pending pods cost without any command:
// the NodeClaims a simulation with no candidate plans for them (once per
// model version and pool).
func (m *model) pendingBaseline(pool string) (float64, error) {
	p := m.poolByName[pool]
	m.mu.Lock()
	any := slices.ContainsFunc(m.pending, func(x *pod) bool { return m.takes(p, x) })
	b, ok := m.baselines[pool]
	m.mu.Unlock()
	if !any {
		return 0, nil
	}
	if ok && b.version == m.version {
		return b.cost, nil
	}
	sim, err := m.simulate(simInput{gate: true, method: MethodGlobal, pending: func(x *pod) bool { return m.takes(p, x) }})
	if err != nil {
		return 0, err
	}
	cost := 0.0
	for _, nc := range sim.res.NodeClaims {
		cost += nc.Price
	}
	m.mu.Lock()
	if m.baselines == nil {
		m.baselines = map[string]baseline{}
	}
	m.baselines[pool] = baseline{version: m.version, cost: cost}
	m.mu.Unlock()
	return cost, nil
}

type baseline struct {
	version int
	cost    float64
}

// packable picks, in order, at most n candidates whose movable pods all
// find room on the nodes that stay, as the checks before a simulation see
// nodes (prefilter.go: room, taints, labels): each pod goes to the first
// node that admits it, has room left by the pods placed before it, is in
// a zone its required zone spreads allow with the pods of the picked
// candidates taken away and those placed before it counted (packState),
// meets the node requirements of the pod's persistent volumes (a bound
// volume's zone), and holds no pod a required anti-affinity term of either
// selects (by node, whatever the term's key); a candidate that received
// pods stays. It is a guess to start the subset from (Solve's own order
// decides): the simulation checks it.
func (m *model) packable(order []*candidate, n int) []*candidate {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.rooms()
	left := make([]vec, len(rs.rooms))
	for i, r := range rs.rooms {
		left[i] = slices.Clone(r)
	}
	leaving := make([]bool, len(rs.nodes))
	used := make([]bool, len(rs.nodes))
	sk := newPackState(m)
	var out []*candidate
	for _, c := range order {
		if len(out) == n {
			break
		}
		self, ok := rs.index(c.n)
		if !ok || used[self] {
			continue
		}
		if took, ok := m.packPods(rs, c, self, left, leaving, sk); ok {
			for _, i := range took {
				used[i] = true
			}
			leaving[self] = true
			out = append(out, c)
		}
	}
	return out
}

// packPods places a candidate's movable pods first-fit in left (not on
// itself nor on a leaving node, nor where sk refuses it) and returns the
// nodes used; on failure left and sk are as they were.
func (m *model) packPods(rs *roomState, c *candidate, self int, left []vec, leaving []bool, sk *packState) ([]int, bool) {
	type placed struct {
		i int
		v vec
	}
	var done []placed
	mark := len(sk.log)
	sk.candidate++
	type startWas struct {
		st   *startAt
		from int
	}
	var starts []startWas // the starts this candidate moves, as they were
	undo := func() {
		for _, p := range done {
			left[p.i].add(p.v)
			sk.placed[p.i] = sk.placed[p.i][:len(sk.placed[p.i])-1]
		}
		for _, w := range starts {
			w.st.from = w.from
		}
		sk.undo(mark)
	}
	for _, p := range c.movable {
		sk.move(p, c.n.zone, -1)
	}
	var zoneOK []zoneAllowed
	for _, p := range c.movable {
		v, ok := m.placeVec(p)
		if !ok {
			undo()
			return nil, false
		}
		at := -1
		zoneOK = zoneOK[:0] // sk.allows by zone, for this pod
		anti := antiBound(p, m)
		vol := m.volumeAlts(p)
		cr := m.classRoom(rs, p)
		admitted := cr.admitted
		st := sk.startOf(rs, cr, p, v)
		if st.candidate != sk.candidate {
			st.candidate = sk.candidate
			starts = append(starts, startWas{st, st.from})
		}
		for st.from < len(admitted) && (leaving[admitted[st.from]] || !v.within(left[admitted[st.from]])) {
			st.from++ // room only shrinks while no candidate fails
		}
		for _, i := range admitted[st.from:] {
			if i == self || leaving[i] || !v.within(left[i]) || (vol != nil && !m.volumesAllow(vol, rs.nodes[i])) ||
				(anti && sk.repels(p, rs.nodes[i], i)) {
				continue
			}
			z := rs.nodes[i].zone
			k := 0
			for k < len(zoneOK) && zoneOK[k].zone != z {
				k++
			}
			if k == len(zoneOK) {
				zoneOK = append(zoneOK, zoneAllowed{z, sk.allows(p, z)})
			}
			if zoneOK[k].ok {
				at = i
				break
			}
		}
		if at < 0 {
			undo()
			return nil, false
		}
		left[at].sub(v)
		sk.move(p, rs.nodes[at].zone, 1)
		sk.placed[at] = append(sk.placed[at], p)
		done = append(done, placed{at, v})
	}
	out := make([]int, len(done))
	for k, p := range done {
		out[k] = p.i
	}
	return out, true
}

// volumeAlts returns the node requirements of p's persistent volumes, as
// alternatives (nil: none; topology.Volumes.For), once per pod (m.mu
// held). A volume Solve would refuse constrains nothing here: the guess
// proves nothing, the simulation reports it.
func (m *model) volumeAlts(p *pod) []requirements.Requirements {
	if p.volKnown {
		return p.vol
	}
	p.volKnown = true
	if m.vols == nil {
		c := m.cluster
		m.vols = topology.NewVolumes(m.catalog.Schema(), c.PVCs, c.PVs, c.StorageClasses)
	}
	if alts, err := m.vols.For(p.obj); err == nil {
		p.vol = alts
	}
	return p.vol
}

// volumesAllow reports whether a node's labels meet one of the
// alternatives of a pod's volumes (m.mu held).
func (m *model) volumesAllow(alts []requirements.Requirements, n *node) bool {
	labels := m.labelsOf(n)
	return slices.ContainsFunc(alts, func(r requirements.Requirements) bool { return r.Matches(labels) })
}

// labelsOf returns the node's labels as requirements read them, made once
// per node (m.mu held): a node's labels never change in the model.
func (m *model) labelsOf(n *node) map[string]string {
	if n.labels == nil {
		n.labels = nodepool.NodeLabels(n.obj, m.catalog.Schema())
	}
	return n.labels
}

// zoneAllowed is sk.allows's answer for a zone.
type zoneAllowed struct {
	zone string
	ok   bool
}

// packState is what packable's guess keeps while it packs: the zone
// counts of the moved pods' required zone spreads (a copy of zoneCounts
// per selector, and a log to undo; spreadzones.go), each class's first-fit
// start, and the pods put on each node.
type packState struct {
	m      *model
	counts map[string]map[string]int
	log    []skewChange
	// start is, per class of pods and requests (startOf), the position
	// in the class's admitted nodes before which no node is left with
	// room for such a pod (a failed candidate's undo puts it back where
	// it was).
	start     map[string]*startAt
	candidate int // packPods' calls, to know the starts a call moved
	// placed are the pods the guess put on each node (by index into
	// roomState.nodes), for repels.
	placed map[int][]*pod
}

func newPackState(m *model) *packState {
	return &packState{m: m, counts: map[string]map[string]int{}, start: map[string]*startAt{}, placed: map[int][]*pod{}}
}

// antiBound: p has a required anti-affinity term, or one of the
// cluster's selects it (repels may refuse it a node).
func antiBound(p *pod, m *model) bool {
	return len(p.antiTerms()) > 0 || m.repelled(p)
}

// repels: p and a pod on n (or put there by the guess) may not share the
// node: a required anti-affinity term of one selects the other.
func (sk *packState) repels(p *pod, n *node, i int) bool {
	check := func(q *pod) bool {
		for _, t := range p.antiTerms() {
			if t.selects(q) {
				return true
			}
		}
		for _, t := range q.antiTerms() {
			if t.selects(p) {
				return true
			}
		}
		return false
	}
	for _, q := range n.pods {
		if q.active() && check(q) {
			return true
		}
	}
	return slices.ContainsFunc(sk.placed[i], check)
}

// startAt is a start position in a class's admitted nodes.
type startAt struct {
	from      int
	candidate int // the last packPods call that noted where it was (to put it back)
}

// startOf returns the start of a pod's class and requests: at first the
// position of the first node with room for them before any candidate is
// packed (classRoom.roomStart).
func (sk *packState) startOf(rs *roomState, cr *classRoom, p *pod, v vec) *startAt {
	b := []byte(p.classKey())
	for _, x := range v {
		b = binary.AppendVarint(b, x)
	}
	st := sk.start[string(b)]
	if st == nil {
		st = &startAt{from: cr.roomStart(rs, string(b), v)}
		sk.start[string(b)] = st
	}
	return st
}

// roomStart is the position in admitted of the first node with room for v
// (len(admitted): none), once per room version and key (a class and its
// requests): packable asks for it on every guess.
func (cr *classRoom) roomStart(rs *roomState, key string, v vec) int {
	if at, ok := cr.packStart[key]; ok {
		return at
	}
	at := 0
	for at < len(cr.admitted) && !v.within(rs.rooms[cr.admitted[at]]) {
		at++
	}
	if cr.packStart == nil {
		cr.packStart = map[string]int{}
	}
	cr.packStart[key] = at
	return at
}
