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
