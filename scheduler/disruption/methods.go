package disruption

import (
	"cmp"
	"slices"
	"strings"
)

// sortBySavingsRatio orders candidates by price per unit of disruption,
// highest first; ties (Karpenter leaves them to sort.Slice) by name.
//
// The candidates are distinct nodes, so no two have the same name and
// the order is total: an unstable sort gives the order a stable one would.
func sortBySavingsRatio(cs []*candidate) {
	// The keys are read once per candidate, not once per comparison (every
	// round sorts every candidate).
	type keyed struct {
		ratio float64
		name  string
		c     *candidate
	}
	ks := make([]keyed, len(cs))
	for i, c := range cs {
		ks[i] = keyed{c.savingsRatio(), c.n.name, c}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(b.ratio, a.ratio), strings.Compare(a.name, b.name))
	})
	for i, k := range ks {
		cs[i] = k.c
	}
}

// emptiness is B.5: every empty, consolidatable node whose pool still has
// budget for Empty, in one delete command across pools.
func (m *model) emptiness() *proposal {
	var cands []*candidate
	for _, n := range m.nodes {
		c, w := m.newCandidate(n, graceful)
		if w != nil || m.consolidationRules(c) != nil || !c.empty() {
			continue
		}
		cands = append(cands, c)
	}
	sortBySavingsRatio(cands)
	budgets := m.budgets(ReasonEmpty)
	var take []*candidate
	for _, c := range cands {
		if budgets.take(c.n.poolName) {
			take = append(take, c)
		}
	}
	if len(take) == 0 {
		return nil
	}
	return &proposal{method: MethodEmptiness, reason: ReasonEmpty, cands: take}
}

// driftCandidates are the drifted nodes of pools that are (static) or are
// not (!static) static, that pass the eventual class's rules, oldest drift
// first, then the empty ones (no reschedulable pod) before the others.
func (m *model) driftCandidates(static bool) []*candidate {
	var cands []*candidate
	for _, n := range m.nodes {
		if n.drift == nil || n.pool == nil || n.pool.static != static {
			continue
		}
		if c, w := m.newCandidate(n, eventual); w == nil {
			cands = append(cands, c)
		}
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		return cmp.Or(a.n.drift.since.Compare(b.n.drift.since), strings.Compare(a.n.name, b.n.name))
	})
	empty := slices.DeleteFunc(slices.Clone(cands), func(c *candidate) bool { return len(c.resched) > 0 })
	full := slices.DeleteFunc(cands, func(c *candidate) bool { return len(c.resched) == 0 })
	return append(empty, full...)
}

// drift is B.6: the first drifted node (in driftCandidates order) whose
// pool has budget for Drifted and whose pods all find a place, replaced by
// every NodeClaim the simulation needs (no price check, n may exceed 1).
func (m *model) drift() (*proposal, error) {
	budgets := m.budgets(ReasonDrifted)
	for _, c := range m.driftCandidates(false) {
		if budgets.left[c.n.poolName] == 0 {
			continue
		}
		sim, err := m.driftSim(c)
		if err != nil {
			return nil, err
		}
		if !sim.ok() {
			continue
		}
		p := &proposal{method: MethodDrift, reason: ReasonDrifted, cands: []*candidate{c}, sim: sim}
		for _, nc := range sim.res.NodeClaims {
			r, err := m.newReplacement(nc)
			if err != nil {
				return nil, err
			}
			p.repls = append(p.repls, r)
		}
		return p, nil
	}
	return nil, nil
}

// driftSim simulates replacing a drifted node. The global search first
// lets its pods land only on the first nodes by name of each zone that
// admit them (as many as its own simulations take; where Solve's first
// fit looks first), so that a drift in a large cluster does not cost a
// simulation over all of it; when they all land there, that is the answer
// (no view does better than no replacement), else it simulates again over
// every node, as the Karpenter-faithful search does at once.
func (m *model) driftSim(c *candidate) (*simulation, error) {
	in := simInput{cands: []*candidate{c}, method: MethodDrift}
	if m.cfg.search == SearchGlobal {
		in.capped = true
		sim, err := m.simulate(in)
		if err != nil || (sim.ok() && len(sim.res.NodeClaims) == 0) {
			return sim, err
		}
		in.capped = false
	}
	return m.simulate(in)
}

