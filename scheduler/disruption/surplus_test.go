package disruption_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// twoFamilies has a type cheap per cpu (c.2xlarge: 8 cpu at 0.1 a cpu) and
// one dear per cpu (r.large: 2 cpu at 0.15 a cpu), spot and on-demand
// alike, in zone-a.
func twoFamilies(t testing.TB) instancetypes.Catalog {
	t.Helper()
	var types []instancetypes.InstanceType
	for _, x := range []struct {
		name string
		cpu  int
		each float64
	}{{"c.2xlarge", 8, 0.8}, {"r.large", 2, 0.3}} {
		types = append(types, testutil.InstanceType(x.name).CPU(fmt.Sprint(x.cpu)).Memory(fmt.Sprintf("%dGi", 4*x.cpu)).Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
			Offering("zone-a", "spot", x.each).Offering("zone-a", "on-demand", x.each).Obj())
	}
	c, err := instancetypes.NewCatalog(types)
	require.NoError(t, err)
	return c
}

// TestGlobalDeletesTheDearRoom states the rule the global search follows
// when a pool's nodes can only be deleted (spot, spot-to-spot off): it
// deletes the room that is dear per cpu, not the dearest nodes first. Ten
// c.2xlarge nodes hold 5 pods of 1 cpu each and ten r.large nodes one
// each: 60 cpu of pods on 100. Deleting the dearest first (c.2xlarge, $0.8)
// fills the cheap room with their pods and ends with 6 of them and 6
// r.large ($6.6/h, the search before this rule); deleting the r.large
// first, then the c.2xlarge while the pods fit, ends with 8 c.2xlarge
// ($6.4/h), where Karpenter's single-node path (most price per pod first)
// ends too.
func TestGlobalDeletesTheDearRoom(t *testing.T) {
	b := newCluster(t)
	b.catalog = twoFamilies(t)
	for i := range 10 {
		big, small := fmt.Sprintf("c%d", i), fmt.Sprintf("r%d", i)
		b.node(big, "default", "c.2xlarge", "zone-a", "spot")
		for j := range 5 {
			b.pod(fmt.Sprintf("%s-%d", big, j), big, "1")
		}
		b.node(small, "default", "r.large", "zone-a", "spot")
		b.pod(small+"-0", small, "1")
	}
	pools := one()
	pools[0] = pool("default", spot(), budgets(all()))
	plan := func(search disruption.Search) disruption.Result {
		res, err := disruption.Plan(b.c, pools, b.catalog, testNow(), disruption.WithSearch(search), disruption.WithoutRepack())
		require.NoError(t, err)
		return res
	}
	k, g := plan(disruption.SearchKarpenter), plan(disruption.SearchGlobal)
	if diff := gocmp.Diff(map[string]int{"c.2xlarge": 8}, keptTypes(g)); diff != "" {
		t.Errorf("global keeps (-want +got):\n%s", diff)
	}
	if g.Summary.PricePerHourAfter > k.Summary.PricePerHourAfter+1e-9 {
		t.Errorf("global ends at $%v/h, karpenter at $%v/h", g.Summary.PricePerHourAfter, k.Summary.PricePerHourAfter)
	}
}

// keptTypes counts the nodes a plan keeps by instance type.
func keptTypes(res disruption.Result) map[string]int {
	out := map[string]int{}
	for _, n := range res.Nodes {
		if !n.Disrupted {
			out[n.InstanceType]++
		}
	}
	return out
}

