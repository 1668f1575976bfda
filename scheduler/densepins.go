package scheduler

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Dense pins: a pod that a topology group counts (and that has no rule of
// its own on the group's key) pins its claim to one domain of the group's
// key (topology/pod.go), and among equally loaded domains the ranker picks
// the one where the claim is cheapest for that pod alone. On a key that an
// instance type's label decides (instance size, family, cpu count) the pin
// fixes the claim's kind of type for good: a claim pinned to the smallest
// size that holds one pod can never grow to hold the pods of its class
// that follow, which then open claims of their own (a NodePool with a node
// limit runs out of nodes). The plan with densePins ranks such domains by
// the price per pod of the claim's cheapest type once filled with the
// class's pods still to place, so that the pin leaves room for them. It is
// one more plan Solve compares (portfolio.go), made when pods were left
// unplaced and some topology group counts on such a key.

// densePin reports whether the domains of key are ranked by price per pod
// for a pod of class c: a key that is an instance type's label, on which
// the pod is only counted (its own rules there keep its class apart) or
// drawn to its own class (affinity to itself, required or preferred: the
// class's pods still to place follow it into the domain, so the domain
// should be cheap for them all, not for the first alone).
func (s *solver) densePin(c *class, key string) bool {
	if key == "" || !(s.cfg.densePins && s.idx.IsLabelKey(key) || s.reservedDensePin(key)) {
		return false
	}
	return c.topo == nil || !slices.ContainsFunc(c.topo.Terms, func(t topology.Term) bool {
		return t.Key == key && !(t.Kind == topology.Affinity && t.Self())
	})
}

// countsOnTypeLabel reports whether some topology group counts on a key
// that is an instance type's label.
func (s *solver) countsOnTypeLabel() bool {
	for _, k := range s.topo.Keys() {
		if s.idx.IsLabelKey(k) {
			return true
		}
	}
	return false
}

// domainPricePerPod is domainPrice per pod: the lowest, over the types of
// set id that meet pins and hold need within the pool's limits, of the
// price of the type's cheapest offering divided by how many pods of need
// (at most pods) it holds, a type whose nodes would hold the pods only
// beyond the NodePool's node limit ranked after the others; +Inf when no
// type holds one.
func (s *solver) domainPricePerPod(id int32, pins []requirements.Requirement, need binpack.Vec, pods int, held heldRes) float64 {
	info, d, early, ok := s.domainScanOf(id, pins, held)
	if !ok {
		return early
	}
	p, labelPins, f, left, prices := info.pool, d.labelPins, d.f, d.left, d.prices
	pods = max(pods, 1)
	var zero binpack.Vec
	best := math.Inf(1)
	for _, t32 := range info.members {
		t := int(t32)
		if perPod(prices[t], pods) >= best {
			break // members are in price order: the rest cost at least this per pod
		}
		n := fitCount(need, p.usable[t], pods)
		if n == 0 || !typeHasLabels(s.idx.Type(t).Labels, labelPins) {
			continue
		}
		if capT := s.idx.Capacity(t); p.limited && !p.withinLimits(&capT, &zero) {
			continue
		}
		if pr, _, ok := s.idx.Cheapest(t, f, left); ok {
			r := perPod(pr, n)
			if p.nodesLeft >= 0 && (pods+n-1)/n > p.nodesLeft {
				r += overNodeLimit
			}
			best = min(best, r)
		}
	}
	return best
}

// overNodeLimit ranks a type after every type that holds the class's pods
// left within the nodes its NodePool's node limit leaves (far above any
// price per pod).
const overNodeLimit = 1e9

// perPod is price over n pods, raised by a hair that shrinks as n grows:
// at the same price per pod, the type that holds more of them wins (fewer
// nodes, less of a node limit, less DaemonSet overhead).
func perPod(price float64, n int) float64 {
	return price / float64(n) * (1 + 1e-9/float64(n))
}

// fitCount is how many pods of need fit in usable, at most limit.
func fitCount(need, usable binpack.Vec, limit int) int {
	n := int64(limit)
	for d := range need {
		if need[d] <= 0 {
			continue
		}
		n = min(n, usable[d]/need[d])
	}
	return int(max(n, 0))
}
