package disruption_test

import (
	"encoding/json"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/benchcluster"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestViewOnGeneratedCluster: on a generated cluster (aws-mixed: spread,
// anti-affinity, volumes, DaemonSets, the AWS catalog), the reduced view,
// its ghosts, the price-bounded catalogs and the failure cache give the
// commands the full simulation gives, under both searches; every command
// verifies (verify.Plan) on the cluster the commands before it leave.
func TestViewOnGeneratedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a generated cluster twice with the full simulation")
	}
	c, err := benchcluster.Generate(benchcluster.Options{Nodes: 30, Seed: 3})
	require.NoError(t, err)
	for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
		var last disruption.Result
		plan := func(opts ...disruption.Option) []byte {
			res, err := disruption.Plan(c.Cluster, c.NodePools, c.Catalog, c.Now, append(opts, disruption.WithSearch(search),
				disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes), disruption.WithoutRepack())...)
			require.NoError(t, err)
			last = res
			b, err := json.Marshal(res.Commands)
			require.NoError(t, err)
			return b
		}
		if diff := gocmp.Diff(string(plan(disruption.WithFullSimulation(), disruption.WithoutCache())), string(plan())); diff != "" {
			t.Errorf("%s: the view changes the commands (-full +view):\n%s", search, diff)
		}
		checkCommands(t, string(search), randomCase{cluster: c.Cluster, pools: c.NodePools}, c.Catalog, last)
	}
}
