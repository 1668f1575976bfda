package disruption

import (
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// Plan computes what Karpenter's disruption controller does with a running
// cluster at now: the commands (expiration, emptiness, drift and
// consolidation, in Karpenter's order) that delete or replace nodes, each
// applied to the model before the next is sought, until no method finds
// one (or WithMaxCommands is reached); for every node that stays, the rule
// that keeps it and the numbers behind it; and the totals.
//
// Every command is valid on the cluster as the commands before it leave it:
// its simulation, a scheduler.Solve of the moved pods over the remaining
// nodes, places every pod that was not pending (verify.Plan accepts
// it). Time is the argument now: the plan is a function of its input.
// error is only for invalid input: a node whose instance type the catalog
// does not know, a bad budget, a PodDisruptionBudget with both
// minAvailable and maxUnavailable, and so on (InputErrors, joined).
func Plan(c Cluster, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, opts ...Option) (Result, error) {
	cfg, err := resolve(opts)
	if err != nil {
		return Result{}, err
	}
	if cfg.search == SearchGlobal {
		return planGlobal(c, nodePools, catalog, now, cfg)
	}
	res, _, err := converge(c, nodePools, catalog, now, cfg)
	return res, err
}

// guardMaxNodes bounds the clusters on which the global search also
// converges Karpenter's search, to end no dearer and to disrupt fewer
// nodes for Karpenter's saving where it can (planGlobal). Karpenter's
// search costs about a second there (110 nodes: 0.4–0.7 CPU s; 443
// nodes: 1–2); on the larger generated clusters measured (1,020 nodes and
// up) the global search alone ended below it, and Karpenter's search costs
// several times the global one.
const guardMaxNodes = 512

// planGlobal is Plan with SearchGlobal: it converges more than once,
// and keeps the end that is cheapest, then disrupts fewer nodes, then
// takes fewer commands, then was made first (endsBetter):
//
//   - with PreferFewerDisruptions, subsets dearest first, with the moved
//     pods landing where Solve puts them (existing nodes by name), then
//     landing on the nodes cheapest per unit of room first (fillCheap,
//     fillorder.go), kept only when it disrupts no more nodes or saves
//     the minimum saving on the extra nodes it disrupts (worthTheChurn);
//   - with PreferLowerPrice, subsets dearest per unit of room first, then
//     the two convergences of the default (so it never ends dearer than
//     the default);
//   - on a cluster of at most guardMaxNodes nodes, fewer disruptions only
//     as long as the end is no dearer than Karpenter's: Karpenter's search
//     is converged too, beside the global one (before it under
//     WithParallelism(1)), and while it ends cheaper
//     the global search is converged again, in PreferLowerPrice's order
//     (if not made yet), then with single nodes only, in Karpenter's order
//     (singlesOnly: Karpenter's path under the global search's rules).
//     Subsets of the dearest nodes first can end a NodePool whose nodes can
//     only be deleted a few cents above Karpenter's single-node order,
//     which deletes the small nodes the dearest ones' pods would fill.
//     Then, with PreferFewerDisruptions, if the end kept needs more
//     disrupted nodes than Karpenter's commands to reach Karpenter's
//     saving (fewerThan), the plain and fill-cheap orders converge again
//     with the small nodes of each deleting command left to later
//     commands (deferSmall: a node priced under 30%, then 60%, then 80% of
//     its command's dearest node's), the two orders side by side, until
//     one of them reaches the saving with fewer disrupted nodes; then, if
//     an end no dearer than Karpenter's needs fewer, the cheapest such end
//     is kept instead: the end that fills the cheap room first can save
//     more while its commands disrupt more nodes on the way, and one
//     command deleting a large node with small ones disrupts them all
//     before the next large node goes.
//
// Karpenter's own commands are never returned: they may save cents (no
// minimum saving) or undo one another. Stats count every convergence.
func planGlobal(c Cluster, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, cfg config) (Result, error) {
	full := cfg
	full.maxCommands, full.noRepack = 0, true
	guard := len(c.Nodes) <= guardMaxNodes
	var k Result
	var kerr error
	done := make(chan struct{})
	if guard {
		kc := full
		kc.search, kc.prefer, kc.unitOrder, kc.minSavings, kc.minSavingsRatio = SearchKarpenter, "", false, 0, 0
		karpenter := func() {
			defer close(done)
			k, _, kerr = converge(c, nodePools, catalog, now, kc)
		}
		if cfg.parallelism == 1 {
			karpenter()
		} else {
			go karpenter()
		}
	} else {
		close(done)
	}
	var best Result
	var stats []Stats
	var rp repackFigures
	type end struct {
		res Result
		o   searchOrder
	}
	var ends []end // with guard: every end the churn rule lets compete
	run := func(o searchOrder) (Result, *model, error) {
		oc := full
		o.apply(&oc)
		return converge(c, nodePools, catalog, now, oc)
	}
	take := func(res Result, m *model, o searchOrder) error {
		if !rp.made && m != nil && !cfg.noRepack && cfg.maxCommands == 0 {
			// Every end holds the same pods (moved, or still pending), so
			// the first end's repack is every end's: the model need not be
			// kept while the next convergence runs.
			var err error
			if rp.price, rp.bound, err = m.repack(); err != nil {
				return err
			}
			rp.made = true
		}
		stats = append(stats, res.Stats)
		churn := (o.fill || o.deferred > 0) && cfg.prefer != PreferLowerPrice && !worthTheChurn(res, best, cfg)
		if churn && o.deferred == 0 {
			return nil
		}
		if guard { // only the choice against Karpenter's end reads them
			ends = append(ends, end{res, o})
		}
		// An end with small nodes deferred competes for fewer disruptions
		// on the way (below) even when its churn is not worth its saving.
		if !churn && (len(stats) == 1 || endsBetter(res.Summary, best.Summary)) {
			best = res
			o.apply(&cfg)
		}
		return nil
	}
	try := func(o searchOrder) error {
		res, m, err := run(o)
		if err != nil {
			return err
		}
		return take(res, m, o)
	}
	var err error
	if cfg.prefer == PreferLowerPrice {
		err = try(searchOrder{unit: true})
	}
	if err == nil {
		err = try(searchOrder{})
	}
	if err == nil && !cfg.noFill {
		err = try(searchOrder{fill: true})
	}
	<-done
	if err != nil {
		return Result{}, err
	}
	if !guard {
		return finishChosen(c, nodePools, catalog, now, cfg, best, rp, stats)
	}
	if kerr != nil {
		return Result{}, kerr
	}
	stats = append(stats, k.Stats)
	dearer := func() bool { return best.Summary.PricePerHourAfter > k.Summary.PricePerHourAfter }
	if dearer() && cfg.prefer != PreferLowerPrice { // lower-price made the unit order already
		if err := try(searchOrder{unit: true}); err != nil {
			return Result{}, err
		}
	}
	if dearer() {
		if err := try(searchOrder{singles: true}); err != nil {
			return Result{}, err
		}
	}
	if cfg.prefer != PreferLowerPrice && !dearer() && !fewerThan(best, k) {
		// Fewer disruptions than Karpenter for its saving, where an end
		// no dearer than Karpenter's gives that: the cheapest such end.
		// First, the orders of the plain and fill-cheap ends converge
		// again with the small nodes of their deleting commands left to
		// later commands (deferSmall), the shares in turn, until an end
		// gives it.
		fewer := func(e end) bool {
			return e.res.Summary.PricePerHourAfter <= k.Summary.PricePerHourAfter && fewerThan(e.res, k)
		}
		kept := searchOrder{unit: cfg.unitOrder, singles: cfg.singlesOnly, fill: cfg.fillCheap}
		orders := []searchOrder{kept}
		if !cfg.noFill && !kept.unit && !kept.singles {
			orders = append(orders, searchOrder{fill: !kept.fill})
		}
		shares := deferShares
		if cfg.noDefer {
			shares = nil
		}
		// last is the latest end made in o's order, whatever its share.
		last := func(o searchOrder) *end {
			for i := len(ends) - 1; i >= 0; i-- {
				if e := &ends[i]; e.o.unit == o.unit && e.o.singles == o.singles && e.o.fill == o.fill {
					return e
				}
			}
			return nil
		}
		for _, share := range shares {
			// An order whose last end defers nothing at this share would
			// converge to that end again: skipped.
			var todo []searchOrder
			for _, o := range orders {
				if e := last(o); e == nil || defers(e.res, share) {
					o.deferred = share
					todo = append(todo, o)
				}
			}
			// The orders converge side by side (a model each: at most
			// guardMaxNodes nodes), then are taken in order.
			res := make([]Result, len(todo))
			errs := make([]error, len(todo))
			var wg sync.WaitGroup
			for i, o := range todo {
				if cfg.parallelism == 1 || i == len(todo)-1 {
					res[i], _, errs[i] = run(o)
					continue
				}
				wg.Go(func() { res[i], _, errs[i] = run(o) })
			}
			wg.Wait()
			n := len(ends)
			for i, o := range todo {
				if errs[i] != nil {
					return Result{}, errs[i]
				}
				if err := take(res[i], nil, o); err != nil {
					return Result{}, err
				}
			}
			if slices.ContainsFunc(ends[n:], fewer) {
				break
			}
		}
		var pick *end
		for i := range ends {
			e := &ends[i]
			if fewer(*e) && (pick == nil || endsBetter(e.res.Summary, pick.res.Summary)) {
				pick = e
			}
		}
		if pick != nil {
			best = pick.res
			pick.o.apply(&cfg)
		}
	}
	return finishChosen(c, nodePools, catalog, now, cfg, best, rp, stats)
}

// searchOrder is how one of planGlobal's convergences searches: the
// config fields unitOrder, singlesOnly, fillCheap and deferSmall.
type searchOrder struct {
	unit, singles, fill bool
	deferred            float64
}

// apply sets the order in a config.
func (o searchOrder) apply(c *config) {
	c.unitOrder, c.singlesOnly, c.fillCheap, c.deferSmall = o.unit, o.singles, o.fill, o.deferred
}

// deferShares are the shares of deferSmall planGlobal converges with
// when its end needs more disrupted nodes than Karpenter's to reach
// Karpenter's saving: a node priced under that share of its command's
// dearest node is left to a later command.
var deferShares = []float64{0.3, 0.6, 0.8}

// defers reports whether converging with deferSmall at share would leave
// some node of r's commands to a later one: a command of the global search
// deletes, without replacements, a node priced under share of its dearest
// node's beside others. Otherwise that convergence takes r's commands
// again (deferSmall changes only such commands) and ends where r does.
func defers(r Result, share float64) bool {
	for _, c := range r.Commands {
		if c.Method != MethodGlobal || len(c.Replacements) > 0 || len(c.Nodes) < 2 {
			continue
		}
		top := 0.0
		for _, n := range c.Nodes {
			top = max(top, n.Price)
		}
		if slices.ContainsFunc(c.Nodes, func(n CommandNode) bool { return n.Price < share*top }) {
			return true
		}
	}
	return false
}

// fewerThan reports whether a's commands reach k's saving disrupting fewer
// nodes than k's commands do (k's whole plan).
func fewerThan(a, k Result) bool {
	n, saved := 0, 0.0
	for _, c := range a.Commands {
		n += len(c.Nodes)
		saved += c.SavingsPerHour
		if saved >= k.Summary.SavingsPerHour-1e-9 {
			return n < k.Summary.NodesDisrupted
		}
	}
	return false
}

// finishChosen completes the plan a choice between full convergences kept
// (best, converged with cfg's order): with WithMaxCommands it is planned
// again up to it, else it gets its repack figures; Stats add up stats and
// that last convergence.
func finishChosen(c Cluster, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, cfg config, best Result, rp repackFigures, stats []Stats) (Result, error) {
	if cfg.maxCommands > 0 {
		res, _, err := converge(c, nodePools, catalog, now, cfg)
		if err != nil {
			return Result{}, err
		}
		best, stats = res, append(stats, res.Stats)
	} else if rp.made {
		best.Summary.RepackPricePerHour, best.Summary.RepackLowerBound = rp.price, rp.bound
	}
	best.Stats = sumStats(stats)
	return best, nil
}

// repackFigures are the repack price and its lower bound, once made.
type repackFigures struct {
	price, bound float64
	made         bool
}

// endsBetter: a ends cheaper than b, or as cheap disrupting fewer nodes,
// or with fewer commands.
func endsBetter(a, b Summary) bool {
	if a.PricePerHourAfter != b.PricePerHourAfter {
		return a.PricePerHourAfter < b.PricePerHourAfter
	}
	if a.NodesDisrupted != b.NodesDisrupted {
		return a.NodesDisrupted < b.NodesDisrupted
	}
	return a.Commands < b.Commands
}

// worthTheChurn reports whether end a, which disrupts more nodes than end
// b, saves enough more to be kept in its place under
// PreferFewerDisruptions: as much more as a command must save for the
// nodes it disrupts (the minimum saving: WithMinSavings), counted on the
// nodes a disrupts beyond b's number, each at the mean price of a's
// disrupted nodes (a may disrupt more, smaller nodes for less in all). An
// end that disrupts no more nodes is always worth it.
func worthTheChurn(a, b Result, cfg config) bool {
	more := a.Summary.NodesDisrupted - b.Summary.NodesDisrupted
	if more <= 0 {
		return true
	}
	extra := float64(more) * disruptedPrice(a) / float64(a.Summary.NodesDisrupted)
	gain := b.Summary.PricePerHourAfter - a.Summary.PricePerHourAfter
	return gain > 1e-9 && gain >= max(cfg.minSavings, cfg.minSavingsRatio*extra)-1e-9
}

// disruptedPrice is the price per hour of the nodes a plan's commands
// disrupt.
func disruptedPrice(r Result) float64 {
	p := 0.0
	for _, c := range r.Commands {
		for _, n := range c.Nodes {
			p += n.Price
		}
	}
	return p
}

// sumStats adds up the work of several convergences.
func sumStats(ss []Stats) Stats {
	out := Stats{Simulations: map[Method]int{}}
	for _, s := range ss {
		for k, v := range s.Simulations {
			out.Simulations[k] += v
		}
		out.PodsSimulated += s.PodsSimulated
		out.CacheHits += s.CacheHits
		out.Prefiltered += s.Prefiltered
		out.Thinned += s.Thinned
	}
	return out
}

// converge plans with cfg: commands until no method finds one (or
// cfg.maxCommands), every kept node's reason, the summary and, unless
// cfg.noRepack, the repack figures; with the model at its end.
func converge(c Cluster, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, cfg config) (Result, *model, error) {
	m, err := newModel(c, nodePools, catalog, now, cfg)
	if err != nil {
		return Result{}, nil, err
	}
	start := m.totalPrice()
	var cmds []Command
	var next *proposal
	whys := map[*node]*why{}
	for {
		clear(whys)
		p, err := m.round(whys)
		if err != nil {
			return Result{}, nil, err
		}
		if p == nil {
			break
		}
		if cfg.maxCommands > 0 && len(cmds) == cfg.maxCommands {
			next = p
			break
		}
		cmd, err := m.commit(p, len(cmds)+1)
		if err != nil {
			return Result{}, nil, err
		}
		cmds = append(cmds, cmd)
	}
	if cmds == nil {
		cmds = []Command{}
	}
	nodes, err := m.explain(whys, next)
	if err != nil {
		return Result{}, nil, err
	}
	res := Result{Commands: cmds, Nodes: nodes, Stats: m.stats}
	res.Summary = m.summary(start, cmds)
	if !cfg.noRepack {
		if res.Summary.RepackPricePerHour, res.Summary.RepackLowerBound, err = m.repack(); err != nil {
			return Result{}, nil, err
		}
	}
	return res, m, nil
}

// round is one pass of the disruption loop: the first method that finds a
// command wins. whys collects, per node, why the methods that looked at it
// let it be.
func (m *model) round(whys map[*node]*why) (*proposal, error) {
	if m.cfg.search == SearchGlobal {
		return m.globalRound(whys)
	}
	if p, err := m.expiration(whys); p != nil || err != nil {
		return p, err
	}
	if p := m.emptiness(); p != nil {
		return p, nil
	}
	if p, err := m.staticDrift(); p != nil || err != nil {
		return p, err
	}
	if p, err := m.drift(); p != nil || err != nil {
		return p, err
	}
	if p, err := m.multiNode(); p != nil || err != nil {
		return p, err
	}
	return m.singleNode(whys)
}

// summary totals the plan.
func (m *model) summary(start float64, cmds []Command) Summary {
	s := Summary{Commands: len(cmds), PricePerHour: roundPrice(start), PricePerHourAfter: roundPrice(m.totalPrice())}
	s.SavingsPerHour = roundPrice(s.PricePerHour - s.PricePerHourAfter)
	for _, n := range m.gone {
		if n.createdBy == 0 {
			s.Nodes++
		}
	}
	for _, n := range m.nodes {
		if n.createdBy == 0 {
			s.Nodes++
		}
	}
	for _, c := range cmds {
		s.NodesDisrupted += len(c.Nodes)
		for _, mv := range c.Moves {
			if mv.From != "" {
				s.PodsMoved++
			}
		}
	}
	return s
}

// repack is Solve of every pod of the cluster on new nodes only (no
// existing node, no disruption rule): its price and its lower bound. The
// pods are those of the end state (every reschedulable pod once: commands
// only move them) and the pending ones.
func (m *model) repack() (float64, float64, error) {
	res, err := m.repackPlan()
	if err != nil {
		return 0, 0, err
	}
	return res.Summary.PricePerHour, res.Summary.PriceLowerBound, nil
}

// repackPlan is the plan behind repack: every pod of the cluster on new
// nodes of its NodePools.
func (m *model) repackPlan() (scheduler.Result, error) {
	var pods []*corev1.Pod
	for _, n := range m.nodes {
		for _, p := range n.pods {
			if p.reschedulable() {
				pods = append(pods, p.unbound(false))
			}
		}
	}
	for _, p := range m.pending {
		pods = append(pods, p.unbound(false))
	}
	opts := m.clusterOptions()
	if prep := m.preparedFor(m.catalog); prep != nil {
		opts = append(opts, scheduler.WithPrepared(prep))
	}
	return scheduler.Solve(pods, m.nodePools, m.catalog, opts...)
}
