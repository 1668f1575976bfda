package scheduler

import (
	"math"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// A pod whose required pod affinity on hostname selects the pod itself
// starts a node that every other pod of its group must join: once one
// runs, kube-scheduler lets no other start a node of its own. The first pod
// of such a class therefore opens a NodeClaim only where an instance type
// could hold the whole group, when some NodePool it may use has one: six
// 1.7-cpu replicas started on a pool whose minValues 3 leaves two types
// large enough for all six grew to four pods and left two out, where
// another pool's 16-cpu type held them all (Karpenter's plan of seed
// 20795). When no such claim takes the pod (its domains, its preferences),
// it is placed as before, on whatever claim takes it.

// groupLeft is the number of pods of c a new claim for c's pod would have
// to hold: all of them when c's pods are self-affine on hostname and none
// is placed yet, else 0. A class whose pods cannot share a node anyway
// (isolated, a host port, a DoNotSchedule spread or an anti-affinity on
// hostname) is left alone.
func (s *solver) groupLeft(c *class) int {
	if c.placedN > 0 || len(c.pods) < 2 || c.isolated || len(c.ports) > 0 || !c.topo.SelfAffineOn(requirements.LabelHostname) {
		return 0
	}
	if c.topo.RequiresOn(topology.Spread, requirements.LabelHostname) || c.topo.RequiresOn(topology.AntiAffinity, requirements.LabelHostname) {
		return 0
	}
	return len(c.pods)
}

// holdsGroup reports whether a claim of pool p with requirements id could
// hold n pods of c: some type holds their requests within the limits, with
// the options minValues asks.
func (s *solver) holdsGroup(c *class, p *pool, id int32, n int) bool {
	var need binpack.Vec
	for range n {
		need = need.Add(c.requests)
	}
	var zero binpack.Vec
	t, _, _, ok := s.cheapestFit(nil, p, id, need, &zero, 0, math.Inf(1), nil)
	if !ok {
		return false
	}
	_, ok = s.chargeFor(p, id, need, t, nil, &zero)
	return ok
}

// groupHeld reports whether a new claim of pool p with requirements id may
// take the attempt's pod: it holds the whole group, or no NodePool the pod
// may use could.
func (s *solver) groupHeld(a attempt, p *pool, id int32) bool {
	n := s.groupLeft(a.c)
	return n < 2 || s.holdsGroup(a.c, p, id, n) || !s.groupFitsSomewhere(a, n)
}

// groupFitsSomewhere reports whether some NodePool the attempt may use
// could hold n pods of its class on one new claim.
func (s *solver) groupFitsSomewhere(a attempt, n int) bool {
	for _, p := range s.pools {
		if p.nodesLeft == 0 || p.types.IsEmpty() || !s.poolTolerated(a.c, p, a.level) {
			continue
		}
		if id := s.reqs.compat(p.reqID, a.reqID); id >= 0 && s.holdsGroup(a.c, p, id, n) {
			return true
		}
	}
	return false
}
