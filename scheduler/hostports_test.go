package scheduler_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
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
