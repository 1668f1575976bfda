package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Reserving a limited NodePool. When a NodePool's limit leaves pods out,
// the pods that could only use it may have lost its budget to pods that
// other NodePools would take too: a node of the limited pool was planned
// first, and placement prefers a planned claim of any pool to a new one, so
// it filled up with pods of every kind. Solve then also plans, to the end,
// with the pods the limit left out queued first (cfg.first) and the
// limited NodePools kept for them (cfg.reserve): a class none of whose
// pods is named there, and that some other NodePool can take, uses none of
// the reserved ones. A class no other NodePool takes keeps them: reserving
// only moves pods off a limited pool, never leaves one without a pool.
// The finished plan replaces the kept one, finished too, when it places
// more pods, or the same pods for less.

// orLimitReserved returns, in place of best, the finished plan with the
// limited NodePools kept for the pods their limits left out (above), when
// it places more pods or the same pods for less; else best.
func (best *solver) orLimitReserved(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods || cfg.reserve != nil || !best.limitsLeftPods() {
		return best, nil
	}
	reserve := best.limitedPoolsLeft()
	if len(reserve) == 0 {
		return best, nil
	}
	first := best.unplacedNames()
	if !best.reserveMoves(first, reserve) {
		return best, nil
	}
	// Made as the caller's plans are (bestOfAll: a looser policy's plans
	// judged against the Respect plan), every one of them with the reserve.
	c := cfg
	c.first, c.reserve = first, reserve
	v, err := bestOfAll(pods, nodePools, catalog, c)
	if err != nil {
		return nil, err
	}
	n, bn := v.finalPlaced(), best.finalPlaced()
	if n > bn || (n == bn && samePlaced(best, v) && v.planPrice() < best.planPrice()-priceEps) {
		return v, nil
	}
	return best, nil
}

// reserveMoves reports whether keeping the reserve NodePools for the pods
// first names would move a pod: some pod the plan put on a claim of one of
// them is of a class that would avoid it. Otherwise the plan made so is
// the plan best is (aws-mixed: the GPU pool's limit leaves GPU pods out,
// and no other pod tolerates its taint), and it is not made.
func (s *solver) reserveMoves(first, reserve map[string]bool) bool {
	for _, cl := range s.liveClaims() {
		if !reserve[cl.pool.tmpl.Name] {
			continue
		}
		for _, pp := range cl.pods {
			if s.avoids(pp.cls, first, reserve) {
				return true
			}
		}
	}
	return false
}

// reservedFrom reports whether the plan keeps pool p from the class.
func (s *solver) reservedFrom(c *class, p *pool) bool {
	if len(s.cfg.reserve) == 0 || !s.cfg.reserve[p.tmpl.Name] {
		return false
	}
	if c.reserved == 0 {
		c.reserved = 2
		if s.avoids(c, s.cfg.first, s.cfg.reserve) {
			c.reserved = 1
		}
	}
	return c.reserved == 1
}

// avoids reports whether the class keeps off the reserve NodePools: first
// names none of its pods, and a NodePool outside reserve tolerates and
// fits it.
func (s *solver) avoids(c *class, first, reserve map[string]bool) bool {
	for _, pp := range c.pods {
		if first[pp.name] {
			return false
		}
	}
	for _, p := range s.pools {
		if !reserve[p.tmpl.Name] && s.tolerates(c, p, len(c.steps)) && s.classFitsPool(c, p) {
			return true
		}
	}
	return false
}

// limitedPoolsLeft names the NodePools with limits that a class left
// unplaced could use (tolerated, a type fits): the NodePools the plan for
// limits reserves.
func (s *solver) limitedPoolsLeft() map[string]bool {
	out := map[string]bool{}
	for _, c := range s.classes {
		if c.invalid != nil || c.placedN == len(c.pods) {
			continue
		}
		for _, p := range s.pools {
			if p.bounded() && s.tolerates(c, p, len(c.steps)) && s.classFitsPool(c, p) {
				out[p.tmpl.Name] = true
			}
		}
	}
	return out
}
