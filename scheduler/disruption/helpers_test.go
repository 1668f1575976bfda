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

// testCatalog has four sizes of one family (2, 4, 8, 16 cpu at 2 GiB per
// cpu), on-demand and spot in two zones, spot at 40% of on-demand.
func testCatalog(t testing.TB) instancetypes.Catalog {
	t.Helper()
	return zonesCatalog(t, "zone-a", "zone-b")
}

// zonesCatalog is testCatalog with offerings in the zones given.
func zonesCatalog(t testing.TB, zones ...string) instancetypes.Catalog {
	t.Helper()
	var types []instancetypes.InstanceType
	for i, size := range []string{"small", "medium", "large", "xlarge"} {
		cpu := 2 << i
		od := 0.1 * float64(int(1)<<i)
		b := testutil.InstanceType("m."+size).CPU(fmt.Sprint(cpu)).Memory(fmt.Sprintf("%dGi", 2*cpu)).Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux")
		for _, z := range zones {
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
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
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

// ownedBy sets a pod's controller owner with the apiVersion Karpenter
// checks (apps/v1 for workloads, v1 for a mirror pod's Node).
func ownedBy(p *corev1.Pod, apiVersion, kind, name string) *corev1.Pod {
	yes := true
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &yes}}
	return p
}

func annotate(o metav1.Object, k, v string) {
	a := o.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	o.SetAnnotations(a)
}

// claimFor adds the NodeClaim of a node (created with it, initialized).
func (b *clusterBuilder) claimFor(n *corev1.Node) *disruption.NodeClaim {
	nc := disruption.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: n.CreationTimestamp}}
	nc.Status.NodeName = n.Name
	nc.Status.Conditions = []metav1.Condition{{Type: disruption.ConditionInitialized, Status: metav1.ConditionTrue, LastTransitionTime: n.CreationTimestamp}}
	b.c.NodeClaims = append(b.c.NodeClaims, nc)
	return &b.c.NodeClaims[len(b.c.NodeClaims)-1]
}

// drifted gives a node a NodeClaim with a Drifted condition since when.
func (b *clusterBuilder) drifted(n *corev1.Node, since time.Time) {
	nc := b.claimFor(n)
	nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: disruption.ConditionDrifted, Status: metav1.ConditionTrue,
		Reason: "AMIDrift", LastTransitionTime: metav1.NewTime(since)})
}

// daemonPod adds a DaemonSet pod (50m) on a node.
func (b *clusterBuilder) daemonPod(name, node string) *corev1.Pod {
	p := b.pod(name, node, "50m")
	return ownedBy(p, "apps/v1", "DaemonSet", "agent")
}

// pool returns a NodePool allowing capacity types cts, with disruption
// settings set by the functions given.
func pool(name string, cts []string, set ...func(*nodepool.NodePool)) nodepool.NodePool {
	np := testutil.NodePool(name).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, cts...).Obj()
	for _, f := range set {
		f(&np)
	}
	return np
}

func od() []string   { return []string{"on-demand"} }
func spot() []string { return []string{"spot"} }

func budgets(bs ...nodepool.Budget) func(*nodepool.NodePool) {
	return func(np *nodepool.NodePool) {
		if np.Spec.Disruption == nil {
			np.Spec.Disruption = &nodepool.Disruption{}
		}
		np.Spec.Disruption.Budgets = bs
	}
}

func policy(p string) func(*nodepool.NodePool) {
	return func(np *nodepool.NodePool) {
		if np.Spec.Disruption == nil {
			np.Spec.Disruption = &nodepool.Disruption{}
		}
		np.Spec.Disruption.ConsolidationPolicy = p
	}
}

func consolidateAfter(d string) func(*nodepool.NodePool) {
	return func(np *nodepool.NodePool) {
		if np.Spec.Disruption == nil {
			np.Spec.Disruption = &nodepool.Disruption{}
		}
		np.Spec.Disruption.ConsolidateAfter = &d
	}
}

func all() nodepool.Budget { return nodepool.Budget{Nodes: "100%"} }
