package disruption_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// BenchmarkConsolidate converges generated clusters (benchcluster: the
// aws-mixed workload launched and scaled down by 30%) of 100, 1,000 and
// 5,000 nodes under both searches, and reports nodes/s, the savings, the
// commands and the nodes they disrupt, and how far from the repack price
// the cluster ends.
func BenchmarkConsolidate(b *testing.B) {
	for _, nodes := range []int{100, 1000, 5000} {
		for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
			b.Run(fmt.Sprintf("%s/nodes=%d", search, nodes), func(b *testing.B) {
				if nodes > 1000 && testing.Short() {
					b.Skip("5,000 nodes take minutes to generate and plan: not in -short runs (CI's smoke run)")
				}
				c, err := benchcluster.Generate(benchcluster.Options{Nodes: nodes, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				var res disruption.Result
				start := time.Now()
				for b.Loop() {
					res, err = disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, disruption.WithSearch(search), disruption.WithoutRepack())
					if err != nil {
						b.Fatal(err)
					}
				}
				perOp := time.Since(start).Seconds() / float64(b.N)
				s := res.Summary
				b.ReportMetric(float64(s.Nodes)/perOp, "nodes/s")
				b.ReportMetric(float64(s.Nodes), "nodes")
				b.ReportMetric(float64(c.Pods), "pods")
				b.ReportMetric(s.PricePerHour, "$/h-before")
				b.ReportMetric(s.SavingsPerHour, "$/h-saved")
				b.ReportMetric(float64(s.Commands), "commands")
				b.ReportMetric(float64(s.NodesDisrupted), "disrupted")
				sims := 0
				for _, n := range res.Stats.Simulations {
					sims += n
				}
				b.ReportMetric(float64(sims), "simulations")
				b.ReportMetric(float64(res.Stats.PodsSimulated), "pods-simulated")
				b.Logf("%v", res.Stats.Simulations)
			})
		}
	}
}
