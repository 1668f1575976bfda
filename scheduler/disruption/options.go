package disruption

import (
	"fmt"

	"github.com/nodeplan/nodeplan/scheduler"
)

// Option configures one Plan. Options are resolved once and validated; an
// invalid option is an error from Plan.
type Option func(*config)

// Search chooses how consolidation looks for commands. It never changes the
// safety rules (candidates, PodDisruptionBudgets, do-not-disrupt, budgets,
// consolidateAfter, the simulation).
type Search string

const (
	// SearchKarpenter is Karpenter's search, faithfully: Emptiness, then
	// StaticDrift, Drift, multi-node consolidation (a binary search over
	// prefixes of the candidates sorted by savings ratio, m→1 or m→0) and
	// single-node consolidation, one command per round.
	SearchKarpenter Search = "karpenter"
	// SearchGlobal searches subsets rather than prefixes, allows m→n
	// replacements when they cost less in total, treats NodePools
	// independently (a pending pod of one pool never blocks another),
	// skips commands below the minimum saving, never disrupts what an
	// earlier command created or filled, and prefers the fewest disrupted
	// nodes for a saving.
	SearchGlobal Search = "global"
)

// Prefer chooses what SearchGlobal gives up when its two aims part: on a
// NodePool whose nodes can only be deleted (spot nodes with spot-to-spot
// off), the lowest end price asks to delete many small nodes dear for the
// room they give, where the fewest disrupted nodes for a saving asks to
// delete the dearest nodes first.
type Prefer string

const (
	// PreferFewerDisruptions (the default) tries a NodePool's nodes in its
	// subsets dearest first, the surplus (surplus.go) before the others:
	// each command saves as much as it can per node it disrupts. It is
	// converged twice, the moved pods landing on the existing nodes by
	// name, then on the nodes cheapest per unit of room first
	// (fillorder.go), and the cheaper end is kept (the second only if it
	// disrupts no more nodes or saves the minimum saving on the extra
	// nodes it disrupts: plan.go, worthTheChurn). On a cluster of at most
	// 512 nodes SearchKarpenter is converged too; while it ends cheaper,
	// the global search is converged again in PreferLowerPrice's order,
	// then with single nodes only, and the cheapest end is kept; of the
	// ends no dearer than Karpenter's, one that reaches Karpenter's saving
	// disrupting fewer nodes than Karpenter is preferred (plan.go:
	// planGlobal).
	PreferFewerDisruptions Prefer = "fewer-disruptions"
	// PreferLowerPrice tries them dearest per unit of the room they give
	// first, and keeps nodes cheap for their room to the end. The plan is
	// converged so and as PreferFewerDisruptions converges it, and the
	// cheapest end is kept (of equal price, the one that disrupts fewer
	// nodes), so it never ends dearer than PreferFewerDisruptions; it
	// disrupts more nodes for its larger saving, and costs the three
	// convergences (on a cluster of at most 512 nodes also Karpenter's
	// search and, while that ends cheaper, single nodes only: plan.go,
	// planGlobal).
	PreferLowerPrice Prefer = "lower-price"
)

// DefaultSpotToSpotMinTypes is Karpenter's floor of cheaper spot instance
// types a single spot node needs before it is replaced by another spot node
// (MinInstanceTypesForSpotToSpotConsolidation).
const DefaultSpotToSpotMinTypes = 15

// DefaultBalancedK is Karpenter's k of the Balanced policy: a move is
// approved when its share of the pool's savings is at least 1/k of its
// share of the pool's disruption.
const DefaultBalancedK = 2

// defaultDestinations is the base of the bound on the nodes a global
// simulation's pods may land on (view.go: landable).
const defaultDestinations = 32

// DefaultMinSavingsRatio is SearchGlobal's least saving of a command
// without WithMinSavings: a tenth of the price of the nodes it disrupts,
// so that it never churns for cents.
const DefaultMinSavingsRatio = 0.1

type config struct {
	search Search
	prefer Prefer
	// unitOrder orders subsets dearest per unit of room first (one of
	// PreferLowerPrice's two convergences; planGlobal's second order).
	unitOrder bool
	// singlesOnly tries single nodes only, in Karpenter's order, never
	// subsets (planGlobal's last convergence).
	singlesOnly bool
	// fillCheap has simulations fill the existing nodes cheapest per unit
	// of room first (fillorder.go; one of planGlobal's convergences).
	fillCheap bool
	// deferSmall, when above 0, leaves to later commands the nodes of a
	// command that only deletes priced under this share of its dearest
	// node's (prune; planGlobal's convergences for fewer disruptions).
	deferSmall      float64
	maxCommands     int
	spotToSpot      bool
	spotMinTypes    int
	minSavings      float64
	minSavingsRatio float64
	balancedK       float64
	solveOpts       []scheduler.Option
	noRepack        bool
	maxProbes       int
	// fullSim gives every simulation the whole cluster (tests compare it
	// with the view).
	fullSim bool
	// noCache turns the failure cache off (tests).
	noCache bool
	// noPrefilter simulates what prefilter.go would rule out (tests).
	noPrefilter bool
	// noSplit simulates the multi-node probes split.go rules out (tests).
	noSplit bool
	// noFill skips planGlobal's fillCheap convergence (tests).
	noFill bool
	// noDefer skips planGlobal's deferSmall convergence (tests).
	noDefer     bool
	parallelism int
	// destinations bounds the nodes a global simulation's pods may land
	// on (view.go: landable).
	destinations int
}

