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
// finish). When the portfolio chose a guarded plan (options.go), which it
// judged unfinished, the plan made without guarded plans is finished too
// and the guarded plan kept only when it places more pods, or the same
// pods for less.
func finishedOf(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	v, err := bestOfPolicy(pods, nodePools, catalog, cfg)
	if err != nil {
		return nil, err
	}
	fill := v.cfg.guarded
	if v, err = v.finish(pods, nodePools, catalog, cfg); err != nil || !fill {
		return v, err
	}
	base := cfg
	base.noGuarded = true
	o, err := bestOfPolicy(pods, nodePools, catalog, base)
	if err != nil {
		return nil, err
	}
	if o, err = o.finish(pods, nodePools, catalog, base); err != nil {
		return nil, err
	}
	return fillOr(v, o), nil
}

// fillOr returns fill (a guarded plan) when it places more pods than
// other, or the same pods for less; else other.
func fillOr(fill, other *solver) *solver {
	n, on := fill.finalPlaced(), other.finalPlaced()
	if n > on || (n == on && samePlaced(other, fill) && fill.planPrice() < other.planPrice()-priceEps) {
		return fill
	}
	return other
}
