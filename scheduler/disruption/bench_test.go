package disruption_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// BenchmarkConsolidate converges generated clusters (benchcluster: the
// aws-mixed workload launched, then scaled down by 30%) of 100, 1,000 and
// 5,000 nodes under both searches (the global one with each Prefer), and reports nodes/s, the savings, the
// commands and the nodes they disrupt, the simulations run, the price the
// plan ends at and the repack price (every pod on new nodes), and the CPU
// seconds one plan takes (cpu-s: the machine may be shared, and the plan
// runs simulations on every core).
func BenchmarkConsolidate(b *testing.B) {
	searches := []struct {
		name string
		opts []disruption.Option
	}{
		{"karpenter", []disruption.Option{disruption.WithSearch(disruption.SearchKarpenter)}},
		{"global", []disruption.Option{disruption.WithSearch(disruption.SearchGlobal)}},
		{"global-lower-price", []disruption.Option{disruption.WithSearch(disruption.SearchGlobal), disruption.WithPrefer(disruption.PreferLowerPrice)}},
	}
	for _, nodes := range []int{100, 1000, 5000} {
		for _, s := range searches {
			b.Run(fmt.Sprintf("%s/nodes=%d", s.name, nodes), func(b *testing.B) {
				if nodes > 100 && testing.Short() {
					b.Skip("1,000 nodes and more take minutes to plan: not in -short runs (CI's smoke run)")
				}
				benchConsolidate(b, nodes, s.opts...)
			})
		}
	}
}

func benchConsolidate(b *testing.B, nodes int, opts ...disruption.Option) {
	c, err := benchcluster.Generate(benchcluster.Options{Nodes: nodes, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var res disruption.Result
	cpu0, cpuOK := cpuTime()
	start := time.Now()
	for b.Loop() {
		res, err = disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, append(opts, disruption.WithoutRepack())...)
		if err != nil {
			b.Fatal(err)
		}
	}
	perOp := time.Since(start).Seconds() / float64(b.N)
	if cpu1, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s")
	}
	s := res.Summary
	b.ReportMetric(float64(s.Nodes)/perOp, "nodes/s")
	b.ReportMetric(float64(c.Pods), "pods")
	b.ReportMetric(s.PricePerHour, "$/h-before")
	b.ReportMetric(s.PricePerHourAfter, "$/h-after")
	b.ReportMetric(s.SavingsPerHour, "$/h-saved")
	b.ReportMetric(float64(s.Commands), "commands")
	b.ReportMetric(float64(s.NodesDisrupted), "disrupted")
	sims := 0
	for _, n := range res.Stats.Simulations {
		sims += n
	}
	b.ReportMetric(float64(sims), "simulations")
	if repack, ok := repackPrice(b, c); ok {
		b.ReportMetric(repack, "$/h-repack")
	}
}

// repackPrice is what Solve pays for every pod of the cluster on new nodes.
func repackPrice(b *testing.B, c benchcluster.Case) (float64, bool) {
	var pods []*corev1.Pod
	for _, p := range c.Cluster.Pods {
		if len(p.OwnerReferences) > 0 && p.OwnerReferences[0].Kind == "DaemonSet" {
			continue
		}
		u := p.DeepCopy()
		u.Spec.NodeName = ""
		pods = append(pods, u)
	}
	res, err := scheduler.Solve(pods, c.NodePools, c.Catalog, scheduler.WithDaemonSets(c.Cluster.DaemonSets),
		scheduler.WithVolumes(c.Cluster.PVCs, c.Cluster.PVs, c.Cluster.StorageClasses))
	if err != nil {
		b.Logf("repack: %v", err)
		return 0, false
	}
	return res.Summary.PricePerHour, true
}
