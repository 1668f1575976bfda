package disruption_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestSplitProofChangesNothing: ruling multi-node probes out by the proof
// of split.go leaves the whole plan byte for byte as simulating them gives
// (commands, kept nodes and their reasons), on generated clusters and on
// random ones, and it does rule some out (fewer multi-node simulations).
func TestSplitProofChangesNothing(t *testing.T) {
	type input struct {
		name string
		plan func(...disruption.Option) disruption.Result
	}
	var inputs []input
	// Clusters where the proof holds for some probes (GPU and batch nodes
	// among the candidates).
	for _, o := range []benchcluster.Options{{Nodes: 200, Seed: 2}, {Nodes: 300, Seed: 3}} {
		c, err := benchcluster.Generate(o)
		require.NoError(t, err)
		inputs = append(inputs, input{"generated", func(opts ...disruption.Option) disruption.Result {
			res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, opts...)
			require.NoError(t, err)
			return res
		}})
	}
	catalog := testCatalog(t)
	for seed := range uint64(20) {
		c := randomCluster(rand.New(rand.NewPCG(seed, 11)), catalog)
		inputs = append(inputs, input{"random", func(opts ...disruption.Option) disruption.Result {
			res, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), opts...)
			require.NoError(t, err)
			return res
		}})
	}
	saved := 0
	for i, in := range inputs {
		proved := in.plan()
		simulated := in.plan(disruption.WithoutSplitProof())
		a, _ := json.Marshal(proved)
		b, _ := json.Marshal(simulated)
		if string(a) != string(b) {
			t.Fatalf("%s input %d: the proof changes the plan:\n%s\n%s", in.name, i, b, a)
		}
		saved += simulated.Stats.Simulations[disruption.MethodMultiNode] - proved.Stats.Simulations[disruption.MethodMultiNode]
	}
	if saved <= 0 {
		t.Fatalf("the proof ruled no multi-node probe out (%d simulations saved)", saved)
	}
}
