package testutil

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeBuilder builds a *corev1.Node (an existing node of the cluster).
type NodeBuilder struct{ n *corev1.Node }

// Node starts a node with its kubernetes.io/hostname label and nothing else.
func Node(name string) *NodeBuilder {
	return &NodeBuilder{n: &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
	}}
}

// Obj returns a deep copy of the node built so far.
func (b *NodeBuilder) Obj() *corev1.Node { return b.n.DeepCopy() }

// Label sets a label.
func (b *NodeBuilder) Label(k, v string) *NodeBuilder {
	b.n.Labels[k] = v
	return b
}

// Taint adds a taint.
func (b *NodeBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodeBuilder {
	b.n.Spec.Taints = append(b.n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Unschedulable cordons the node.
func (b *NodeBuilder) Unschedulable() *NodeBuilder {
	b.n.Spec.Unschedulable = true
	return b
}

// Deleting marks the node as being deleted.
func (b *NodeBuilder) Deleting() *NodeBuilder {
	now := metav1.Unix(0, 0)
	b.n.DeletionTimestamp = &now
	return b
}

// Resource sets one quantity of both capacity and allocatable.
func (b *NodeBuilder) Resource(name corev1.ResourceName, q string) *NodeBuilder {
	return b.Capacity(name, q).Allocatable(name, q)
}

// Capacity sets one capacity quantity.
func (b *NodeBuilder) Capacity(name corev1.ResourceName, q string) *NodeBuilder {
	if b.n.Status.Capacity == nil {
		b.n.Status.Capacity = corev1.ResourceList{}
	}
	b.n.Status.Capacity[name] = resource.MustParse(q)
	return b
}

// Allocatable sets one allocatable quantity.
func (b *NodeBuilder) Allocatable(name corev1.ResourceName, q string) *NodeBuilder {
	if b.n.Status.Allocatable == nil {
		b.n.Status.Allocatable = corev1.ResourceList{}
	}
	b.n.Status.Allocatable[name] = resource.MustParse(q)
	return b
}

// Size sets cpu, memory and pods as capacity and allocatable.
func (b *NodeBuilder) Size(cpu, memory, pods string) *NodeBuilder {
	return b.Resource(corev1.ResourceCPU, cpu).Resource(corev1.ResourceMemory, memory).Resource(corev1.ResourcePods, pods)
}
