package scheduler

// WithoutRelaxations makes Solve leave Result.Relaxations empty: it does not
// judge the final plan's preferences pod by pod, which costs a second
// topology count over every existing node and bound pod. Nor does it make
// the plans that only keep the price of preferences at or below
// Karpenter's relaxation (PreferenceRespect): the input planned under the
// looser policies, kept when it honours the same preferences for less
// (which needs that judgement), and the plans that count soft spreads'
// domains as Karpenter does. The plan is otherwise the one Solve makes
// without the option. For callers that read only where pods go, such as a
// disruption planner that simulates many moves.
func WithoutRelaxations() Option {
	return func(c *config) { c.noRelaxations = true }
}

// WithSpreadDomainsKept makes the improvement phase keep, in the domains it
// was placed in, every pod that DoNotSchedule spreads count on two or more
// keys other than hostname (zone and capacity type, say): its moves
// (drains, merges, relocations, a lone pod replanted) stay within them,
// and so do those of the last phase that empties claims into the plan's
// other nodes (planempty.go).
// Without it a move may take such a pod to another domain when every
// spread still holds at the end, and the end may then be one no binding
// order reaches: kube-scheduler checks each pod's spreads as it binds it
// (seven replicas at maxSkew 1 over three zones and two capacity types,
// with zones 3, 2, 2 and spot 3, on-demand 4 at the end, but every spot
// replica in one zone). verify.Solve solves again with it when a plan
// fails only on that order; a plan made with it may cost more.
func WithSpreadDomainsKept() Option {
	return func(c *config) { c.keepTiedDomains = true }
}

// WithNameOrderOnTies makes a new NodeClaim go, of the NodePools of the
// weight that first takes a pod, to the first in Karpenter's order (by
// name, descending), as Karpenter does, even where another of that weight
// would cost less. Without it Solve also plans with new claims going to the
// cheapest of them and keeps that plan when it places more pods or the same
// for less. verify.Solve solves with it when a plan fails only on binding
// order (the cheaper pools may have given spreads an end no binding order
// reaches).
func WithNameOrderOnTies() Option {
	return func(c *config) { c.nameOrderTies = true }
}

// mayChangeDomain reports whether a pod of c may move to another domain
// (topology.Pod.MayChangeDomain, and not kept by WithSpreadDomainsKept).
func (s *solver) mayChangeDomain(c *class) bool {
	return c.topo.MayChangeDomain() && !s.keepsDomains(c)
}

// keepsDomains reports whether WithSpreadDomainsKept keeps the pods of c in
// their domains.
func (s *solver) keepsDomains(c *class) bool {
	return s.cfg.keepTiedDomains && c.topo.SpreadsTied()
}

// WithExistingNodesFirst plans for pods created now, which kube-scheduler
// binds to the existing nodes as soon as they fit there, before any
// NodeClaim's node joins: a pod planned on a ready existing node may pass
// its spreads against the existing nodes' pods and domains alone, and a
// pod planned on a NodeClaim never pushes it past its skew (topology's
// two-phase binding). The plan may then place more pods, but holds only if
// the pods bind in that order: one whose pods were pending before the
// NodeClaims' nodes joined (or that kube-scheduler had already failed to
// bind) may leave some pending. By default every pod's spreads are judged
// against every count, so the plan holds whenever the nodes join; verify
// accepts either.
func WithExistingNodesFirst() Option {
	return func(c *config) { c.existingFirst = true }
}
