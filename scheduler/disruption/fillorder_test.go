package disruption_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestFillCheapOnGenerated plans generated clusters with the global search,
// with and without the convergence whose moved pods fill the nodes
// cheapest per unit of room first (fillorder.go). Where the pods of a
// deleted node land decides which nodes can go next: on these clusters
// filling by name leaves pods on spot nodes dear for their room (a
// deletion-only pool, spot-to-spot off) that filling the cheap room first
// leaves empty enough to delete. The default keeps the cheaper end (the
// second when it disrupts no more nodes, or saves the minimum saving on the
// extra nodes: worthTheChurn), so it is never dearer than the convergence
// by name, and here strictly cheaper; every command still verifies (both
// without the convergences that defer small nodes: TestDeferSmallNodes).
func TestFillCheapOnGenerated(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans generated clusters of 110 and 443 nodes several times each (a measurement: not under -short or -race)")
	}
	for _, tc := range []struct {
		nodes int
		seed  uint64
	}{{100, 8}, {100, 9}, {500, 2}} {
		t.Run(fmt.Sprintf("nodes=%d/seed=%d", tc.nodes, tc.seed), func(t *testing.T) {
			t.Parallel()
			c, err := benchcluster.Generate(benchcluster.Options{Nodes: tc.nodes, Seed: tc.seed})
			require.NoError(t, err)
			plan := func(opts ...disruption.Option) disruption.Result {
				opts = append(opts, disruption.WithSearch(disruption.SearchGlobal), disruption.WithoutRepack())
				res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, opts...)
				require.NoError(t, err)
				return res
			}
			byName, both := plan(disruption.WithoutFillCheap(), disruption.WithoutDeferSmall()), plan(disruption.WithoutDeferSmall())
			t.Logf("by name: $%.2f/h, %d commands, %d nodes disrupted; filling cheap room first kept: $%.2f/h, %d commands, %d nodes disrupted",
				byName.Summary.PricePerHourAfter, byName.Summary.Commands, byName.Summary.NodesDisrupted,
				both.Summary.PricePerHourAfter, both.Summary.Commands, both.Summary.NodesDisrupted)
			require.Less(t, both.Summary.PricePerHourAfter, byName.Summary.PricePerHourAfter-0.005)
			checkCommands(t, "fill", randomCase{cluster: c.Cluster, pools: c.NodePools}, c.Catalog, both)
		})
	}
}

// TestFewerDisruptionsThanKarpenter: on a cluster small enough for the
// global search to converge Karpenter's search too, the default reaches
// Karpenter's saving disrupting fewer nodes than Karpenter's commands do
// whenever one of its ends no dearer than Karpenter's does. On 316 nodes
// (seed 3) the end that fills the cheap room first is cheaper ($45.85/h
// against $46.02/h by name) but reaches Karpenter's saving only after 111
// disrupted nodes, against Karpenter's 106 and the other end's 102; a
// convergence with the small nodes of deleting commands deferred
// (TestDeferSmallNodes) ends at $45.93/h after 105: the default keeps it,
// the cheapest end that needs fewer.
func TestFewerDisruptionsThanKarpenter(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans a generated cluster of 316 nodes three times (a measurement: not under -short or -race)")
	}
	c, err := benchcluster.Generate(benchcluster.Options{Nodes: 300, Seed: 3})
	require.NoError(t, err)
	plan := func(search disruption.Search) disruption.Result {
		res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, disruption.WithSearch(search), disruption.WithoutRepack())
		require.NoError(t, err)
		return res
	}
	k, g := plan(disruption.SearchKarpenter), plan(disruption.SearchGlobal)
	reach := nodesToReach(g, k.Summary.SavingsPerHour)
	t.Logf("karpenter ends at $%.2f/h disrupting %d nodes; global at $%.2f/h, %d nodes disrupted at karpenter's saving",
		k.Summary.PricePerHourAfter, k.Summary.NodesDisrupted, g.Summary.PricePerHourAfter, reach)
	require.LessOrEqual(t, g.Summary.PricePerHourAfter, k.Summary.PricePerHourAfter)
	require.Less(t, reach, k.Summary.NodesDisrupted)
}

// TestDeferSmallNodes: where the default's ends reach Karpenter's saving
// only after more disrupted nodes than Karpenter's whole plan, planGlobal
// converges again with the small nodes of each deleting command left to
// later commands (deferSmall): the commands then save most per node first.
// On these 110-node clusters that end reaches Karpenter's saving with
// fewer disrupted nodes than Karpenter's commands (seed 6: 29 against 31;
// without it 32), still ending below Karpenter's price; every command
// verifies.
func TestDeferSmallNodes(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans generated clusters of 110 nodes several times each (a measurement: not under -short or -race)")
	}
	for _, seed := range []uint64{6, 7, 8} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			c, err := benchcluster.Generate(benchcluster.Options{Nodes: 100, Seed: seed})
			require.NoError(t, err)
			plan := func(opts ...disruption.Option) disruption.Result {
				opts = append(opts, disruption.WithoutRepack())
				res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, opts...)
				require.NoError(t, err)
				return res
			}
			k := plan(disruption.WithSearch(disruption.SearchKarpenter))
			without := plan(disruption.WithSearch(disruption.SearchGlobal), disruption.WithoutDeferSmall())
			g := plan(disruption.WithSearch(disruption.SearchGlobal))
			save := k.Summary.SavingsPerHour
			t.Logf("karpenter: $%.2f/h, %d nodes disrupted; without deferring: $%.2f/h, %d at karpenter's saving; default: $%.2f/h, %d commands, %d at karpenter's saving",
				k.Summary.PricePerHourAfter, k.Summary.NodesDisrupted, without.Summary.PricePerHourAfter, nodesToReach(without, save),
				g.Summary.PricePerHourAfter, g.Summary.Commands, nodesToReach(g, save))
			require.GreaterOrEqual(t, nodesToReach(without, save), k.Summary.NodesDisrupted)
			require.Less(t, nodesToReach(g, save), k.Summary.NodesDisrupted)
			require.LessOrEqual(t, g.Summary.PricePerHourAfter, k.Summary.PricePerHourAfter)
			checkCommands(t, "defer", randomCase{cluster: c.Cluster, pools: c.NodePools}, c.Catalog, g)
		})
	}
}
