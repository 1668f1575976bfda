package scheduler_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// TestInitContainerHostPorts: a host port of a plain init container is
// free again before the containers start, so two such pods share a node;
// a sidecar's (restartPolicy Always) is held as long as the pod runs, so
// two such pods need two nodes (nodepool.PodHostPorts, kube-scheduler's
// NodePorts rule).
func TestInitContainerHostPorts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		sidecar    bool
		wantClaims int
	}{{name: "init container", wantClaims: 1}, {name: "sidecar", sidecar: true, wantClaims: 2}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pods := testutil.Replicas(2, func(i int) *corev1.Pod {
				p := testutil.Pod(testutil.ReplicaName("agent", i)).CPU("100m").InitContainer("setup", "10m", "16Mi", tc.sidecar).Obj()
				p.Spec.InitContainers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}
				return p
			})
			res := requireVerifies(t, planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()}, pods: pods})
			if len(res.NodeClaims) != tc.wantClaims || res.Summary.Scheduled != 2 {
				t.Errorf("%d NodeClaims, %d pods placed; want %d NodeClaims, 2 pods", len(res.NodeClaims), res.Summary.Scheduled, tc.wantClaims)
			}
		})
	}
}

// TestExplainHostPortAmongFittingTypes: a DaemonSet takes the pod's host
// port on the only instance type with room for it, and the type without
// the DaemonSet is too small. The pod error names the host port (the
// criterion the closest type failed, typecheck.go), not the order of the
// solve.
func TestExplainHostPortAmongFittingTypes(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("roomy").Label("size", "roomy").CPU("2").Memory("4Gi").Pods("10").Offering("z1", "on-demand", 0.1).Obj(),
		testutil.InstanceType("narrow").Label("size", "narrow").CPU("8").Memory("1Gi").Pods("10").Offering("z1", "on-demand", 0.2).Obj(),
	})
	require.NoError(t, err)
	proxy := testutil.DaemonSet("proxy", testutil.Pod("proxy").CPU("10m").HostPort(8080, corev1.ProtocolTCP).NodeSelector("size", "roomy").Obj())
	pod := testutil.Pod("web").CPU("1").Memory("1500Mi").HostPort(8080, corev1.ProtocolTCP).Obj()
	res, err := scheduler.Solve([]*corev1.Pod{pod}, []nodepool.NodePool{testutil.NodePool("default").Obj()}, cat, scheduler.WithDaemonSets([]*appsv1.DaemonSet{proxy}))
	require.NoError(t, err)
	var got []scheduler.ReasonCode
	for _, pe := range res.PodErrors {
		got = append(got, pe.Code)
	}
	if diff := gocmp.Diff([]scheduler.ReasonCode{scheduler.ReasonHostPort}, got); diff != "" {
		t.Errorf("pod error codes (-want +got):\n%s", diff)
	}
}
