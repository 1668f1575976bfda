package disruption

import (
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// staticDrift is B.6's StaticDrift for static NodePools (spec.replicas):
// the first drifted node of a pool (pools by name) that has budget for
// Drifted, is not over-scaled (more nodes than replicas) and has room under
// its nodes limit for the replacement (its nodes, those being deleted
// included, and the replacement at most the limit), replaced by a bare NodeClaim of the pool's template. Its
// pods go where the kube-scheduler would put them: on existing nodes,
// the replacement included (see commit), else pending.
func (m *model) staticDrift() (*proposal, error) {
	budgets := m.budgets(ReasonDrifted)
	// count is a pool's nodes that stay (over-scaled: more than its
	// replicas); held, every node it has, those being deleted too, which
	// Karpenter counts against limits.nodes until they are gone.
	count, held := map[string]int{}, map[string]int{}
	for _, n := range m.nodes {
		if !n.managed {
			continue
		}
		held[n.poolName]++
		if !n.deleting {
			count[n.poolName]++
		}
	}
	for _, c := range m.driftCandidates(true) {
		p := c.n.pool
		if budgets.left[p.name] == 0 || int64(count[p.name]) > *p.np.Spec.Replicas {
			continue
		}
		if lim, ok := p.np.Spec.Limits[nodepool.ResourceNodes]; ok && int64(held[p.name]) >= lim.Value() {
			continue // the replacement must be reserved under the limit beside the node it replaces (D-173)
		}
		r, ok := m.bareClaim(p)
		if !ok {
			continue
		}
		return &proposal{method: MethodStaticDrift, reason: ReasonDrifted, cands: []*candidate{c}, repls: []*replacement{r}}, nil
	}
	return nil, nil
}

// bareClaim is a NodeClaim of a pool's template alone: every instance type
// its requirements allow that has an available offering there, cheapest
// first (at most defaultMaxOptions).
func (m *model) bareClaim(p *poolState) (*replacement, bool) {
	reqs := p.tmpl.Requirements
	var types []*instancetypes.InstanceType
	for _, it := range m.catalog.Filter(reqs) {
		if _, ok := cheapestOffering(it, reqs); ok {
			types = append(types, it)
		}
	}
	if len(types) == 0 {
		return nil, false
	}
	sortByPrice(types, reqs)
	types = types[:min(len(types), defaultMaxOptions)]
	nc := scheduler.NodeClaim{Name: p.name, NodePool: p.name, Labels: p.tmpl.LabelsCopy(), Taints: p.tmpl.Taints,
		StartupTaints: p.tmpl.StartupTaints, Pods: []string{}}
	return &replacement{nc: nc, reqs: reqs, types: types, worst: 0}, true
}

// defaultMaxOptions is scheduler.Solve's default cap on a NodeClaim's
// options.
const defaultMaxOptions = 100