// consolidationCandidates are the nodes multi- and single-node
// consolidation may take (A.3, D-013 to D-020), sorted by savings ratio;
// all are every node that passed the generic rules (Balanced totals count
// them all). Made once per model version (every method of a round asks;
// shared: callers never write the lists).
func (m *model) consolidationCandidates() (cands, all []*candidate) {
	if cc := &m.consCands; cc.version == m.version+1 {
		return cc.cands, cc.all
	}
	for _, n := range m.nodes {
		c, w := m.newCandidate(n, graceful)
		if w != nil {
			continue
		}
		all = append(all, c)
		if w, ok := m.underutilizedRules(c); w == nil && ok {
			cands = append(cands, c)
		}
	}
	sortBySavingsRatio(cands)
	cands, all = slices.Clip(cands), slices.Clip(all)
	m.consCands = consCands{version: m.version + 1, cands: cands, all: all}
	return cands, all
}

// consCands are consolidationCandidates' lists at a model version (+1, so
// that the zero value is no version).
type consCands struct {
	version    int
	cands, all []*candidate
	totals     map[string]poolTotal // poolTotals of all, once asked
}

// multiNode is B.8: a binary search over prefixes of the candidates (kept
// while their pool has budget, at most 100 plus one), returning the
// largest valid prefix found; a replace is valid when the same-type filter
// leaves options and every Balanced pool approves.
func (m *model) multiNode() (*proposal, error) {
	cands, all := m.consolidationCandidates()
	budgets := m.budgets(ReasonUnderutilized)
	var kept []*candidate
	for _, c := range cands {
		if budgets.take(c.n.poolName) {
			kept = append(kept, c)
		}
	}
	if len(kept) < 2 {
		return nil, nil
	}
	totals := m.poolTotals(all)
	lo, hi := 1, min(len(kept), 100)
	if len(kept) <= hi {
		hi = len(kept) - 1
	}
	var last *proposal
	ahead := map[int]multiTrial{} // probes run ahead, by mid
	up := false                   // the last probe settled was valid
	for probes := 0; lo <= hi && (m.cfg.maxProbes == 0 || probes < m.cfg.maxProbes); probes++ {
		mid := (lo + hi) / 2
		t, ok := ahead[mid]
		if !ok {
			clear(ahead)
			m.probeAhead(kept, probeRange{lo: lo, hi: hi, probes: probes, up: up}, ahead)
			t = ahead[mid]
		}
		p, err := m.settleProbe(t)
		if err != nil {
			return nil, err
		}
		valid := p != nil
		if valid {
			valid, _ = m.approve(p, totals)
		}
		if valid {
			last, lo = p, mid+1
		} else {
			hi = mid - 1
		}
		up = valid
	}
	return last, nil
}

// probeRange is where the binary search stands: its bounds, the probes
// made, and whether the last probe was valid.
type probeRange struct {
	lo, hi, probes int
	up             bool
}

