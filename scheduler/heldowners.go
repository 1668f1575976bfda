package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Owners that are never placed: a pod's topology rules bind kube-scheduler
// only when that pod binds, but while planning they weigh on the pods they
// select. A required spread counts its selected pods in every domain, so
// their NodeClaims are pinned to a domain and settled in or out of the
// spread's node filter; a NodeClaim kept out of a filter that names one
// instance type loses that type, and under minValues it must then keep a
// larger one, which the NodePool's limits are charged for. When the pods
// that carry such rules cannot be placed at all (their own instance type
// falls short of the minValues), the rules still cost the others their
// place, for nothing.
//
// The same rules also cost the pods the plan places: a required spread of
// four replicas asking for a GPU type of 128 cpus that the catalog lacks
// counted thirty smaller pods, whose claims were all settled into the
// spread's node filter, 128-cpu types ($6.81/h where Karpenter, which pins
// no claim for a pod it never placed, pays $0.84 for the same pods).
//
// So when the plan leaves every pod of a class that carries topology rules
// unplaced, and pods of other classes too, Solve also plans the same input
// with those classes held: never placed (each pod keeps the reason the
// plan gave it) and their rules not registered. That plan is kept only
// when it places more pods; it is as valid as any, since no pod whose rules
// it left out is placed. Once every other plan of the solve has had its
// turn (a later one may still place pods of a class held here: a pod whose
// pod affinity needs a node of its targets' that only another queue finds),
// the plan with the wholly unplaced owners held is made again when they
// leave others unplaced or a spread of theirs counts placed pods, and kept
// for the same pods at less (orOwnersHeldForLess).

// orOwnersHeld returns, in place of best, the plan of the same input with
// the classes best left wholly unplaced held (above), when it places more
// pods; else best.
func (best *solver) orOwnersHeld(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	held := best.unplacedOwners(false)
	if len(held) == 0 {
		return best, nil
	}
	c := cfg
	c.held = held
	return best.orFinishedReplan(pods, nodePools, catalog, c)
}

// orOwnersHeldForLess returns, in place of best (the last of the solve's
// plans), the plan with the classes best left wholly unplaced held, when
// they leave others unplaced or count placed pods (unplacedOwners) and that
// plan places the same pods for less; else best.
func (best *solver) orOwnersHeldForLess(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	held := best.unplacedOwners(true)
	if len(held) == 0 {
		return best, nil
	}
	c := cfg.replanOf(best)
	c.held = held
	v, err := finishedOf(pods, nodePools, catalog, c)
	if err != nil {
		return nil, err
	}
	if v.finalPlaced() == best.finalPlaced() && samePlaced(best, v) && v.planPrice() < best.planPrice()-priceEps {
		return v, nil
	}
	return best, nil
}

// unplacedOwners maps the pods of every valid class that carries topology
// terms and of which the plan placed no pod to the reason each got, when
// the plan also leaves pods of another class unplaced, or (counting) a
// spread of one of those classes counts pods the plan placed; else nil.
func (s *solver) unplacedOwners(counting bool) map[string]*failure {
	var owners []*class
	othersLeft := false
	for _, c := range s.classes {
		placed := slices.ContainsFunc(c.pods, placedOn)
		switch {
		case !placed && c.invalid == nil && c.topo != nil && len(c.topo.Terms) > 0:
			owners = append(owners, c)
		case len(c.pods) > 0 && c.invalid == nil && !allPlaced(c.pods):
			othersLeft = true
		}
	}
	if len(owners) == 0 || (!othersLeft && !(counting && s.countsPlaced(owners))) {
		return nil
	}
	out := map[string]*failure{}
	for _, c := range owners {
		for _, pp := range c.pods {
			f := pp.failure
			if f == nil {
				f = s.explain(pp)
			}
			out[pp.name] = f
		}
	}
	return out
}

// countsPlaced reports whether a spread of one of the classes owners
// counts a pod the plan placed.
func (s *solver) countsPlaced(owners []*class) bool {
	for _, o := range anySpreadOwners(owners) {
		for _, x := range s.classes {
			if x != o.c && x.invalid == nil && o.counts(x) && slices.ContainsFunc(x.pods, placedOn) {
				return true
			}
		}
	}
	return false
}

// allPlaced reports whether every pod of pps is placed.
func allPlaced(pps []*pending) bool {
	return !slices.ContainsFunc(pps, func(pp *pending) bool { return !placedOn(pp) })
}

// holdClasses makes the classes config.held names never placed, with the
// reason held gives, and drops their topology rules (called before they
// are registered).
func (s *solver) holdClasses() {
	if len(s.cfg.held) == 0 {
		return
	}
	for _, c := range s.classes {
		if c.invalid != nil || len(c.pods) == 0 {
			continue
		}
		f, ok := s.cfg.held[c.pods[0].name]
		if !ok {
			continue
		}
		c.invalid = f
		c.topoSpec.Spread = nil
		if a := c.topoSpec.Affinity; a != nil {
			c.topoSpec.Affinity = &corev1.Affinity{NodeAffinity: a.NodeAffinity}
		}
	}
}
