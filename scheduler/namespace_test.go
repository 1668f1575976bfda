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

// A DaemonSet and its running pod that name no namespace are both in
// "default": the pod is the DaemonSet's, so its requests count once on the
// node (not again as a DaemonSet pod still to come).
func TestDaemonSetPodWithoutNamespaceCountsOnce(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	node := testutil.Node("n").Size("4", "16Gi", "110").Obj()
	agent := testutil.Pod("agent-x").Namespace("").NodeName("n").CPU("1").OwnedBy("DaemonSet", "agent").Obj()
	ds := testutil.DaemonSet("agent", testutil.Pod("agent").Namespace("").CPU("1").Obj())
	pods := []*corev1.Pod{testutil.Pod("a").CPU("1").Obj(), testutil.Pod("b").CPU("1").Obj(), testutil.Pod("c").CPU("1").Obj()}
	opts := []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{agent}), scheduler.WithDaemonSets([]*appsv1.DaemonSet{ds})}
	res, err := scheduler.Solve(pods, []nodepool.NodePool{testutil.NodePool("default").Obj()}, cat, opts...)
	require.NoError(t, err)
	want := []scheduler.NodePlacement{{Name: "n", Pods: []string{"default/a", "default/b", "default/c"}}}
	if diff := gocmp.Diff(want, res.ExistingNodes); diff != "" {
		t.Errorf("existing nodes (-want +got):\n%s", diff)
	}
}
