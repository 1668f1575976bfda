package disruption

import (
	"math"

	"github.com/nodeplan/nodeplan/nodepool"
)

// poolTotal is a NodePool's cost and disruption, the denominators of the
// Balanced score (B.10).
type poolTotal struct {
	cost, disruption float64
}

// poolTotals sums, per pool, the price of every candidate (generic rules
// passed, before any method's filter) and the disruption cost of every
// node: a candidate's RescheduleDisruptionCost, another node's 1 plus the
// positive eviction costs of its active pods that are not DaemonSet pods.
//
// The totals of the version's consolidation candidates are made once
// (every method of a round asks; shared: callers read them).
func (m *model) poolTotals(all []*candidate) map[string]poolTotal {
	cc := &m.consCands
	mine := cc.version == m.version+1 && len(all) > 0 && len(cc.all) == len(all) && &cc.all[0] == &all[0]
	if mine && cc.totals != nil {
		return cc.totals
	}
	out := m.totalsOf(all)
	if mine {
		cc.totals = out
	}
	return out
}

// totalsOf is poolTotals made anew.
func (m *model) totalsOf(all []*candidate) map[string]poolTotal {
	out := map[string]poolTotal{}
	isCand := map[*node]*candidate{}
	for _, c := range all {
		isCand[c.n] = c
		t := out[c.n.poolName]
		t.cost += c.n.price
		out[c.n.poolName] = t
	}
	for _, n := range m.nodes {
		if n.poolName == "" {
			continue
		}
		t, ok := out[n.poolName]
		if !ok {
			continue // a pool without candidates is not scored
		}
		if c := isCand[n]; c != nil {
			t.disruption += c.cost
		} else {
			t.disruption += nodeDisruptionCost(n)
		}
		out[n.poolName] = t
	}
	return out
}

func nodeDisruptionCost(n *node) float64 {
	cost := perNodeCost
	for _, p := range n.pods {
		if !p.daemon && p.active() {
			cost += max(0, p.evictionCost)
		}
	}
	return cost
}

// score is (savings / pool cost) / (disruption / pool disruption): 0 when
// the savings are not positive or a total is not, +Inf when the move
// disrupts nothing.
func score(savings, disruption float64, t poolTotal) float64 {
	if t.cost <= 0 || t.disruption <= 0 || savings <= 0 {
		return 0
	}
	if disruption == 0 {
		return math.Inf(1)
	}
	return (savings / t.cost) / (disruption / t.disruption)
}

// approve scores a proposal for every Balanced pool it touches (each gets
// its share of the savings by its share of the candidates' price when the
// move spans pools); every one must reach 1/k. Pools of other policies are
// not scored.
func (m *model) approve(p *proposal, totals map[string]poolTotal) (bool, *why) {
	if len(p.cands) == 0 {
		return false, nil
	}
	savings, price := p.savings(), p.price()
	byPool := map[string][]*candidate{}
	var pools []string
	for _, c := range p.cands {
		if _, ok := byPool[c.n.poolName]; !ok {
			pools = append(pools, c.n.poolName)
		}
		byPool[c.n.poolName] = append(byPool[c.n.poolName], c)
	}
	threshold := 1 / m.cfg.balancedK
	for _, name := range pools {
		cs := byPool[name]
		if cs[0].n.pool.policy != nodepool.ConsolidationBalanced {
			continue
		}
		poolSavings, poolPrice, disruption := savings, 0.0, 0.0
		for _, c := range cs {
			poolPrice += c.n.price
			disruption += c.cost
		}
		if price > 0 && len(pools) > 1 {
			poolSavings = savings * poolPrice / price
		}
		s := score(poolSavings, disruption, totals[name])
		if s < threshold {
			return false, keep(KeepBalanced, Details{NodePool: name, Score: ptr(s), Threshold: ptr(threshold)})
		}
	}
	return true, nil
}

// canPass is single-node consolidation's pre-filter: even deleting the
// node outright (savings = its price) must reach the threshold; pools
// missing from the totals or without cost pass.
func (m *model) canPass(c *candidate, totals map[string]poolTotal) *why {
	if c.n.pool.policy != nodepool.ConsolidationBalanced {
		return nil
	}
	t, ok := totals[c.n.poolName]
	if !ok || t.cost <= 0 {
		return nil
	}
	threshold := 1 / m.cfg.balancedK
	if s := score(c.n.price, c.cost, t); s < threshold {
		return keep(KeepBalanced, Details{NodePool: c.n.poolName, Score: ptr(s), Threshold: ptr(threshold)})
	}
	return nil
}