// probeAhead runs the next probes the binary search makes from [lo, hi],
// guessing that each probe goes the way the last one went (valid: the
// search moves up; not: down, the common case, since most rounds find no
// multi-node command; a probe whose failure is cached goes down and
// costs nothing), within the probe budget, up to one that simulates per
// core. Nothing is remembered here: settleProbe does that for each probe
// the search reaches, in the search's order, so the search and the cache
// are what probing one at a time gives (a probe never reads another
// prefix's entry, and the model does not change during the search; a
// probe run ahead that the search does not reach is dropped).
func (m *model) probeAhead(kept []*candidate, r probeRange, ahead map[int]multiTrial) {
	var mids []int
	lo, hi, probes := r.lo, r.hi, r.probes
	for fresh := 0; fresh < m.workers() && lo <= hi && (m.cfg.maxProbes == 0 || probes < m.cfg.maxProbes); probes++ {
		mid := (lo + hi) / 2
		mids = append(mids, mid)
		cached := m.failCached(kept[:mid+1])
		if !cached {
			fresh++
		}
		if r.up && !cached {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	trials := make([]multiTrial, len(mids))
	m.each(len(mids), func(i int) { trials[i] = m.tryProbe(kept[:mids[i]+1]) })
	for i, mid := range mids {
		ahead[mid] = trials[i]
	}
}

// multiTrial is one probe of the binary search, run but not yet
// remembered: a valid proposal, or the failure to remember under key.
type multiTrial struct {
	p   *proposal
	key string
	sim *simulation
	w   *why
	err error
}

// tryProbe is one probe: consolidate the prefix (unless a failure is
// cached), then apply the same-type filter to a replace.
func (m *model) tryProbe(prefix []*candidate) multiTrial {
	same := m.cacheKey("same-type", prefix)
	if m.cached(same) != nil {
		return multiTrial{}
	}
	key := m.cacheKey("consolidate", prefix)
	if m.cached(key) != nil {
		return multiTrial{}
	}
	p, w, err := m.consolidateOnce(prefix, MethodMultiNode)
	switch {
	case err != nil:
		return multiTrial{err: err}
	case w != nil:
		return multiTrial{key: key, sim: p.simOrNil(), w: w}
	case len(p.repls) > 0 && !m.sameTypeFilter(p):
		// A failure of the filter is remembered like a failed simulation.
		return multiTrial{key: same, sim: p.sim, w: keep(KeepNoCheaper, Details{Price: p.price()})}
	}
	return multiTrial{p: p}
}

// settleProbe remembers a probe's failure and returns its proposal (nil
// when it failed).
func (m *model) settleProbe(t multiTrial) (*proposal, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.w != nil {
		m.remember(t.key, t.sim, t.w)
	}
	return t.p, nil
}

// singleNode is B.9: candidates by savings ratio, interleaved round-robin
// by NodePool (pools by name: Karpenter's map order is not deterministic);
// the first that its pool's budget allows, that Balanced lets through and
// whose consolidation succeeds. whys records why each candidate tried
// failed.
func (m *model) singleNode(whys map[*node]*why) (*proposal, error) {
	cands, all := m.consolidationCandidates()
	totals := m.poolTotals(all)
	budgets := m.budgets(ReasonUnderutilized)
	var tries []*candidate
	for _, c := range interleave(cands) {
		if budgets.left[c.n.poolName] == 0 {
			whys[c.n] = budgets.why[c.n.poolName]
			continue
		}
		if w := m.canPass(c, totals); w != nil {
			whys[c.n] = w
			continue
		}
		tries = append(tries, c)
	}
	if m.cfg.maxProbes > 0 && len(tries) > m.cfg.maxProbes {
		tries = tries[:m.cfg.maxProbes]
	}
	var found *proposal
	try := func(c *candidate) trial {
		t := trial{key: m.cacheKey("consolidate", []*candidate{c})}
		if t.w = m.cached(t.key); t.w != nil {
			t.hit = true
			return t
		}
		t.p, t.w, t.err = m.consolidateOnce([]*candidate{c}, MethodSingleNode)
		t.sim = t.p.simOrNil()
		return t
	}
	judge := func(c *candidate, t trial) bool {
		ok, w := m.approve(t.p, totals)
		if !ok {
			whys[c.n] = w
			return false
		}
		found = t.p
		return true
	}
	_, err := m.firstSuccess(tries, try, judge, func(c *candidate, w *why) { whys[c.n] = w })
	return found, err
}

// interleave takes one candidate of each pool in turn (pools by name),
// keeping each pool's order.
func interleave(cs []*candidate) []*candidate {
	byPool := map[string][]*candidate{}
	var pools []string
	for _, c := range cs {
		if _, ok := byPool[c.n.poolName]; !ok {
			pools = append(pools, c.n.poolName)
		}
		byPool[c.n.poolName] = append(byPool[c.n.poolName], c)
	}
	slices.Sort(pools)
	out := make([]*candidate, 0, len(cs))
	for i := 0; len(out) < len(cs); i++ {
		for _, p := range pools {
			if i < len(byPool[p]) {
				out = append(out, byPool[p][i])
			}
		}
	}
	return out
}