// WithSearch chooses the search (default SearchKarpenter).
func WithSearch(s Search) Option { return func(c *config) { c.search = s } }

// WithPrefer chooses what SearchGlobal favours when a lower end price
// needs more disrupted nodes (default PreferFewerDisruptions). An error
// with SearchKarpenter, whose order is Karpenter's.
func WithPrefer(p Prefer) Option { return func(c *config) { c.prefer = p } }

// WithMaxCommands stops after n commands (0, the default, converges: it
// applies each command to the model and repeats until no method finds one).
// WithMaxCommands(1) answers "what would Karpenter do now".
func WithMaxCommands(n int) Option { return func(c *config) { c.maxCommands = n } }

// WithSpotToSpot turns on Karpenter's SpotToSpotConsolidation feature gate
// (off by default, as in Karpenter): a spot node may then be replaced by a
// cheaper spot node. A single node needs at least minCheaperTypes cheaper
// spot instance types (Karpenter: DefaultSpotToSpotMinTypes), and its
// replacement lists the cheapest minCheaperTypes of them.
func WithSpotToSpot(minCheaperTypes int) Option {
	return func(c *config) { c.spotToSpot, c.spotMinTypes = true, minCheaperTypes }
}

// WithMinSavings sets the least a command of SearchGlobal must save, per
// hour and as a fraction of the price of the nodes it disrupts (both must
// hold). SearchKarpenter takes any positive saving, as Karpenter does; the
// option is an error there.
func WithMinSavings(perHour, fraction float64) Option {
	return func(c *config) { c.minSavings, c.minSavingsRatio = perHour, fraction }
}

// WithBalancedK sets the k of the Balanced consolidation policy (default
// DefaultBalancedK).
func WithBalancedK(k float64) Option { return func(c *config) { c.balancedK = k } }

// WithSchedulerOptions passes options to every scheduler.Solve of the
// simulation (a preference or minValues policy, say). The cluster's own
// state (nodes, pods, DaemonSets, volumes, namespaces) comes from the
// Cluster; options that set it are not allowed here.
func WithSchedulerOptions(opts ...scheduler.Option) Option {
	return func(c *config) { c.solveOpts = append(c.solveOpts, opts...) }
}

// WithoutRepack skips the repack figures of the summary (a Solve of every
// pod of the cluster on new nodes).
func WithoutRepack() Option { return func(c *config) { c.noRepack = true } }

// WithParallelism sets how many simulations may run at once (default: one
// per core, at most 8; 1 runs them one at a time, and the convergences of
// the global search on a small cluster one after another: planGlobal). The
// plan does not depend on it.
func WithParallelism(n int) Option { return func(c *config) { c.parallelism = n } }

// WithMaxProbes bounds the simulations one round of a method may run
// (default 0: no bound). Karpenter bounds its rounds by time (1 minute for
// multi-node, 3 for single-node consolidation); a bound on work keeps the
// answer independent of the machine.
func WithMaxProbes(n int) Option { return func(c *config) { c.maxProbes = n } }

func resolve(opts []Option) (config, error) {
	c := config{search: SearchKarpenter, spotMinTypes: DefaultSpotToSpotMinTypes, balancedK: DefaultBalancedK,
		minSavings: -1, minSavingsRatio: -1, destinations: defaultDestinations}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	switch c.search {
	case SearchKarpenter:
		if c.minSavings >= 0 || c.minSavingsRatio >= 0 {
			return c, fmt.Errorf("minimum savings: only the global search has one (Karpenter takes any positive saving)")
		}
		if c.prefer != "" {
			return c, fmt.Errorf("prefer %q: only the global search has a choice (Karpenter's order is its own)", c.prefer)
		}
	case SearchGlobal:
		switch c.prefer {
		case "":
			c.prefer = PreferFewerDisruptions
		case PreferFewerDisruptions, PreferLowerPrice:
		default:
			return c, fmt.Errorf("prefer %q: want %s or %s", c.prefer, PreferFewerDisruptions, PreferLowerPrice)
		}
	default:
		return c, fmt.Errorf("search %q: want %s or %s", c.search, SearchKarpenter, SearchGlobal)
	}
	if c.minSavings < 0 {
		c.minSavings = 0
	}
	if c.minSavingsRatio < 0 {
		c.minSavingsRatio = 0
		if c.search == SearchGlobal {
			c.minSavingsRatio = DefaultMinSavingsRatio
		}
	}
	if c.minSavingsRatio >= 1 {
		return c, fmt.Errorf("minimum savings fraction %v: must be below 1", c.minSavingsRatio)
	}
	if c.maxCommands < 0 || c.maxProbes < 0 || c.parallelism < 0 {
		return c, fmt.Errorf("max commands %d, max probes %d: must not be negative", c.maxCommands, c.maxProbes)
	}
	if c.spotMinTypes < 1 {
		return c, fmt.Errorf("spot-to-spot minimum types %d: must be at least 1", c.spotMinTypes)
	}
	if c.balancedK <= 0 {
		return c, fmt.Errorf("balanced k %v: must be positive", c.balancedK)
	}
	return c, nil
}