// TestGlobalNotDearerOnGenerated plans generated clusters where the global
// search, taking the dearest nodes first, ended dearer than Karpenter's
// ($34.23/h against $34.20/h with seed 2, $28.62/h against $28.52/h with
// seed 5: their default pools are spot nodes that can only be deleted;
// later, before Plan converged Karpenter's search beside it, $30.88
// against $30.82 with seed 9, $29.25 against $29.22 with seed 16, $31.85 against $31.82
// with seed 26, $28.43 against $28.41 with seed 27, $27.16 against
// $27.15 with seed 63, where the unit order ends at $27.16 too) and checks
// that it ends no dearer now (on clusters this small Plan also converges
// Karpenter's search and, while that ends cheaper, the global search in
// other orders: planGlobal).
func TestGlobalNotDearerOnGenerated(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans generated clusters of 110 nodes several times each (a measurement: not under -short or -race)")
	}
	for _, seed := range []uint64{2, 5, 9, 16, 26, 27, 63} {
		t.Run(fmt.Sprintf("nodes=100/seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			c, err := benchcluster.Generate(benchcluster.Options{Nodes: 100, Seed: seed})
			require.NoError(t, err)
			plan := func(search disruption.Search) disruption.Summary {
				res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, disruption.WithSearch(search), disruption.WithoutRepack())
				require.NoError(t, err)
				return res.Summary
			}
			k, g := plan(disruption.SearchKarpenter), plan(disruption.SearchGlobal)
			t.Logf("karpenter ends at $%.2f/h with %d commands disrupting %d nodes; global at $%.2f/h with %d commands disrupting %d nodes",
				k.PricePerHourAfter, k.Commands, k.NodesDisrupted, g.PricePerHourAfter, g.Commands, g.NodesDisrupted)
			if g.PricePerHourAfter > k.PricePerHourAfter+1e-9 {
				t.Errorf("global ends at $%v/h, karpenter at $%v/h", g.PricePerHourAfter, k.PricePerHourAfter)
			}
		})
	}
}

// TestPreferLowerPriceOnGenerated plans generated clusters under both
// Prefer choices. On 316 nodes (seed 1) dearest per unit of room first
// ends at $49.44/h against $49.85/h dearest first, disrupting more nodes
// (129 against 99); on 110 nodes (seed 5) it would end at $32.18/h
// against $32.07/h, so PreferLowerPrice keeps the dearest-first end, the
// same commands as the default; on 316 nodes it counts both convergences'
// work.
func TestPreferLowerPriceOnGenerated(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("plans generated clusters of 110 and 316 nodes three times each (a measurement: not under -short or -race)")
	}
	for _, tc := range []struct {
		nodes   int
		seed    uint64
		cheaper bool // the unit order's end is kept
	}{{300, 1, true}, {100, 5, false}} {
		t.Run(fmt.Sprintf("nodes=%d/seed=%d", tc.nodes, tc.seed), func(t *testing.T) {
			t.Parallel()
			c, err := benchcluster.Generate(benchcluster.Options{Nodes: tc.nodes, Seed: tc.seed})
			require.NoError(t, err)
			plan := func(p disruption.Prefer) disruption.Result {
				res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, disruption.WithSearch(disruption.SearchGlobal),
					disruption.WithPrefer(p), disruption.WithoutRepack())
				require.NoError(t, err)
				return res
			}
			d, l := plan(disruption.PreferFewerDisruptions), plan(disruption.PreferLowerPrice)
			t.Logf("fewer-disruptions ends at $%.2f/h disrupting %d nodes; lower-price at $%.2f/h disrupting %d",
				d.Summary.PricePerHourAfter, d.Summary.NodesDisrupted, l.Summary.PricePerHourAfter, l.Summary.NodesDisrupted)
			if tc.cheaper {
				require.Less(t, l.Summary.PricePerHourAfter, d.Summary.PricePerHourAfter)
				require.Greater(t, l.Summary.NodesDisrupted, d.Summary.NodesDisrupted)
			} else {
				require.Equal(t, d.Commands, l.Commands)
			}
			sims := func(r disruption.Result) (n int) {
				for _, k := range r.Stats.Simulations {
					n += k
				}
				return n
			}
			if tc.nodes > 256 {
				// On smaller clusters the default converges Karpenter's
				// search too (planGlobal), which may cost more than
				// the unit order's convergence.
				require.Greater(t, sims(l), sims(d))
			}
		})
	}
}
