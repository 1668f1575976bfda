package disruption

// WithFullSimulation gives every simulation the whole cluster instead of
// the reduced view, and WithoutCache turns the failure cache off: tests
// check that neither changes a plan.
func WithFullSimulation() Option { return func(c *config) { c.fullSim = true } }

// WithoutCache: see WithFullSimulation.
func WithoutCache() Option { return func(c *config) { c.noCache = true } }
