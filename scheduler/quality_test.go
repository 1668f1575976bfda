package scheduler_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// TestUnconstrainedNearBound checks the plan-quality target for pods with
// no constraints on the AWS catalog: within 5% of the proven lower bound.
func TestUnconstrainedNearBound(t *testing.T) {
	cat, err := aws.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	pools := []nodepool.NodePool{testutil.NodePool("default").
		Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "spot", "on-demand").
		Requirement("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "c", "m", "r").Obj()}
	cpus := []string{"100m", "250m", "500m", "750m", "1", "1500m", "2"}
	mems := []string{"128Mi", "256Mi", "512Mi", "1Gi", "2Gi", "3Gi", "4Gi"}
	for _, n := range []int{100, 1000} {
		t.Run(fmt.Sprintf("pods=%d", n), func(t *testing.T) {
			var pods []*corev1.Pod
			for i := range n {
				pods = append(pods, testutil.Pod(fmt.Sprintf("p-%d", i)).CPU(cpus[(i*7+i/3)%7]).Memory(mems[(i*5+i/7)%7]).Obj())
			}
			res, err := scheduler.Solve(pods, pools, cat)
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Scheduled != n {
				t.Fatalf("placed %d of %d pods: %v", res.Summary.Scheduled, n, res.PodErrors)
			}
			ratio := res.Summary.PricePerHour / res.Summary.PriceLowerBound
			t.Logf("$%.2f/h, bound $%.2f/h, ratio %.3f, %d nodes", res.Summary.PricePerHour, res.Summary.PriceLowerBound, ratio, len(res.NodeClaims))
			if ratio > 1.05 {
				t.Errorf("price is %.3f times the lower bound, want at most 1.05", ratio)
			}
		})
	}
}

// TestBeatsKarpenterOnItsBenchmark checks the price target on Karpenter's
// own scheduling benchmark: every pod placed, at most 0.75 of Karpenter
// v1.14.1's price (testdata/bench/README.md), and never above it.
func TestBeatsKarpenterOnItsBenchmark(t *testing.T) {
	karpenter := map[string]float64{"diverse-1000": 345.6, "preference-4000": 3777.0}
	for _, name := range []string{"diverse-1000", "preference-4000"} {
		t.Run(name, func(t *testing.T) {
			w := loadKarpenter(t, name)
			res := solveWorkload(t, w)
			if res.Summary.Scheduled != len(w.in.Pods) {
				t.Fatalf("placed %d of %d pods", res.Summary.Scheduled, len(w.in.Pods))
			}
			ratio := res.Summary.PricePerHour / karpenter[name]
			t.Logf("$%.2f/h against Karpenter's $%.2f/h (%.3f), %d nodes", res.Summary.PricePerHour, karpenter[name], ratio, len(res.NodeClaims))
			if ratio > 0.75 {
				t.Errorf("price is %.3f of Karpenter's, want at most 0.75", ratio)
			}
		})
	}
}
