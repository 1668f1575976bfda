package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Planned claims that limits already pay for. A pod's topology picks the
// domain of a NodeClaim by the price of a new claim there within what the
// NodePool's limits have left; once the limits are nearly spent no domain
// prices at all, so a pod whose spread needs a domain cannot join the
// planned claims of the pool even where one is open in that domain and has
// room (its charge against the limits is already counted), and pods that
// come later, with no topology, take that room. Seed 42557: two c5.4xlarge
// claims opened for larger pods, a 45-replica Deployment spread over zones
// left on them with room for five each, 16 pods placed where Karpenter
// places 25.
//
// When the plan Solve keeps leaves pods unplaced where a NodePool's limits
// bind, the input is planned once more with the preferences the policy
// need not Honor dropped (as dropprefs.go does for limits) and with
// config.joinCharged: where the ranker finds no domain for a claim of a
// limited pool, plannedRanker prices the domains as for a claim already
// charged, and the claim then takes the pod only on a type that spends no
// more of the limits than it is charged. That plan, finished, replaces the
// kept one only when it places more pods. Made as one more plan of every
// portfolio, chosen before finishing, it steered the plans after it to a
// pod fewer elsewhere (seed 43972).

// orJoinCharged returns the finished plan of cfg with preferences dropped
// and config.joinCharged when s leaves pods a limited NodePool could take
// and that plan places more; else s.
func (s *solver) orJoinCharged(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if cfg.noRelaxations || cfg.joinCharged || len(s.pending) > fallbackMaxPods || s.placed() == len(s.pending) || !s.limitsLeftPods() {
		return s, nil
	}
	join, _ := cfg.withPreferencesDropped()
	join.joinCharged = true
	return s.orFinishedReplan(pods, nodePools, catalog, join)
}
