package disruption

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorthTheChurn: an end that disrupts more nodes replaces another under
// PreferFewerDisruptions only when it saves the minimum saving on the price
// of the nodes it disrupts beyond the other's.
func TestWorthTheChurn(t *testing.T) {
	end := func(after float64, prices ...float64) Result {
		var nodes []CommandNode
		for _, p := range prices {
			nodes = append(nodes, CommandNode{Price: p})
		}
		return Result{Commands: []Command{{Nodes: nodes}}, Summary: Summary{PricePerHourAfter: after, NodesDisrupted: len(prices)}}
	}
	ratio := config{minSavingsRatio: DefaultMinSavingsRatio}
	base := end(10, 2, 2)
	require.True(t, worthTheChurn(end(10.5, 1, 1), base, ratio), "no more nodes disrupted")
	// Two more nodes at a's mean of $1.50/h: the minimum is $0.30/h.
	require.False(t, worthTheChurn(end(9.8, 2, 2, 1, 1), base, ratio), "$0.20/h more for two more nodes")
	require.True(t, worthTheChurn(end(9.7, 2, 2, 1, 1), base, ratio), "$0.30/h more for two more nodes")
	// Four small nodes in place of two large ones: less price disrupted,
	// but two nodes more (at $0.50/h each), for $0.05/h.
	require.False(t, worthTheChurn(end(9.95, 0.5, 0.5, 0.5, 0.5), base, ratio), "cents for two more nodes")
	require.False(t, worthTheChurn(end(9.7, 2, 2, 1, 1), base, config{minSavings: 0.5}), "below the absolute minimum")
	require.True(t, worthTheChurn(end(9.99, 2, 2, 1, 1), base, config{}), "no minimum: any saving")
	require.False(t, worthTheChurn(end(10, 2, 2, 1, 1), base, config{}), "no saving at all")
}
