package gen

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/nodepool"
)

// builder accumulates a scenario's objects.
type builder struct {
	g *rng
	v vocab

	pools      []poolInfo
	nodePools  []nodepool.NodePool
	namespaces []*corev1.Namespace
	storage    []any
	nodes      []*corev1.Node
	running    []*corev1.Pod
	daemonSets []*appsv1.DaemonSet
	workloads  []any
	// pods counts the pending pods of the workloads.
	pods int
}

func newBuilder(g *rng, v vocab) *builder { return &builder{g: g, v: v} }

// build draws the whole scenario: NodePools, existing nodes and their pods,
// DaemonSets, then workload groups until the pod budget is spent.
func (b *builder) build() {
	b.genPools()
	b.genNodes()
	b.genDaemonSets()
	b.genWorkloads()
}

// objects returns the manifests in output order.
func (b *builder) objects() []any {
	var out []any
	for _, o := range b.namespaces {
		out = append(out, o)
	}
	out = append(out, b.storage...)
	for i := range b.nodePools {
		out = append(out, &b.nodePools[i])
	}
	for _, o := range b.nodes {
		out = append(out, o)
	}
	for _, o := range b.running {
		out = append(out, o)
	}
	for _, o := range b.daemonSets {
		out = append(out, o)
	}
	return append(out, b.workloads...)
}
