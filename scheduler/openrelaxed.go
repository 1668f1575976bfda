package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// placeOpenRelaxed is the last try of a pod that every relaxation left
// without a place: the same level, each NodeClaim left open on the keys
// where the pod's rules are all relaxed preferences and only groups of
// preferences count it (topology.Tracker.OpenRelaxed). A claim pinned
// there for a preference the pod no longer keeps may have no instance type
// left, or too few for its NodePool's minValues (a ScheduleAnyway spread
// over a catalog's size label in zones where each size has fewer types
// than minValues asks: seed 50086, 47 pods where Karpenter places 60).
func (s *solver) placeOpenRelaxed(pp *pending, level int, allowNew bool) bool {
	c := pp.cls
	if s.cfg.noOpenRelaxed || s.topo == nil || !c.topo.RelaxOpens() {
		return false
	}
	s.topo.OpenRelaxed(true)
	defer s.topo.OpenRelaxed(false)
	for alt := range c.alts {
		if a, ok := s.newAttempt(c, alt, level, allowNew); ok && s.tryPlace(pp, a) {
			pp.relaxed = c.relaxedAt(level)
			if s.cfg.openRelaxedSeen != nil {
				s.cfg.openRelaxedSeen.Store(true)
			}
			return true
		}
	}
	return false
}

// orWithoutOpenRelaxed returns, when a pod of some plan of the solve was
// placed by its last try on a NodeClaim left open (placeOpenRelaxed), the
// plan of cfg made without that try if it places more pods, or as many for
// less: a pod placed so may take the room of others later in the queue,
// and a plan that places more may steer which other plans the solve makes
// (seed 50507: the same pods for 8% more). Else s.
func (s *solver) orWithoutOpenRelaxed(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if cfg.openRelaxedSeen == nil || !cfg.openRelaxedSeen.Load() || len(s.pending) > fallbackMaxPods {
		return s, nil
	}
	alt := cfg
	alt.noOpenRelaxed = true
	return s.orPlannedWith(pods, nodePools, catalog, alt)
}

// orWithoutFirstUnfollow returns, when a plan that queues left-out
// followers before their targets (firstUnfollow, whenLeft) won its
// portfolio, the plan of cfg made without such plans if it places more
// pods, or as many for less: a plan that wins its portfolio steers the
// plans made after it (they start from its unplaced pods), which then
// reached fewer (seed 51381: 68 pods where the solve without it placed
// 69). Else s.
func (s *solver) orWithoutFirstUnfollow(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if cfg.firstUnfollowSeen == nil || !cfg.firstUnfollowSeen.Load() || len(s.pending) > fallbackMaxPods {
		return s, nil
	}
	alt := cfg
	alt.noFirstUnfollow = true
	return s.orPlannedWith(pods, nodePools, catalog, alt)
}

// orPlannedWith returns the whole solve planned afresh under alt when it
// places more pods than s, or as many for less; else s.
func (s *solver) orPlannedWith(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, alt config) (*solver, error) {
	v, err := planned(pods, nodePools, catalog, alt)
	if err != nil {
		return nil, err
	}
	if n, m := v.finalPlaced(), s.finalPlaced(); n > m || (n == m && v.planPrice() < s.planPrice()-priceEps) {
		return v, nil
	}
	return s, nil
}
