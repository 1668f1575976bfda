package scheduler

import (
	"cmp"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/nodepool"
)

// A domain cleared for a spread's owners. A required spread counts every
// pod its selector matches, also pods that do not carry it, and a plan
// must hold in whatever order kube-scheduler binds: an owner may enter a
// domain only where the counted pods there, with it, stay within maxSkew
// of the global minimum. When minDomains exceeds the domains there are,
// that minimum is zero, so an owner fits only a domain holding fewer than
// maxSkew counted pods. A plan that packs the counted pods cheapest spreads
// them over every domain (small nodes and large ones, on a spread over the
// instance size) and leaves no owner a place, where the counted pods could
// all have gone to the other domains and one owner to the domain they left
// (seed 67844: twelve pods on small and large nodes, four owners with
// minDomains 4 over two sizes, none placed; Karpenter, whose planned claims
// leave the size open, places one).
//
// So when the plan Solve keeps, finished, leaves owners of such a spread
// unplaced while pods of other classes it counts are placed, Solve plans
// the input again with those classes' pods kept out of one domain (a
// NotIn requirement added to each of their required node-affinity terms),
// trying the domain holding the fewest of them first, then the next. The
// added requirement only narrows where those pods may go, so every plan
// made so holds for the input as given; it is kept only when it places
// more pods, among them every pod kept out that the first plan placed (an
// unplaced pod's reason would name the added requirement, not the
// caller's).

// ownerDomainTries bounds the domains tried per plan.
const ownerDomainTries = 2

// orOwnerDomainCleared returns, in place of best, the whole solve made
// again with the pods an unplaced owner's spread counts kept out of one
// domain, when it places more pods; else best. It is made last, on the
// solve's finished plan: made as one more fallback among the others, it
// replaced a plan that later fallbacks would have completed (r34 seed
// 64835: 63 pods where the solve ends with 82).
func (best *solver) orOwnerDomainCleared(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods || cfg.ownerDomain {
		return best, nil
	}
	key, counted, domains := best.ownerDomainCandidates()
	for i, d := range domains {
		if i == ownerDomainTries {
			break
		}
		c := cfg
		c.ownerDomain = true
		v, err := bestOf(keptOut(pods, counted, key, d), nodePools, catalog, c)
		if err != nil {
			// The narrowed pods are not the caller's input: a pod they make
			// invalid (past the requirement cap) only means no such plan.
			continue
		}
		if v.finalPlaced() > best.finalPlaced() && keepsPlaced(best, v, counted) {
			best = v
		}
	}
	return best, nil
}

// ownerDomainCandidates finds the first owner class (in class order) with
// pods left unplaced whose required spread counts placed pods of other
// classes that do not carry the same spread, and returns the spread's key,
// the names of those classes' pods (those with no spread of their own),
// and the domains of the key their placed pods are in, fewest of them
// first (ties by value), but those where a counted pod with spreads of its
// own is placed. Nothing when no class is so.
func (s *solver) ownerDomainCandidates() (string, map[string]bool, []string) {
	checks := 0
	var at map[string]map[string]string // pod name → its node's labels
	for _, o := range s.classes {
		if o.invalid != nil || o.placedN == len(o.pods) {
			continue
		}
		for _, tsc := range o.sample.Spec.TopologySpreadConstraints {
			if tsc.WhenUnsatisfiable != corev1.DoNotSchedule || tsc.LabelSelector == nil {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector)
			if err != nil {
				continue
			}
			// A pod with spreads of its own keeps its node affinity as it
			// is: under nodeAffinityPolicy Honor that affinity decides the
			// domains its spreads count, and a NotIn would drop one from
			// them (r34 seed 64835: 19 pods planned where their own
			// spreads' minimum, taken over every domain, refused them). A
			// domain holding such a pod is not cleared.
			counted, fixed := map[string]bool{}, map[string]bool{}
			for _, x := range s.classes {
				if checks++; checks > maxFollowChecks {
					return "", nil, nil
				}
				if x == o || x.invalid != nil || x.placedN == 0 || x.namespace != o.namespace ||
					!sel.Matches(labels.Set(x.labels)) || carriesSpread(x, tsc) {
					continue
				}
				for _, pp := range x.pods {
					if len(x.sample.Spec.TopologySpreadConstraints) > 0 {
						fixed[pp.name] = true
					} else {
						counted[pp.name] = true
					}
				}
			}
			if len(counted) == 0 {
				continue
			}
			if at == nil {
				at = s.placedLabels()
			}
			per, held := map[string]int{}, map[string]bool{}
			for name := range counted {
				if v, ok := at[name][tsc.TopologyKey]; ok {
					per[v]++
				}
			}
			for name := range fixed {
				if v, ok := at[name][tsc.TopologyKey]; ok {
					held[v] = true
				}
			}
			maps.DeleteFunc(per, func(v string, _ int) bool { return held[v] })
			if len(per) == 0 {
				continue
			}
			domains := slices.SortedFunc(maps.Keys(per), func(a, b string) int {
				return cmp.Or(cmp.Compare(per[a], per[b]), cmp.Compare(a, b))
			})
			return tsc.TopologyKey, counted, domains
		}
	}
	return "", nil, nil
}

// carriesSpread reports whether the class has a required spread on the
// same key with the same selector as tsc (its pods are owners too).
func carriesSpread(c *class, tsc corev1.TopologySpreadConstraint) bool {
	return slices.ContainsFunc(c.sample.Spec.TopologySpreadConstraints, func(t corev1.TopologySpreadConstraint) bool {
		return t.WhenUnsatisfiable == corev1.DoNotSchedule && t.TopologyKey == tsc.TopologyKey &&
			metav1.FormatLabelSelector(t.LabelSelector) == metav1.FormatLabelSelector(tsc.LabelSelector)
	})
}

// placedLabels maps each placed pod to the labels of its node: the
// finalised NodeClaim's, or the existing node's.
func (s *solver) placedLabels() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, nc := range s.nodeClaims() {
		for _, name := range nc.Pods {
			out[name] = nc.Labels
		}
	}
	for _, pp := range s.pending {
		if pp.node != nil {
			out[pp.name] = pp.node.labels
		}
	}
	return out
}

// keptOut returns pods with those named in counted required off value d of
// key (kube.WithRequired); the others as they are.
func keptOut(pods []*corev1.Pod, counted map[string]bool, key, d string) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	notIn := corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: []string{d}}
	for i, p := range pods {
		if p == nil || !counted[p.Namespace+"/"+p.Name] {
			out[i] = p
			continue
		}
		out[i] = kube.WithRequired(p, notIn)
	}
	return out
}

// keepsPlaced reports whether v places every pod of counted that best
// places.
func keepsPlaced(best, v *solver, counted map[string]bool) bool {
	for i, pp := range best.pending {
		if counted[pp.name] && placedOn(pp) && !placedOn(v.pending[i]) {
			return false
		}
	}
	return true
}
