package scheduler_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduler"
)

// TestExistingNodeRank: existing nodes are tried by name, or by
// WithExistingNodeRank's rank (lowest first, then name); the pods bound to a node count against it
// whatever the order (node-c, ranked first, is full), and the plan lists
// the nodes by name.
func TestExistingNodeRank(t *testing.T) {
	node := func(name, cpu string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a"}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}},
		}
	}
	nodes := []*corev1.Node{node("node-a", "4"), node("node-b", "4"), node("node-c", "4"), node("node-d", "4")}
	full := examplePod("db-0", "4")
	full.Spec.NodeName = "node-c"
	pending := []*corev1.Pod{examplePod("web-0", "1"), examplePod("web-1", "1")}
	where := func(opts ...scheduler.Option) map[string][]string {
		res, err := scheduler.Solve(pending, examplePool(), exampleCatalog(),
			append([]scheduler.Option{scheduler.WithExistingNodes(nodes, []*corev1.Pod{full})}, opts...)...)
		require.NoError(t, err)
		require.Empty(t, res.NodeClaims)
		require.Empty(t, res.PodErrors)
		out := map[string][]string{}
		var names []string
		for _, n := range res.ExistingNodes {
			names = append(names, n.Name)
			for _, p := range n.Pods {
				if p != "default/db-0" {
					out[n.Name] = append(out[n.Name], p)
				}
			}
		}
		require.IsIncreasing(t, names)
		return out
	}
	require.Equal(t, map[string][]string{"node-a": {"default/web-0", "default/web-1"}}, where())
	rank := map[string]float64{"node-a": 3, "node-b": 2, "node-c": 1, "node-d": 2}
	byRank := func(n *corev1.Node) float64 { return rank[n.Name] }
	require.Equal(t, map[string][]string{"node-b": {"default/web-0", "default/web-1"}}, where(scheduler.WithExistingNodeRank(byRank)))
	rank["node-d"] = math.NaN() // lowest
	require.Equal(t, map[string][]string{"node-d": {"default/web-0", "default/web-1"}}, where(scheduler.WithExistingNodeRank(byRank)))
}
