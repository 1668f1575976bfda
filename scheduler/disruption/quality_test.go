package disruption_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestQualityTargets plans a generated cluster (100 nodes of the aws-mixed
// workload, scaled down by 30%) under both searches, with the
// spot-to-spot gate off (Karpenter's default) and on, and checks the
// global search against Karpenter's: it takes fewer commands and ends
// within 1% of Karpenter's price (its minimum saving per command, a tenth
// of the price of the nodes disrupted, skips the small replacements
// Karpenter's path ends with). It logs both end states, the repack price
// and its lower bound.
func TestQualityTargets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans a generated cluster of 100 nodes four times (a measurement: not under -short or -race)")
	}
	c, err := benchcluster.Generate(benchcluster.Options{Nodes: 100, Seed: 1})
	require.NoError(t, err)
	for _, gate := range []bool{false, true} {
		plan := func(search disruption.Search) disruption.Result {
			opts := []disruption.Option{disruption.WithSearch(search)}
			if gate {
				opts = append(opts, disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes))
			}
			res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, opts...)
			require.NoError(t, err)
			return res
		}
		k, g := plan(disruption.SearchKarpenter), plan(disruption.SearchGlobal)
		ks, gs := k.Summary, g.Summary
		t.Logf("spot-to-spot %v: start $%.2f/h, repack $%.2f/h (bound $%.2f/h); karpenter ends at $%.2f/h with %d commands disrupting %d nodes; global at $%.2f/h with %d commands disrupting %d nodes (%d to reach karpenter's saving)",
			gate, ks.PricePerHour, ks.RepackPricePerHour, ks.RepackLowerBound, ks.PricePerHourAfter, ks.Commands, ks.NodesDisrupted,
			gs.PricePerHourAfter, gs.Commands, gs.NodesDisrupted, nodesToReach(g, ks.SavingsPerHour))
		if gs.PricePerHourAfter > ks.PricePerHourAfter*1.01 {
			t.Errorf("spot-to-spot %v: global ends at $%v/h, more than 1%% dearer than karpenter's $%v/h", gate, gs.PricePerHourAfter, ks.PricePerHourAfter)
		}
		if gs.Commands >= ks.Commands {
			t.Errorf("spot-to-spot %v: global takes %d commands, karpenter %d", gate, gs.Commands, ks.Commands)
		}
	}
}

// nodesToReach counts the nodes a plan's commands disrupt until they save
// at least saving (every node when they never do).
func nodesToReach(res disruption.Result, saving float64) int {
	n, saved := 0, 0.0
	for _, c := range res.Commands {
		n += len(c.Nodes)
		saved += c.SavingsPerHour
		if saved >= saving-1e-9 {
			return n
		}
	}
	return res.Summary.NodesDisrupted
}

