package disruption

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
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

// TestDefers: only a command of the global search that deletes, without
// replacements, a node priced under the share of its dearest node's beside
// others makes the deferred convergence differ.
func TestDefers(t *testing.T) {
	cmd := func(method Method, repl bool, prices ...float64) Command {
		c := Command{Method: method}
		for _, p := range prices {
			c.Nodes = append(c.Nodes, CommandNode{Price: p})
		}
		if repl {
			c.Replacements = make([]scheduler.NodeClaim, 1)
		}
		return c
	}
	for _, tc := range []struct {
		name  string
		cmd   Command
		share float64
		want  bool
	}{
		{"small node beside a large one", cmd(MethodGlobal, false, 1, 0.2), 0.3, true},
		{"no node under the share", cmd(MethodGlobal, false, 1, 0.2), 0.1, false},
		{"at the share exactly", cmd(MethodGlobal, false, 1, 0.3), 0.3, false},
		{"one node", cmd(MethodGlobal, false, 0.01), 0.8, false},
		{"with a replacement", cmd(MethodGlobal, true, 1, 0.1), 0.3, false},
		{"Karpenter's method", cmd(MethodMultiNode, false, 1, 0.1), 0.3, false},
	} {
		r := Result{Commands: []Command{cmd(MethodGlobal, false, 1, 1), tc.cmd}}
		if got := defers(r, tc.share); got != tc.want {
			t.Errorf("%s: defers = %v, want %v", tc.name, got, tc.want)
		}
	}
}
