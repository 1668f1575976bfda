package disruption_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestNodeWithoutCapacity: a node that reports neither capacity nor
// allocatable and carries no labels (no instance type to read them from)
// holds a pod beside two managed nodes. Every search plans (FuzzConsolidate
// found the room of such a node written to a nil list: a panic), keeps it
// as unmanaged, and still consolidates the managed nodes.
func TestNodeWithoutCapacity(t *testing.T) {
	for _, opts := range [][]disruption.Option{
		nil,
		{disruption.WithSearch(disruption.SearchGlobal)},
		{disruption.WithSearch(disruption.SearchGlobal), disruption.WithPrefer(disruption.PreferLowerPrice)},
	} {
		b := newCluster(t)
		b.node("a", "default", "m.large", "zone-a", "on-demand")
		b.node("b", "default", "m.large", "zone-a", "on-demand")
		b.pod("pa", "a", "500m")
		b.pod("pb", "b", "500m")
		b.c.Nodes = append(b.c.Nodes, testutil.Node("bare").Obj())
		b.pod("on-bare", "bare", "100m")
		res, err := disruption.Plan(b.c, []nodepool.NodePool{defaultPool()}, b.catalog, testNow(), opts...)
		require.NoError(t, err)
		bare := 0
		for _, n := range res.Nodes {
			if n.Name == "bare" {
				bare++
				require.False(t, n.Disrupted)
				require.Equal(t, disruption.KeepUnmanaged, n.Reason)
			}
		}
		require.Equal(t, 1, bare)
		require.NotEmpty(t, res.Commands, "the two managed nodes, each a quarter full, consolidate")
		require.Less(t, res.Summary.PricePerHourAfter, res.Summary.PricePerHour)
	}
}
