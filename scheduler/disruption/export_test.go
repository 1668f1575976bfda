package disruption

import (
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// WithFullSimulation gives every simulation the whole cluster instead of
// the reduced view, and WithoutCache turns the failure cache off: tests
// check that neither changes a plan.
func WithFullSimulation() Option { return func(c *config) { c.fullSim = true } }

// WithoutPrefilter simulates every consolidation the checks of
// prefilter.go would rule out (tests compare the commands).
func WithoutPrefilter() Option { return func(c *config) { c.noPrefilter = true } }

// WithoutSplitProof simulates every multi-node probe split.go would rule
// out (tests compare the whole plan).
func WithoutSplitProof() Option { return func(c *config) { c.noSplit = true } }

// WithoutFillCheap leaves out the global search's convergence whose
// moved pods fill the nodes cheapest per unit of room first (tests show
// what it adds).
func WithoutFillCheap() Option { return func(c *config) { c.noFill = true } }

// WithoutDeferSmall leaves out the global search's convergence that
// leaves the small nodes of deleting commands to later ones.
func WithoutDeferSmall() Option { return func(c *config) { c.noDefer = true } }

// WithDestinations sets the base of the bound on the nodes a global
// simulation's pods may land on (tests make it bind on small clusters).
func WithDestinations(n int) Option { return func(c *config) { c.destinations = n } }

// WithoutCache: see WithFullSimulation.
func WithoutCache() Option { return func(c *config) { c.noCache = true } }

// AllAtOnce simulates removing every consolidation candidate at once (no
// budget) and returns the cluster's price before and after (debugging).
func AllAtOnce(c Cluster, pools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, opts ...Option) (float64, float64, int, error) {
	cfg, _ := resolve(opts)
	m, err := newModel(c, pools, catalog, now, cfg)
	if err != nil {
		return 0, 0, 0, err
	}
	cands, _ := m.consolidationCandidates()
	price := 0.0
	for _, c := range cands {
		price += c.n.price
	}
	sim, err := m.simulate(simInput{cands: cands, gate: true, method: MethodGlobal})
	if err != nil {
		return 0, 0, 0, err
	}
	cost := 0.0
	for _, nc := range sim.res.NodeClaims {
		cost += nc.Price
	}
	return m.totalPrice(), m.totalPrice() - price + cost, len(sim.res.PodErrors), nil
}

// RepackByPool is the repack plan's price (Summary.RepackPricePerHour)
// by NodePool: where the gap from an end to it lies (tests).
func RepackByPool(c Cluster, pools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time) (map[string]float64, error) {
	cfg, err := resolve(nil)
	if err != nil {
		return nil, err
	}
	m, err := newModel(c, pools, catalog, now, cfg)
	if err != nil {
		return nil, err
	}
	res, err := m.repackPlan()
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, nc := range res.NodeClaims {
		out[nc.NodePool] += nc.Price
	}
	return out, nil
}
