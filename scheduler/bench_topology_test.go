package scheduler_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// topologyWorkload builds n pods in Deployments of 20 replicas, every one
// under topology rules, cycling through five shapes: zone spread (DoNotSchedule),
// zone and hostname spread, hostname anti-affinity to itself (one pod per
// node), zone affinity to itself, and a preferred hostname anti-affinity
// with a zone spread on capacity type. Sizes are drawn from a fixed seed.
func topologyWorkload(n int) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(6, uint64(n)))
	cpus := []string{"250m", "500m", "1", "2"}
	mems := []string{"512Mi", "1Gi", "2Gi", "4Gi"}
	var pods []*corev1.Pod
	for d := 0; len(pods) < n; d++ {
		app := map[string]string{"app": fmt.Sprintf("app-%d", d)}
		cpu, mem := cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))]
		for r := 0; r < 20 && len(pods) < n; r++ {
			b := testutil.Pod(fmt.Sprintf("app-%d-%d", d, r)).Label("app", app["app"]).CPU(cpu).Memory(mem)
			switch d % 5 {
			case 0:
				b.Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, app)
			case 1:
				b.Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, app).
					Spread(requirements.LabelHostname, 2, corev1.DoNotSchedule, app)
			case 2:
				b.PodAntiAffinity(requirements.LabelHostname, app)
			case 3:
				b.PodAffinity(requirements.LabelTopologyZone, app)
			default:
				b.PreferredPodAntiAffinity(50, requirements.LabelHostname, app).
					Spread(requirements.LabelCapacityType, 1, corev1.ScheduleAnyway, app)
			}
			pods = append(pods, b.Obj())
		}
	}
	return pods
}

// BenchmarkSolveTopology shows that the cost of topology per pod stays
// near-constant as the number of pods grows: compare µs/pod at 1,000 and
// 20,000 pods.
func BenchmarkSolveTopology(b *testing.B) {
	cat, err := aws.Catalog()
	if err != nil {
		b.Fatal(err)
	}
	prepared, err := scheduler.Prepare(cat) // once, outside the timed loops
	if err != nil {
		b.Fatal(err)
	}
	pools := []nodepool.NodePool{testutil.NodePool("default").
		Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "spot", "on-demand").
		Requirement("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "c", "m", "r").Obj()}
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			pods := topologyWorkload(n)
			b.ReportAllocs()
			var res scheduler.Result
			start := time.Now()
			for b.Loop() {
				if res, err = scheduler.Solve(pods, pools, cat, scheduler.WithPrepared(prepared)); err != nil {
					b.Fatal(err)
				}
			}
			perOp := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(perOp/float64(n)*1e6, "µs/pod")
			b.ReportMetric(float64(res.Summary.NodeClaims), "nodes")
			b.ReportMetric(float64(res.Summary.Scheduled), "placed")
			b.ReportMetric(res.Summary.PricePerHour, "$/h")
			if res.Summary.PriceLowerBound > 0 {
				b.ReportMetric(res.Summary.PricePerHour/res.Summary.PriceLowerBound, "price/bound")
			}
		})
	}
}
