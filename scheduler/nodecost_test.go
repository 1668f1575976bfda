package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TestNodeCost checks that a per-node cost moves the plan to fewer, larger
// nodes when they are cheaper once each node is charged: four 1.5-cpu pods
// take four small nodes ($0.40/h) without it, and one large node ($0.45/h,
// against $0.40 + 4 × $0.05 for four small ones) with it.
func TestNodeCost(t *testing.T) {
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("small").CPU("2").Memory("8Gi").Pods("10").Offering("z1", "on-demand", 0.10).Obj(),
		testutil.InstanceType("medium").CPU("4").Memory("16Gi").Pods("10").Offering("z1", "on-demand", 0.21).Obj(),
		testutil.InstanceType("large").CPU("8").Memory("32Gi").Pods("10").Offering("z1", "on-demand", 0.45).Obj(),
	})
	require.NoError(t, err)
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	var pods []*corev1.Pod
	for i := range 4 {
		pods = append(pods, testutil.Pod(fmt.Sprintf("p-%d", i)).CPU("1500m").Obj())
	}
	types := func(res scheduler.Result) map[string]int {
		out := map[string]int{}
		for _, nc := range res.NodeClaims {
			out[nc.InstanceType]++
		}
		return out
	}
	for _, tt := range []struct {
		name string
		opts []scheduler.Option
		want map[string]int
	}{
		{"no node cost", nil, map[string]int{"small": 4}},
		{"node cost 0.05", []scheduler.Option{scheduler.WithNodeCost(0.05)}, map[string]int{"large": 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scheduler.Solve(pods, pools, cat, tt.opts...)
			require.NoError(t, err)
			require.Equal(t, 4, res.Summary.Scheduled)
			if got := types(res); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("instance types %v, want %v", got, tt.want)
			}
			if err := verify.Plan(pods, pools, cat, res, tt.opts...); err != nil {
				t.Error(err)
			}
		})
	}
}
