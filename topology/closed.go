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
	t.CloseDomainsFrom(nodes, 0)
}

// CloseDomainsFrom is CloseDomains, where nodes[:fixed] are nodes no plan
// changes (a plan's existing nodes, first in every list it closes on):
// the domains they give each group are found once and kept while the
// tracker closes on the same first nodes (compared by pointer on every
// call; other first nodes are found again). The answer is CloseDomains':
// each group's closed domains are the sorted, distinct domains of the
// nodes that pass its filter, and the first lookup of a domain (which
// numbers it) comes in the same order, group by group, each group's nodes
// in order: a group's fixed nodes are looked up, when first asked, just
// before the others, as one loop over nodes would.
func (t *Tracker) CloseDomainsFrom(nodes []*Node, fixed int) {
	// Groups on one key share each node's domain, looked up when a group
	// first counts the node (so domains are interned in the same order as
	// one lookup per group and node would).
	fixed = min(fixed, len(nodes))
	fc := t.fixedClosing(nodes[:fixed])
	rest := nodes[fixed:]
	doms := map[*keyState][]int32{}
	for _, g := range t.groups {
		if g.kind != Spread {
			continue
		}
		if g.fixedVer != fc.ver {
			ds := fc.doms[g.ks]
			if ds == nil {
				ds = unknownDomains(len(fc.nodes))
				fc.doms[g.ks] = ds
			}
			g.fixedClosed = t.closedOn(g, fc.nodes, ds, g.fixedClosed[:0])
			slices.Sort(g.fixedClosed)
			g.fixedClosed = slices.Compact(g.fixedClosed)
			g.fixedVer = fc.ver
		}
		ds := doms[g.ks]
		if ds == nil {
			ds = unknownDomains(len(rest))
			doms[g.ks] = ds
		}
		t.scratch = t.closedOn(g, rest, ds, t.scratch[:0])
		slices.Sort(t.scratch)
		g.closed = mergeSorted(g.closed[:0], g.fixedClosed, slices.Compact(t.scratch))
		g.isClosed = true
		g.ver++
	}
}

// closing is what CloseDomainsFrom keeps of the fixed nodes: the nodes,
// their domains per key (domainUnknown until a group looks one up) and a
// version the groups' fixedClosed are made at.
type closing struct {
	nodes []*Node
	doms  map[*keyState][]int32
	ver   uint64
}

const domainUnknown, domainNone = -2, -1

// fixedClosing returns the tracker's closing for the fixed nodes, new
// (with a new version) unless it has the same nodes.
func (t *Tracker) fixedClosing(fixed []*Node) *closing {
	if c := t.closing; c != nil && slices.Equal(c.nodes, fixed) {
		return c
	}
	ver := uint64(1)
	if t.closing != nil {
		ver = t.closing.ver + 1
	}
	t.closing = &closing{nodes: slices.Clone(fixed), doms: map[*keyState][]int32{}, ver: ver}
	return t.closing
}

func unknownDomains(n int) []int32 {
	ds := make([]int32, n)
	for i := range ds {
		ds[i] = domainUnknown
	}
	return ds
}

// closedOn appends to out the domain of each node that passes g's filter
// (ds: the nodes' domains on g's key, looked up once each).
func (t *Tracker) closedOn(g *group, nodes []*Node, ds []int32, out []int32) []int32 {
	for i, n := range nodes {
		if !g.nodePasses(n) {
			continue
		}
		if ds[i] == domainUnknown {
			ds[i] = domainNone
			if d, ok := t.nodeDomain(g.ks, n); ok {
				ds[i] = d
			}
		}
		if ds[i] != domainNone {
			out = append(out, ds[i])
		}
	}
	return out
}

// mergeSorted appends to out the distinct values of a and b, both sorted
// and distinct, in order.
func mergeSorted(out, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
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
