package nodepool

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Limits cap the total CAPACITY of a pool's nodes, not their allocatable and
// not the pods' requests (B-165..B-172): a pool limited to 2 cpu can launch
// one 2-cpu node, whatever runs on it. The "nodes" pseudo-resource
// (ResourceNodes) caps the number of nodes: each node counts 1.

// Remaining returns, for every resource the template limits, the limit minus
// used. used is what the pool's nodes already hold: the sum of their
// capacities, with ResourceNodes set to their number. Resources used but not
// limited are left out; a template without limits gives an empty list.
//
// Remaining is not clamped at zero: a negative value says by how much the
// pool is over its limit (nodes launched before the limit was lowered), and
// FitsLimits then rejects every instance type on that resource, including a
// type that lacks the resource (0 > negative).
func (t Template) Remaining(used corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(t.Limits))
	for name, limit := range t.Limits {
		r := limit.DeepCopy()
		if u, ok := used[name]; ok {
			r.Sub(u)
		}
		out[name] = r
	}
	return out
}

// FitsLimits reports whether one more node of an instance type with this
// capacity stays within remaining (see Remaining): for every limited
// resource, capacity ≤ remaining. A resource the type lacks counts 0; the
// "nodes" resource counts 1 (unless capacity sets it). Resources are checked
// in sorted order and the first one exceeded is returned, so the answer is
// deterministic. An empty remaining (no limits) fits everything.
func FitsLimits(remaining corev1.ResourceList, capacity corev1.ResourceList) (exceeded corev1.ResourceName, ok bool) {
	for _, name := range slices.Sorted(maps.Keys(remaining)) {
		c, has := capacity[name]
		if !has && name == ResourceNodes {
			c = *resource.NewQuantity(1, resource.DecimalSI)
		}
		if c.Cmp(remaining[name]) > 0 {
			return name, false
		}
	}
	return "", true
}
