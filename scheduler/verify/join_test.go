package verify

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// TestSolveBindsWhateverOrderNodesJoin: generated seed 59191 of
// tools/karpdiff. Seven Job pods spread with maxSkew 1 on zone and on an
// instance-family label (nodeAffinityPolicy Ignore), whose existing nodes
// give zones rz-1b, rz-1c and families fa3, fd3 before any NodeClaim's node
// joins. Solve's plan binds in kube-scheduler's queue order, but when its
// NodeClaims' nodes join the last first, a pod in rz-1c (family fb3) waits
// for a pod of family fa3, and that pod (zone rz-1b) for one in rz-1c: five
// stay pending. verify.Solve solves it again with the spread pods' domains
// kept, a plan that binds in that order too, with as many pods.
func TestSolveBindsWhateverOrderNodesJoin(t *testing.T) {
	in, cat, opts := loadJoinOrder(t)

	first, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, Plan(in.Pods, in.NodePools, cat, first, opts...))
	if len(joinLeft(in.Pods, in.NodePools, cat, first, opts)) == 0 {
		t.Log("scheduler.Solve's plan binds whatever order its nodes join in: the repair is not exercised by this input")
	}

	res, err := Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Empty(t, joinLeft(in.Pods, in.NodePools, cat, res, opts))
	require.GreaterOrEqual(t, res.Summary.Scheduled, first.Summary.Scheduled)
	require.Equal(t, 50, res.Summary.Scheduled)
}

// TestJoinLeftNamesPendingPods: the join-order check on the plan Solve
// made of seed 59191 before verify.Solve repaired it (plan.json, the
// command line's JSON). It passes Plan: in kube-scheduler's queue order,
// with every node there, all 50 pods bind. With the NodeClaims' nodes
// joining the last first, five of the seven pods with the zone and family
// spreads stay pending; solved with their domains kept, none does.
func TestJoinLeftNamesPendingPods(t *testing.T) {
	in, cat, opts := loadJoinOrder(t)
	raw, err := os.ReadFile("../../testdata/verify/join-order/plan.json")
	require.NoError(t, err)
	var plan scheduler.Result
	require.NoError(t, json.Unmarshal(raw, &plan))
	require.NoError(t, Plan(in.Pods, in.NodePools, cat, plan, opts...))
	left := joinLeft(in.Pods, in.NodePools, cat, plan, opts)
	slices.Sort(left)
	require.Equal(t, []string{"default/g4-0", "default/g4-3", "default/g4-4", "default/g4-5", "default/g4-6"}, left)

	repaired, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(opts, scheduler.WithSpreadDomainsKept())...)
	require.NoError(t, err)
	require.NoError(t, Plan(in.Pods, in.NodePools, cat, repaired, opts...))
	require.Empty(t, joinLeft(in.Pods, in.NodePools, cat, repaired, opts))
}

// loadJoinOrder loads testdata/verify/join-order (generated seed 59191).
func loadJoinOrder(t *testing.T) (manifest.Input, instancetypes.Catalog, []scheduler.Option) {
	t.Helper()
	in, err := manifest.Load("../../testdata/verify/join-order/manifests.yaml")
	require.NoError(t, err)
	cat, err := manifest.LoadCatalog("../../testdata/verify/join-order/catalog.json")
	require.NoError(t, err)
	return in, cat, in.Options()
}
