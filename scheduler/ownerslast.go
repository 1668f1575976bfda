package scheduler

import (
	"slices"

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
	return s.orClosedReplan(pods, nodePools, catalog, alt)
}

// countsOthers reports whether the class owns a required spread whose
// selector counts pods of another pending class (memoised per solver; past
// maxFollowChecks selector matches, the classes not yet decided are not
// owners: the plan then queues them as usual).
func (s *solver) countsOthers(c *class) bool {
	if s.lastOwners == nil {
		s.lastOwners = map[*class]bool{}
		checks := 0
		for _, o := range spreadOwners(s.classes) {
			for _, x := range s.classes {
				if checks++; checks > maxFollowChecks {
					return s.lastOwners[c]
				}
				if x != o.c && o.counts(x) {
					s.lastOwners[o.c] = true
					break
				}
			}
		}
	}
	return s.lastOwners[c]
}

// spreadOwner is a class with required spread constraints, their
// selectors parsed.
type spreadOwner struct {
	c    *class
	sels []labels.Selector
}

// spreadOwners lists the classes with a required spread constraint and a
// selector (a nil selector counts nothing), in class order.
func spreadOwners(classes []*class) []spreadOwner {
	var out []spreadOwner
	for _, c := range classes {
		var sels []labels.Selector
		for _, tsc := range c.sample.Spec.TopologySpreadConstraints {
			if tsc.WhenUnsatisfiable != corev1.DoNotSchedule || tsc.LabelSelector == nil {
				continue
			}
			if sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector); err == nil {
				sels = append(sels, sel)
			}
		}
		if len(sels) > 0 {
			out = append(out, spreadOwner{c: c, sels: sels})
		}
	}
	return out
}

// counts reports whether a spread of the owner selects the pods of class x
// (in the owner's namespace; matchLabelKeys, which only narrow the
// selector, are left out).
func (o spreadOwner) counts(x *class) bool {
	if o.c.namespace != x.namespace {
		return false
	}
	set := labels.Set(x.labels)
	return slices.ContainsFunc(o.sels, func(sel labels.Selector) bool { return sel.Matches(set) })
}

// ownersMayBlock reports whether a pod left unplaced is counted by a
// required spread of another class with pods placed: the owners' plan
// (queued after the pods they count) may then place more. Past
// maxFollowChecks selector matches it answers no.
func (s *solver) ownersMayBlock() bool {
	owners := slices.DeleteFunc(spreadOwners(s.classes), func(o spreadOwner) bool { return o.c.placedN == 0 })
	checks := 0
	for _, x := range s.classes {
		if x.invalid != nil || x.placedN == len(x.pods) {
			continue
		}
		for _, o := range owners {
			if checks++; checks > maxFollowChecks {
				return false
			}
			if o.c != x && o.counts(x) {
				return true
			}
		}
	}
	return false
}
