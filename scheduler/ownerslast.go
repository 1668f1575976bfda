package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Spread owners queued after the pods they count. A required spread
// (DoNotSchedule) counts every pod its selector matches in its namespace,
// not only the pods that carry it; a plan must hold in whatever order
// kube-scheduler binds its pods, so a pod the spread counts may enter a
// domain only within the skew of the owners already there. Queued by
// size, owners come first and take the domains the counts allow then
// (a capacity-type spread: spot, while on-demand holds running pods it
// counts), and the many smaller pods the spread counts are then refused
// wherever an owner went: three owners placed, four others left unplaced.
// Queued after them, the owners see what the others took and go where the
// counts are lowest. When the plan Solve keeps, closed (its last phase
// run), leaves pods a placed owner's spread counts unplaced, Solve makes
// this plan too, closes it, and keeps it only if it places more: the plans
// compared are finished ones, so the new plan never replaces one that the
// last phase completed (and costs more only where it places more).

// orOwnersLast returns the owners-last plan when best (closed) leaves pods
// unplaced that a placed owner's spread counts and that plan, closed,
// places more; else best.
func (s *solver) orOwnersLast(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(s.pending) > alternativeMaxPods || !s.ownersMayBlock() {
		return s, nil
	}
	alt := cfg
	alt.ownersLast = true
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

// countsOthers reports whether the class owns a required spread whose
// selector counts pods of another pending class (memoised per solver).
func (s *solver) countsOthers(c *class) bool {
	if s.lastOwners == nil {
		s.lastOwners = map[*class]bool{}
		for _, o := range s.classes {
			for _, x := range s.classes {
				if x != o && spreadCounts(o, x) {
					s.lastOwners[o] = true
					break
				}
			}
		}
	}
	return s.lastOwners[c]
}

// spreadCounts reports whether a required spread constraint of class o
// selects the pods of class x (same namespace; matchLabelKeys, which only
// narrow the selector, are left out).
func spreadCounts(o, x *class) bool {
	if o.namespace != x.namespace {
		return false
	}
	for _, tsc := range o.sample.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule || tsc.LabelSelector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
		if err == nil && sel.Matches(labels.Set(x.labels)) {
			return true
		}
	}
	return false
}

// ownersMayBlock reports whether a pod left unplaced is counted by a
// required spread of another class with pods placed: the owners' plan
// (queued after the pods they count) may then place more.
func (s *solver) ownersMayBlock() bool {
	for _, x := range s.classes {
		if x.invalid != nil || x.placedN == len(x.pods) {
			continue
		}
		for _, o := range s.classes {
			if o != x && o.placedN > 0 && spreadCounts(o, x) {
				return true
			}
		}
	}
	return false
}
