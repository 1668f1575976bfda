package nodepool

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Template is a NodePool as the solver sees it: the starting point of every
// NodeClaim of the pool. Build it with NewTemplate; it is an immutable value.
type Template struct {
	Name   string
	Weight int32
	// Requirements are the pool's requirements, normalised, intersected with
	// its template labels (as In requirements) and karpenter.sh/nodepool In
	// [Name] (and the node-class label when the provider defines one).
	Requirements requirements.Requirements
	// Labels are the template labels plus karpenter.sh/nodepool.
	Labels      map[string]string
	Annotations map[string]string
	// Taints must be tolerated by pods; StartupTaints need not be.
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// Limits caps the total capacity of the pool's nodes; "nodes" caps their count.
	Limits       corev1.ResourceList
	NodeClassRef *NodeClassReference
}

// ResourceNodes is the pseudo-resource of a NodePool limit on the number of nodes.
const ResourceNodes corev1.ResourceName = "nodes"

// Order sorts templates the way the solver tries them: weight descending,
// then name descending (as Karpenter breaks ties). It sorts a copy.
func Order(ts []Template) []Template {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b Template) int {
		if a.Weight != b.Weight {
			if a.Weight > b.Weight {
				return -1
			}
			return 1
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out
}

// HasTaint reports whether the template carries a taint with this effect.
func (t Template) HasTaint(effect corev1.TaintEffect) bool {
	return slices.ContainsFunc(t.Taints, func(x corev1.Taint) bool { return x.Effect == effect })
}

// LabelsCopy returns a copy of the template labels.
func (t Template) LabelsCopy() map[string]string { return maps.Clone(t.Labels) }
