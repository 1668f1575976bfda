package nodepool

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/requirements"
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

// Usage returns what the template's existing nodes hold against its
// limits, the used of Remaining: the sum of the capacities of the nodes
// labelled karpenter.sh/nodepool=<the template's name> (a resource a node
// reports as allocatable but not in its capacity counts its allocatable),
// and their number under ResourceNodes. A node being deleted still counts (it is there until
// it is gone); a nil node is skipped.
func (t Template) Usage(nodes []*corev1.Node) corev1.ResourceList {
	out := corev1.ResourceList{}
	count := int64(0)
	for _, n := range nodes {
		if n == nil || n.Labels[requirements.LabelNodePool] != t.Name {
			continue
		}
		count++
		for name, q := range n.Status.Capacity {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
		for name, q := range n.Status.Allocatable {
			if _, ok := n.Status.Capacity[name]; !ok {
				sum := out[name]
				sum.Add(q) // a node has at least what it can allocate
				out[name] = sum
			}
		}
	}
	out[ResourceNodes] = *resource.NewQuantity(count, resource.DecimalSI)
	return out
}

// Exceeded returns, sorted, the limited resources that new nodes of this
// total capacity would exceed: those where capacity > remaining (see
// Remaining). A resource the capacity lacks counts 0, so a resource
// already over its limit (negative remaining) is exceeded by any node;
// ResourceNodes counts 1 (one node) unless capacity sets it (the number of
// nodes). An empty remaining (no limits) is never exceeded. This is the
// one limits rule: FitsLimits asks it of one node, the solver derives its
// per-dimension form from Remaining, and the plan checker asks it of a
// NodePool's NodeClaims together.
func Exceeded(remaining, capacity corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range slices.Sorted(maps.Keys(remaining)) {
		c, has := capacity[name]
		if !has && name == ResourceNodes {
			c = *resource.NewQuantity(1, resource.DecimalSI)
		}
		if c.Cmp(remaining[name]) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// FitsLimits reports whether one more node of an instance type with this
// capacity stays within remaining (see Exceeded), and else the first
// resource (by name) it exceeds, so the answer is deterministic.
func FitsLimits(remaining corev1.ResourceList, capacity corev1.ResourceList) (exceeded corev1.ResourceName, ok bool) {
	if over := Exceeded(remaining, capacity); len(over) > 0 {
		return over[0], false
	}
	return "", true
}
