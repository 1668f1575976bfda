package disruption

// proposal is a command being computed: the candidates, the simulation
// that moves their pods, and the replacements not yet finished.
type proposal struct {
	method Method
	reason Reason
	cands  []*candidate
	sim    *simulation
	repls  []*replacement
	// left lists the pods of the candidates that will be left pending
	// (expiration only).
	left []*pod
}

// price sums the candidates' prices.
func (p *proposal) price() float64 {
	sum := 0.0
	for _, c := range p.cands {
		sum += c.n.price
	}
	return sum
}

// savings is Karpenter's EstimatedSavings: the candidates' price minus the
// price of each replacement's cheapest option.
func (p *proposal) savings() float64 {
	s := p.price()
	for _, r := range p.repls {
		if len(r.types) > 0 {
			if o, ok := cheapestOffering(r.types[0], r.reqs); ok {
				s -= o.Price
			}
		}
	}
	return s
}

// consolidate is the core of single- and multi-node consolidation (B.3):
// simulate removing the candidates; delete when everything fits on other
// nodes; replace when it takes exactly one new NodeClaim that is cheaper
// than the candidates by its worst launch price; otherwise nothing, with the
// reason.
func (m *model) consolidate(cands []*candidate, method Method) (*proposal, *why, error) {
	key := m.cacheKey("consolidate", cands)
	if w := m.cached(key); w != nil {
		return nil, w, nil
	}
	p, w, err := m.consolidateOnce(cands, method)
	if w != nil {
		m.remember(key, p.simOrNil(), w)
		p = nil
	}
	return p, w, err
}

// consolidateOnce is consolidate without the cache; on failure it still
// returns the proposal (with its simulation) beside the reason.
func (m *model) consolidateOnce(cands []*candidate, method Method) (*proposal, *why, error) {
	if w := m.cannotReplace(cands); w != nil {
		return nil, w, nil
	}
	if method == MethodMultiNode {
		if sim, w := m.splitProven(cands); w != nil {
			return &proposal{method: method, reason: ReasonUnderutilized, cands: cands, sim: sim}, w, nil
		}
	}
	sim, err := m.simulate(simInput{cands: cands, gate: true, method: method})
	if err != nil {
		return nil, nil, err
	}
	p := &proposal{method: method, reason: ReasonUnderutilized, cands: cands, sim: sim}
	if w := sim.failure(); w != nil {
		return p, w, nil
	}
	claims := sim.res.NodeClaims
	if len(claims) > 1 {
		// Solve splits pods over NodeClaims when that is cheaper;
		// Karpenter's greedy scheduler fills one NodeClaim while the pods
		// fit it. Ask for the fewest NodeClaims before giving up.
		fewer, err := m.simulateFewer(sim)
		if err != nil {
			return nil, nil, err
		}
		if fewer.failure() == nil && len(fewer.res.NodeClaims) < len(claims) {
			sim, claims = fewer, fewer.res.NodeClaims
			p.sim = sim
		}
	}
	switch {
	case len(claims) == 0:
		return p, nil, nil
	case len(claims) > 1:
		return p, keep(KeepTooManyNodes, Details{NodeClaims: len(claims)}), nil
	}
	r, err := m.newReplacement(claims[0])
	if err != nil {
		return nil, nil, err
	}
	p.repls = []*replacement{r}
	price := p.price()
	allSpot := true
	for _, c := range cands {
		allSpot = allSpot && c.n.ct == "spot"
	}
	if allSpot && r.allows("spot") {
		return m.spotToSpot(p, r, price)
	}
	r.filterByPrice(price)
	if w := m.noCheaper(r, price); w != nil {
		return p, w, nil
	}
	if r.allows("spot") && r.allows("on-demand") {
		r.pinSpot() // the filter assumed spot prices (B.3.7)
	}
	return p, nil, nil
}

// noCheaper explains a replacement left without options (or short of
// minValues) by the price filter.
func (m *model) noCheaper(r *replacement, price float64) *why {
	if len(r.types) > 0 && m.minValuesOK(r) {
		return nil
	}
	d := Details{Price: price}
	if r.worst < 1e300 {
		d.ReplacementPrice = ptr(r.worst)
	}
	return keep(KeepNoCheaper, d)
}

// spotToSpot is B.4: behind the feature gate, a spot node goes to spot; a
// single node needs enough cheaper types, and its replacement lists the
// cheapest of them only.
func (m *model) spotToSpot(p *proposal, r *replacement, price float64) (*proposal, *why, error) {
	if !m.cfg.spotToSpot {
		return p, keep(KeepSpotToSpot, Details{Disabled: true}), nil
	}
	r.pinSpot()
	r.filterByPrice(price)
	if w := m.noCheaper(r, price); w != nil {
		return p, w, nil
	}
	if len(p.cands) > 1 {
		return p, nil, nil
	}
	if len(r.types) < m.cfg.spotMinTypes {
		return p, keep(KeepSpotToSpot, Details{CheaperTypes: len(r.types), MinTypes: m.cfg.spotMinTypes}), nil
	}
	n := m.cfg.spotMinTypes
	if need := minValuesPrefix(r.types, m.minValuesReqs(r)); need > n {
		n = need
	}
	r.types = r.types[:min(n, len(r.types))]
	return p, nil, nil
}

// simOrNil is the proposal's simulation, or nil.
func (p *proposal) simOrNil() *simulation {
	if p == nil {
		return nil
	}
	return p.sim
}

// failure is why a simulation does not allow the command, or nil.
func (s *simulation) failure() *why {
	if s.unplaced != nil {
		return keep(KeepPodsDoNotFit, Details{Pod: s.unplaced.Pod, PodError: s.unplaced.Reason})
	}
	if s.uninit != nil {
		return keep(KeepUninitializedDst, Details{Pod: s.uninit.pod, Node: s.uninit.node})
	}
	return nil
}

// sameTypeFilter is filterOutSameInstanceType (B.8.7): when a multi-node
// replacement could be a type one of the candidates already is, keep only
// options whose worst launch price is below the cheapest such candidate's
// price, so [A, A] never becomes 1×A ("just delete one").
func (m *model) sameTypeFilter(p *proposal) bool {
	r := p.repls[0]
	maxPrice := -1.0
	for _, c := range p.cands {
		if c.n.it == nil {
			continue
		}
		in := false
		for _, it := range r.types {
			in = in || it.Name == c.n.it.Name
		}
		if !in {
			continue
		}
		cheapest := -1.0
		for _, o := range c.n.it.Offerings {
			if o.Zone == c.n.zone && o.CapacityType == c.n.ct && (cheapest < 0 || o.Price < cheapest) {
				cheapest = o.Price
			}
		}
		if cheapest >= 0 && (maxPrice < 0 || cheapest < maxPrice) {
			maxPrice = cheapest
		}
	}
	if maxPrice >= 0 {
		r.filterByPrice(maxPrice)
	}
	return len(r.types) > 0 && m.minValuesOK(r)
}