// TestQualitySweep measures the quality figures of README's consolidation
// sections: for each generated cluster listed in NODEPLAN_QUALITY
// ("nodes:seed,...", e.g. "100:1,300:3,5000:1"; skipped when unset), the
// Karpenter-faithful end, the global search's end without the convergence
// that fills the cheap room first and with it (the default), how much of
// the gap from Karpenter's end to the repack price each closes, and the
// nodes each has disrupted when its price first reaches Karpenter's end.
// It checks that the default ends no dearer than Karpenter's search and
// no dearer than without the second convergence.
func TestQualitySweep(t *testing.T) {
	list := os.Getenv("NODEPLAN_QUALITY")
	if list == "" {
		t.Skip("a measurement: set NODEPLAN_QUALITY=nodes:seed,... to run it")
	}
	for _, item := range strings.Split(list, ",") {
		var nodes int
		var seed uint64
		if _, err := fmt.Sscanf(item, "%d:%d", &nodes, &seed); err != nil {
			t.Fatalf("NODEPLAN_QUALITY item %q: want nodes:seed", item)
		}
		c, err := benchcluster.Generate(benchcluster.Options{Nodes: nodes, Seed: seed})
		require.NoError(t, err)
		plan := func(opts ...disruption.Option) disruption.Result {
			res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, opts...)
			require.NoError(t, err)
			return res
		}
		k := plan(disruption.WithSearch(disruption.SearchKarpenter), disruption.WithoutRepack())
		byName := plan(disruption.WithSearch(disruption.SearchGlobal), disruption.WithoutFillCheap(), disruption.WithoutRepack())
		g := plan(disruption.WithSearch(disruption.SearchGlobal))
		ks, repack := k.Summary, g.Summary.RepackPricePerHour
		closer := func(s disruption.Summary) float64 {
			return 100 * (ks.PricePerHourAfter - s.PricePerHourAfter) / (ks.PricePerHourAfter - repack)
		}
		t.Logf("%s: %d nodes, repack $%.2f/h; karpenter $%.2f/h, %d commands, %d nodes disrupted; by name $%.2f/h (%.1f%% closer), %d commands, %d disrupted at karpenter's saving; default $%.2f/h (%.1f%% closer), %d commands, %d disrupted at karpenter's saving",
			item, len(c.Cluster.Nodes), repack, ks.PricePerHourAfter, ks.Commands, ks.NodesDisrupted,
			byName.Summary.PricePerHourAfter, closer(byName.Summary), byName.Summary.Commands, nodesToReach(byName, ks.SavingsPerHour),
			g.Summary.PricePerHourAfter, closer(g.Summary), g.Summary.Commands, nodesToReach(g, ks.SavingsPerHour))
		require.LessOrEqual(t, g.Summary.PricePerHourAfter, ks.PricePerHourAfter+1e-9, item)
		require.LessOrEqual(t, g.Summary.PricePerHourAfter, byName.Summary.PricePerHourAfter+1e-9, item)
	}
}

// TestQualityByPool measures where the gap from the ends to the repack
// price lies: for each generated cluster listed in NODEPLAN_QUALITY_POOLS
// (as NODEPLAN_QUALITY; skipped when unset), the price per NodePool of the
// nodes the Karpenter-faithful search and the default global search keep
// (launched ones included) and of the repack plan. It checks that the
// pools add up to the plans' prices.
func TestQualityByPool(t *testing.T) {
	list := os.Getenv("NODEPLAN_QUALITY_POOLS")
	if list == "" {
		t.Skip("a measurement: set NODEPLAN_QUALITY_POOLS=nodes:seed,... to run it")
	}
	for _, item := range strings.Split(list, ",") {
		var nodes int
		var seed uint64
		if _, err := fmt.Sscanf(item, "%d:%d", &nodes, &seed); err != nil {
			t.Fatalf("NODEPLAN_QUALITY_POOLS item %q: want nodes:seed", item)
		}
		c, err := benchcluster.Generate(benchcluster.Options{Nodes: nodes, Seed: seed})
		require.NoError(t, err)
		repack, err := disruption.RepackByPool(c.Cluster, c.NodePools, c.Catalog, c.Now)
		require.NoError(t, err)
		byPool := func(search disruption.Search) (map[string]float64, disruption.Summary) {
			res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, disruption.WithSearch(search))
			require.NoError(t, err)
			out, total := map[string]float64{}, 0.0
			for _, n := range res.Nodes {
				if !n.Disrupted {
					out[n.NodePool] += n.Price
					total += n.Price
				}
			}
			require.InDelta(t, res.Summary.PricePerHourAfter, total, 0.01, "%s: the kept nodes' prices add up to the end's", item)
			return out, res.Summary
		}
		k, _ := byPool(disruption.SearchKarpenter)
		g, gs := byPool(disruption.SearchGlobal)
		total := 0.0
		for _, p := range repack {
			total += p
		}
		require.InDelta(t, gs.RepackPricePerHour, total, 0.01, "%s: the repack's pools add up to its price", item)
		pools := map[string]bool{}
		for _, m := range []map[string]float64{k, g, repack} {
			for p := range m {
				pools[p] = true
			}
		}
		for _, p := range slices.Sorted(maps.Keys(pools)) {
			t.Logf("%s: NodePool %s: karpenter $%.2f/h, default $%.2f/h, repack $%.2f/h", item, p, k[p], g[p], repack[p])
		}
	}
}
