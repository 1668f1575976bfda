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
	v, err := bestOfPolicy(pods, nodePools, catalog, alt)
	if err != nil {
		return nil, err
	}
	if v, err = v.finish(pods, nodePools, catalog, alt); err != nil {
		return nil, err
	}
	if v.finalPlaced() > best.finalPlaced() {
		return v, nil
	}
	return best, nil
}
