package disruption_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// testNow is the now of every test.
func testNow() time.Time { return time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC) }

// testCatalog has three sizes of one family (2, 4, 8 cpu at 2 GiB per
// cpu), on-demand and spot in two zones, spot at 40% of on-demand.
func testCatalog(t testing.TB) instancetypes.Catalog {
	t.Helper()
	var types []instancetypes.InstanceType
	for i, size := range []string{"small", "medium", "large", "xlarge"} {
		cpu := 2 << i
		od := 0.1 * float64(int(1)<<i)
		b := testutil.InstanceType("m."+size).CPU(fmt.Sprint(cpu)).Memory(fmt.Sprintf("%dGi", 2*cpu)).Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux")
		for _, z := range []string{"zone-a", "zone-b"} {
			b = b.Offering(z, "on-demand", od).Offering(z, "spot", od*0.4)
		}
		types = append(types, b.Obj())
	}
	c, err := instancetypes.NewCatalog(types)
	require.NoError(t, err)
	return c
}

// clusterBuilder builds a Cluster node by node.
type clusterBuilder struct {
	t       testing.TB
	catalog instancetypes.Catalog
	c       disruption.Cluster
}

func newCluster(t testing.TB) *clusterBuilder {
	return &clusterBuilder{t: t, catalog: testCatalog(t)}
}

// node adds an initialized, Ready node of a pool, created a day before now.
func (b *clusterBuilder) node(name, pool, typ, zone, ct string) *corev1.Node {
	it, ok := b.catalog.Get(typ)
	require.True(b.t, ok, typ)
	n := testutil.Node(name).Label("karpenter.sh/nodepool", pool).Label("node.kubernetes.io/instance-type", typ).
		Label("topology.kubernetes.io/zone", zone).Label("karpenter.sh/capacity-type", ct).
		Label("karpenter.sh/initialized", "true").Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").Obj()
	n.Status.Capacity = it.Capacity.DeepCopy()
	n.Status.Allocatable = it.Allocatable().DeepCopy()
	n.CreationTimestamp = metav1.NewTime(testNow().Add(-24 * time.Hour))
	b.c.Nodes = append(b.c.Nodes, n)
	return n
}

// pod adds a pod of a ReplicaSet bound to a node ("" leaves it pending).
func (b *clusterBuilder) pod(name, node, cpu string) *corev1.Pod {
	p := testutil.Pod(name).CPU(cpu).Memory("256Mi").OwnedBy("ReplicaSet", "rs").NodeName(node).Obj()
	if node != "" {
		p.Status.Phase = corev1.PodRunning
		start := metav1.NewTime(testNow().Add(-time.Hour))
		p.Status.StartTime = &start
	}
	b.c.Pods = append(b.c.Pods, p)
	return p
}

func defaultPool() nodepool.NodePool {
	return testutil.NodePool("default").Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").Obj()
}
