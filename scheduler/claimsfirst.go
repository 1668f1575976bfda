package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Two-phase binding, guarded. Under WithExistingNodesFirst a pod planned
// on an existing node may bind against the existing nodes' pods alone
// (topology's early.go): it binds before any NodeClaim's node joins. That lets spreads take room on
// existing nodes that counting every pod refuses (seed 38294: two carriers
// of a one-zone spread beside NodeClaims holding the pods it counts), but
// a greedy plan that stacks a spread's pods on an existing node can leave
// less room there for others (seed 44029: 37 pods where counting every pod
// places 46). When the kept plan leaves pods unplaced and relied on the
// first phase somewhere, the input is planned once more without it (the
// portfolio and the plans made last for limits); that plan replaces the
// kept one only when it places more pods.

// orClaimsFirst returns, under WithExistingNodesFirst, the plan of cfg
// without two-phase binding when s leaves pods unplaced, relied on
// two-phase binding and that plan places more; else s.
func (s *solver) orClaimsFirst(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if !cfg.existingFirst || len(s.pending) > fallbackMaxPods || s.placed() == len(s.pending) || s.topo == nil || !s.topo.EarlyMattered() {
		return s, nil
	}
	alt := cfg
	alt.existingFirst = false
	v, err := planned(pods, nodePools, catalog, alt)
	if err != nil {
		return nil, err
	}
	if v.finalPlaced() > s.finalPlaced() {
		return v, nil
	}
	return s, nil
}
