package disruption

import (
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
	m, err := newModel(c, nodePools, catalog, now, cfg)
	if err != nil {
		return Result{}, err
	}
	start := m.totalPrice()
	var cmds []Command
	var next *proposal
	whys := map[*node]*why{}
	for {
		clear(whys)
		p, err := m.round(whys)
		if err != nil {
			return Result{}, err
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
			return Result{}, err
		}
		cmds = append(cmds, cmd)
	}
	if cmds == nil {
		cmds = []Command{}
	}
	nodes, err := m.explain(whys, next)
	if err != nil {
		return Result{}, err
	}
	res := Result{Commands: cmds, Nodes: nodes, Stats: m.stats}
	res.Summary = m.summary(start, cmds)
	if !cfg.noRepack {
		if res.Summary.RepackPricePerHour, res.Summary.RepackLowerBound, err = m.repack(); err != nil {
			return Result{}, err
		}
	}
	return res, nil
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
	res, err := scheduler.Solve(pods, m.nodePools, m.catalog, opts...)
	if err != nil {
		return 0, 0, err
	}
	return res.Summary.PricePerHour, res.Summary.PriceLowerBound, nil
}
