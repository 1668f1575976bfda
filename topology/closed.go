package topology

import "slices"

// CloseDomains fixes the domains every spread group's global minimum runs
// over to those of nodes, the nodes of a plan that opens no more
// NodeClaims: its existing nodes and the node each NodeClaim launches as.
// kube-scheduler takes the minimum over the domains of the nodes that pass
// a constraint's node filter (nodeAffinityPolicy, nodeTaintsPolicy) and
// carry its key. While a plan may still open NodeClaims, every value a
// source offers the pod may become such a domain (and hostname always has
// an empty one), so the open count takes those; once the nodes are known
// the minimum is theirs, which is never lower. Call it again when a node
// changes; OpenDomains returns to the open count.
func (t *Tracker) CloseDomains(nodes []*Node) {
	// Groups on one key share each node's domain, looked up when a group
	// first counts the node (so domains are interned in the same order as
	// one lookup per group and node would).
	const unknown, none = -2, -1
	doms := map[*keyState][]int32{}
	for _, g := range t.groups {
		if g.kind != Spread {
			continue
		}
		ds := doms[g.ks]
		if ds == nil {
			ds = make([]int32, len(nodes))
			for i := range ds {
				ds[i] = unknown
			}
			doms[g.ks] = ds
		}
		g.closed = g.closed[:0]
		for i, n := range nodes {
			if !g.nodePasses(n) {
				continue
			}
			if ds[i] == unknown {
				ds[i] = none
				if d, ok := t.nodeDomain(g.ks, n); ok {
					ds[i] = d
				}
			}
			if ds[i] != none {
				g.closed = append(g.closed, ds[i])
			}
		}
		slices.Sort(g.closed)
		g.closed = slices.Compact(g.closed)
		g.isClosed = true
		g.ver++
	}
}

// OpenDomains undoes CloseDomains: the global minimum runs over the domains
// the pods could use again.
func (t *Tracker) OpenDomains() {
	for _, g := range t.groups {
		g.isClosed = false
	}
}

// HasSpread reports whether some pod carries a topology spread constraint.
func (t *Tracker) HasSpread() bool {
	return slices.ContainsFunc(t.groups, func(g *group) bool { return g.kind == Spread })
}

// SpreadReach returns, for each spread term of the pod in order, the
// number of domains holding a pod its group selects: how far the pod's
// spreads reach. A move that keeps every entry from dropping leaves each
// spread over as many domains as before (it may change which).
func (t *Tracker) SpreadReach(p *Pod) []int {
	var out []int
	for _, term := range p.Terms {
		if term.Kind == Spread {
			out = append(out, term.g.nonzero)
		}
	}
	return out
}

// FollowsPods reports whether the pod has a required pod affinity term:
// where it may go depends on where the pods it selects are.
func (p *Pod) FollowsPods() bool {
	return slices.ContainsFunc(p.Terms, func(t Term) bool { return t.Kind == Affinity && t.Required })
}
