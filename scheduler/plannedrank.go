package scheduler

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// plannedRanker ranks the domains a planned claim of a NodePool with limits
// could be pinned to by price alone. ranker prices a domain for a new
// claim, within what the pool's limits have left: once they are nearly
// spent, no domain has a type a new claim may take, yet a claim already
// charged a large type may still switch to another type of that size (a pod
// that needs on-demand joins a claim planned on spot). In a pod's last try
// (placeAhead), evalBucket falls back to it when ranker finds no domain;
// evalInBucket then checks each claim's type against what the claim itself
// is charged. (Earlier, on every placement, the fallback let pods grow
// claims into limits others needed: run17 seeds 1, 531, 1530.)
func (s *solver) plannedRanker(id int32, c *class) topology.Ranker {
	need := c.requests
	return func(pins []requirements.Requirement, key, value string) float64 {
		if key == requirements.LabelHostname {
			return 0
		}
		if key != "" && value == "" && s.cfg.karpenterRelaxation {
			return math.Inf(1) // as ranker
		}
		all := slices.Clip(pins)
		if key != "" {
			all = append(all, requirements.In(key, value))
		}
		r := s.domainPriceCharged(id, all, need, nil)
		if (s.cfg.minValuesPins || s.lookAhead) && len(all) > 0 && !math.IsInf(r, 1) && !s.domainKeepsMinValues(id, all, need) {
			r = math.Inf(1)
		}
		return r
	}
}
