package scheduler

// WithoutRelaxations makes Solve leave Result.Relaxations empty: it does not
// judge the final plan's preferences pod by pod, which costs a second
// topology count over every existing node and bound pod. The plan itself
// (NodeClaims, placements, pod errors, summary) is the one Solve makes
// without the option. For callers that read only where pods go, such as a
// disruption planner that simulates many moves.
func WithoutRelaxations() Option {
	return func(c *config) { c.noRelaxations = true }
}
