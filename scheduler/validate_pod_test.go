package scheduler_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// A pending pod the API server would reject is never placed: its PodError
// has code InvalidPod and names the field. A valid pod beside it is placed.
func TestSolveInvalidPods(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("m").CPU("4").Memory("16Gi").Pods("110").Label("cpu", "4").Capacity("nvidia.com/gpu", "1").Offering("z1", "on-demand", 1).Obj(),
	})
	require.NoError(t, err)
	pool := testutil.NodePool("default").Obj()
	tests := []struct {
		pod   *corev1.Pod
		field string // the field the reason names
	}{
		{testutil.Pod("negative-cpu").CPU("-2").Obj(), "spec.containers[0].resources.requests[cpu]"},
		{testutil.Pod("exists-with-values").RequiredTerm(testutil.Expr("team", corev1.NodeSelectorOpExists, "a")).Obj(),
			"nodeSelectorTerms[0].matchExpressions[0].values"},
		{testutil.Pod("does-not-exist-with-values").RequiredTerm(testutil.Expr("team", corev1.NodeSelectorOpDoesNotExist, "a")).Obj(),
			"nodeSelectorTerms[0].matchExpressions[0].values"},
		{testutil.Pod("gt-not-an-integer").RequiredTerm(testutil.Expr("cpu", corev1.NodeSelectorOpGt, "abc")).Obj(),
			"nodeSelectorTerms[0].matchExpressions[0].values[0]"},
		{testutil.Pod("lt-two-values").RequiredTerm(testutil.Expr("cpu", corev1.NodeSelectorOpLt, "8", "9")).Obj(),
			"nodeSelectorTerms[0].matchExpressions[0].values"},
		{testutil.Pod("in-no-values").RequiredTerm(testutil.Expr("cpu", corev1.NodeSelectorOpIn)).Obj(),
			"nodeSelectorTerms[0].matchExpressions[0].values"},
		{testutil.Pod("bad-label").Label("app", "-web-").Obj(), "metadata.labels[app]"},
		{testutil.Pod("bad-selector-key").NodeSelector("a b", "c").Obj(), "spec.nodeSelector[a b]"},
		{testutil.Pod("toleration-never").Toleration("a", corev1.TolerationOpExists, "", "Never").Obj(), "spec.tolerations[0].effect"},
		{testutil.Pod("request-above-limit").CPU("2").Limit(corev1.ResourceCPU, "1").Obj(), "spec.containers[0].resources.requests[cpu]"},
		{testutil.Pod("half-a-gpu").Request("nvidia.com/gpu", "500m").Obj(), "spec.containers[0].resources.requests[nvidia.com/gpu]"},
	}
	pods := []*corev1.Pod{testutil.Pod("valid").CPU("1").Obj()}
	for _, tt := range tests {
		pods = append(pods, tt.pod)
	}
	res, err := scheduler.Solve(pods, []nodepool.NodePool{pool}, cat)
	require.NoError(t, err)
	if p, _ := res.Pod("valid"); !p.Placed() {
		t.Errorf("the valid pod is not placed: %+v", p.Error)
	}
	for _, tt := range tests {
		p, ok := res.Pod(tt.pod.Name)
		require.True(t, ok, tt.pod.Name)
		if p.Placed() {
			t.Errorf("%s: placed; want unplaced with %s", tt.pod.Name, scheduler.ReasonInvalidPod)
			continue
		}
		if diff := gocmp.Diff(scheduler.ReasonInvalidPod, p.Error.Code); diff != "" {
			t.Errorf("%s: code (-want +got):\n%s\nreason: %s", tt.pod.Name, diff, p.Error.Reason)
		}
		if !strings.Contains(p.Error.Reason, tt.field) {
			t.Errorf("%s: reason %q does not name %s", tt.pod.Name, p.Error.Reason, tt.field)
		}
	}
	if err := verify.Plan(pods, []nodepool.NodePool{pool}, cat, res); err != nil {
		t.Errorf("Verify: %v", err)
	}
}
