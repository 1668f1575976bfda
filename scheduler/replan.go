package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// The plans made again when a plan leaves pods unplaced (owners queued
// last, classes left out, preferences dropped, owners held, targets
// spread) differ in their config only: each is made like the plan it may
// replace and kept only when it places more pods.

// orClosedReplan plans the input under alt (placed and improved), judges
// it as it launches, closes it, and returns it when it places more pods
// than s (closed); else s.
func (s *solver) orClosedReplan(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, alt config) (*solver, error) {
	v, err := newSolver(pods, nodePools, catalog, alt)
	if err != nil {
		return nil, err
	}
	v.plan()
	if v.finalMayDrop() {
		v.nodeClaims() // judged as it launches, as bestPlan judges
	}
	v.closePlan()
	if v.placed() > s.placed() {
		return v, nil
	}
	return s, nil
}

// orFinishedReplan plans the input under alt with its alternatives and
// finishes it (bestOfPolicy, finish), and returns it when it places more
// pods as it launches than best, finished; else best.
// replanOf is c with the policies and held classes of the plan best (which
// may have dropped preferences or held owners), for a plan made to replace
// it.
func (c config) replanOf(best *solver) config {
	c.preference, c.preferenceByKind, c.judgedAs, c.held = best.cfg.preference, best.cfg.preferenceByKind, best.cfg.judgedAs, best.cfg.held
	return c
}

func (best *solver) orFinishedReplan(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, alt config) (*solver, error) {
	v, err := finishedOf(pods, nodePools, catalog, alt)
	if err != nil {
		return nil, err
	}
	if v.finalPlaced() > best.finalPlaced() {
		return v, nil
	}
	return best, nil
}

// finishedOf is the finished plan of cfg's portfolio (bestOfPolicy,
// finish), guarded plans judged finished (unguarded).
func finishedOf(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	return unguarded(cfg, func(c config) (*solver, bool, error) {
		v, err := bestOfPolicy(pods, nodePools, catalog, c)
		if err != nil {
			return nil, false, err
		}
		guarded := v.cfg.guarded
		v, err = v.finish(pods, nodePools, catalog, c)
		return v, guarded, err
	})
}

// unguarded returns the plan plan makes for cfg. When the portfolio chose
// a guarded plan (options.go), which it judged unfinished, the plan made
// without guarded plans is made to the end too, since finishing and the
// plans compared after it may complete that one more, and the guarded plan
// is kept only when it places more pods, or the same pods for less. plan
// reports whether its portfolio chose a guarded plan.
func unguarded(cfg config, plan func(config) (*solver, bool, error)) (*solver, error) {
	g, guarded, err := plan(cfg)
	if err != nil || !guarded {
		return g, err
	}
	base := cfg
	base.noGuarded = true
	other, _, err := plan(base)
	if err != nil {
		return nil, err
	}
	n, on := g.finalPlaced(), other.finalPlaced()
	if n > on || (n == on && samePlaced(other, g) && g.planPrice() < other.planPrice()-priceEps) {
		return g, nil
	}
	return other, nil
}

// orLimitsFirst returns, when s leaves pods where NodePool limits bind,
// the plan of two made then that places the most, closed, when it places
// more than s; else s. The first places first, smallest first, the pods s
// leaves unplaced, and then the rest largest first: largest first may fill
// what the limits allow with large pods, and the plans for bounded
// NodePools (smallest first) may leave a large pod, and the followers its
// hostname affinity brings, no room (seed 28115: 25 and 18 pods of 61
// where this plan places 30, Karpenter 28). The second queues every pod by
// what it spends of the limits on a node that holds it (limitSpends), the
// least first: smallest by the resources the limits count, a pod asking
// little cpu and most of a node's memory spends a whole node of a cpu
// limit (seed 31896: 22 pods, and 25 for the first plan, where this one
// places 39, Karpenter 32). Both are made last, from the plan Solve keeps,
// and kept only when they place more as both launch, so that they only
// ever add: as more plans among the alternatives, or made as each
// policy's plan finished, they steered the choices after them (26177,
// 23090; the second, queued so in the plans for bounded NodePools, left
// 29 of 2,000 seeds of 30001-32000 with fewer pods).
// Consolidation's simulations (WithoutRelaxations) do without them, as they
// do without the plan in Karpenter's order: the first changed none of
// their answers on the generated clusters and cost a third more CPU.
func (s *solver) orLimitsFirst(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog) (*solver, error) {
	cfg := s.cfg
	if cfg.first != nil || cfg.noRelaxations || len(s.pending) > alternativeMaxPods || s.placed() == len(s.pending) || !s.limitsLeftPods() {
		return s, nil
	}
	var alts []config
	if !s.reorderMayHelp() {
		first := cfg
		first.first = s.unplacedNames()
		alts = append(alts, first)
	}
	spend := cfg
	spend.fillBounded, spend.spendOrder = true, true
	alts = append(alts, spend)
	best := s
	for _, alt := range alts {
		v, err := newSolver(pods, nodePools, catalog, alt)
		if err != nil {
			return nil, err
		}
		v.plan()
		v.closePlan()
		v.redeclare() // not finished: its moves may have left a pod on an undeclared label
		if v.finalPlaced() > best.finalPlaced() {
			best = v
		}
	}
	return best, nil
}
