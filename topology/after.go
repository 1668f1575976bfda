package topology

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// markBindsAfter takes out of every pod's matched groups the spreads whose
// owners all bind before it whatever the order kube-scheduler takes the
// pods in: the group has one owning pod (specs' Count), and the pod has a
// required pod affinity whose selector matches that pod only (no existing
// pod, no other pending pod, not the pod itself). kube-scheduler cannot
// bind the pod until its affinity's target is bound, so the owner's
// spread is checked before the pod is there: the group never counts it,
// and the owners' protection (filterOwners), which keeps a pod out of a
// domain where an owner placed there would be pushed past its skew by
// binding later, does not apply to it. A pod with a required affinity to
// the single replica of a Deployment whose spread counts it can join the
// replica's node.
func (t *Tracker) markBindsAfter(pods []*Pod, specs []PodSpec) {
	type owner struct {
		class int // index in pods of the one class owning the group, or -1
		n     int // pods owning it (a class of unknown size counts as two)
	}
	owners := map[*group]*owner{}
	for i, p := range pods {
		for _, tm := range p.Terms {
			if tm.Kind != Spread {
				continue
			}
			o := owners[tm.g]
			if o == nil {
				o = &owner{class: i}
				owners[tm.g] = o
			}
			if o.class != i {
				o.class = -1
			}
			if n := specs[i].Count; n > 0 {
				o.n += n
			} else {
				o.n += 2
			}
		}
	}
	if len(owners) == 0 {
		return
	}
	// matchers[g]: the classes a required affinity group counts.
	var matchers map[*group][]int
	for i, p := range pods {
		for _, g := range p.matched {
			if g.kind != Affinity || !g.required {
				continue
			}
			if matchers == nil {
				matchers = map[*group][]int{}
			}
			matchers[g] = append(matchers[g], i)
		}
	}
	for i, p := range pods {
		p.matched = slices.DeleteFunc(p.matched, func(g *group) bool {
			o := owners[g]
			if g.kind != Spread || o == nil || o.n != 1 || o.class == i || g.ks.key == requirements.LabelHostname {
				return false
			}
			return slices.ContainsFunc(p.Terms, func(tm Term) bool {
				if tm.Kind != Affinity || !tm.Required || tm.self || tm.g.nonzero > 0 {
					return false
				}
				m := matchers[tm.g]
				return len(m) == 1 && m[0] == o.class
			})
		})
	}
}
