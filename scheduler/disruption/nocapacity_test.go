package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestNodeWithoutCapacity: a node that reports neither capacity nor
// allocatable and carries no labels (no instance type to read them from)
// holds a pod beside two managed nodes. Every search plans (FuzzConsolidate
// found the room of such a node written to a nil list: a panic), keeps it
// as unmanaged, and still consolidates the managed nodes.
func TestNodeWithoutCapacity(t *testing.T) {
	for _, opts := range [][]disruption.Option{
		nil,
		{disruption.WithSearch(disruption.SearchGlobal)},
		{disruption.WithSearch(disruption.SearchGlobal), disruption.WithPrefer(disruption.PreferLowerPrice)},
	} {
		b := newCluster(t)
		b.node("a", "default", "m.large", "zone-a", "on-demand")
		b.node("b", "default", "m.large", "zone-a", "on-demand")
		b.pod("pa", "a", "500m")
		b.pod("pb", "b", "500m")
		b.c.Nodes = append(b.c.Nodes, testutil.Node("bare").Obj())
		b.pod("on-bare", "bare", "100m")
		res, err := disruption.Plan(b.c, []nodepool.NodePool{defaultPool()}, b.catalog, testNow(), opts...)
		require.NoError(t, err)
		bare := 0
		for _, n := range res.Nodes {
			if n.Name == "bare" {
				bare++
				require.False(t, n.Disrupted)
				require.Equal(t, disruption.KeepUnmanaged, n.Reason)
			}
		}
		require.Equal(t, 1, bare)
		require.NotEmpty(t, res.Commands, "the two managed nodes, each a quarter full, consolidate")
		require.Less(t, res.Summary.PricePerHourAfter, res.Summary.PricePerHour)
	}
}

// TestResizedPodMovesBySpec: a running pod the kubelet resized in place
// (allocated 1,800m where its spec asks 300m) takes its allocation on its
// node, but the pod its controller makes in its place asks for its spec:
// the simulation places that one (Solve counts what a pending pod's status
// allocates, as kube-scheduler does, so the moved copy drops the status).
// Node a's pod then fits beside node b's, and a is deleted; counted at its
// allocation it would not fit, and nothing would be done.
func TestResizedPodMovesBySpec(t *testing.T) {
	for _, opts := range [][]disruption.Option{nil, {disruption.WithSearch(disruption.SearchGlobal)}} {
		b := newCluster(t)
		b.node("a", "default", "m.small", "zone-a", "on-demand")
		b.node("b", "default", "m.small", "zone-a", "on-demand")
		pa := b.pod("pa", "a", "300m")
		pa.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pa.Spec.Containers[0].Name,
			AllocatedResources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1800m")}}}
		b.pod("pb", "b", "300m")
		res, err := disruption.Plan(b.c, []nodepool.NodePool{defaultPool()}, b.catalog, testNow(), opts...)
		require.NoError(t, err)
		require.Len(t, res.Commands, 1)
		require.Len(t, res.Commands[0].Nodes, 1)
		require.Equal(t, "a", res.Commands[0].Nodes[0].Name)
		require.Empty(t, res.Commands[0].Replacements)
	}
}
