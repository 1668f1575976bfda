package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/topology"
)

// Spreads of pods the plan leaves out. A pod that is never bound binds
// nothing by its own topology rules: kube-scheduler checks a pod's spread
// only when it binds that pod, and scores its preferences only then. While
// planning, a spread, required or preferred, still counts the pods it
// selects and pins each NodeClaim holding one to a domain, or to a side of
// the spread's node filter, and the narrowed claim may fall short of the
// NodePool's minValues (a ghost class requiring type g2 with a label only
// g1 has: a claim counted by its spread must not be g2, which leaves three
// of the four types minValues asks for). When the plan Solve keeps places
// no pod of a class whose spread counts pods it left unplaced, Solve plans
// again with such classes left out from the start, their topology terms
// dropped (their labels still count for the others' rules), and keeps that
// plan only if it places more. The classes left out keep the reasons the
// first plan gave.

// orWithoutLeftOut returns the plan that leaves out from the start the
// classes leftOut names, when there are any and that plan, closed, places
// more than best (closed); else best.
func (s *solver) orWithoutLeftOut(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(s.pending) > alternativeMaxPods || s.placed() == len(s.pending) {
		return s, nil
	}
	out := s.leftOut()
	if len(out) == 0 {
		return s, nil
	}
	alt := cfg
	alt.leftOut = out
	return s.orClosedReplan(pods, nodePools, catalog, alt)
}

// leftOut maps the sample pod of each class the plan places no pod of and
// whose spread counts pods of another class that the plan left unplaced,
// to why its pods were not placed; nil when there is none. (An unplaced
// pod's pod affinity and anti-affinity weigh on no other pod: the inverse
// rule needs the pod placed.)
func (s *solver) leftOut() map[string]*failure {
	unplaced := func(c *class) int {
		n := 0
		for _, pp := range c.pods {
			if !placedOn(pp) {
				n++
			}
		}
		return n
	}
	var out map[string]*failure
	for _, o := range anySpreadOwners(s.classes) {
		if o.c.invalid != nil || unplaced(o.c) < len(o.c.pods) {
			continue
		}
		for _, x := range s.classes {
			if x != o.c && x.invalid == nil && o.counts(x) && unplaced(x) > 0 {
				if out == nil {
					out = map[string]*failure{}
				}
				out[podName(o.c.sample)] = s.explain(o.c.pods[0])
				break
			}
		}
	}
	return out
}

// anySpreadOwners lists the classes with a spread constraint, required or
// preferred, and a selector, in class order (spreadOwners, preferences
// too: a preferred spread pins the claims of the pods it counts as well).
func anySpreadOwners(classes []*class) []spreadOwner {
	var out []spreadOwner
	for _, c := range classes {
		var sels []labels.Selector
		for _, tsc := range c.sample.Spec.TopologySpreadConstraints {
			if tsc.LabelSelector == nil {
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

// withoutTopologyTerms returns spec without its spread constraints and pod
// (anti-)affinity, for a class left out: its labels still count for the
// others' rules (the spec's own slices are left alone).
func withoutTopologyTerms(spec topology.PodSpec) topology.PodSpec {
	spec.Spread = nil
	if a := spec.Affinity; a != nil {
		spec.Affinity = &corev1.Affinity{NodeAffinity: a.NodeAffinity}
	}
	return spec
}
