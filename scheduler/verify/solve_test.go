package verify_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TestSolveLeavesOutPodsThatWouldNotBind: on generated seed 11759 (a
// spread of maxSkew 2 over the catalog label family) the planner's
// incremental counts let its last moves end with arm 13 against x86 9, and
// kube-scheduler leaves pods pending on their nodes. verify.Solve solves
// again without the pod last in queue order of each violation until the
// plan passes: every pod is accounted for once, the pods left out carry
// the violation as their reason, and no more are left out than needed (70
// bind, as many as Karpenter's plan binds).
func TestSolveLeavesOutPodsThatWouldNotBind(t *testing.T) {
	in, cat, opts := loadCase(t, "solve-repair")

	first, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	if verify.Plan(in.Pods, in.NodePools, cat, first, opts...) == nil {
		t.Log("scheduler.Solve's plan passes now: the repair is not exercised by this input")
	}

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, first.Summary.Pods, res.Summary.Pods)
	seen := map[string]int{}
	for _, nc := range res.NodeClaims {
		for _, p := range nc.Pods {
			seen[p]++
		}
	}
	for _, e := range res.PodErrors {
		seen[e.Pod]++
		require.NotEmpty(t, e.Reason, e.Pod)
		require.NotEmpty(t, e.Code, e.Pod)
	}
	require.Len(t, seen, res.Summary.Pods)
	for p, n := range seen {
		require.Equal(t, 1, n, p)
	}
	require.GreaterOrEqual(t, res.Summary.Scheduled, 70)
}

// TestSolveKeepsSpreadDomainsWhenOrderFails: seven replicas of g0 (29Gi
// each) spread with maxSkew 1 on zone (minDomains 3) and on capacity type,
// beside batch pods, on an arm catalog of two 16-cpu types (generated seed
// 19321 without its DaemonSets and unplaceable workloads; Karpenter binds
// the 12 pods for $1.92/h). The plan that packs like Karpenter placed g0 as
// z1-spot, z2-od, z3-spot, z2-od, z1-spot, z3-od, z1-spot, every step
// holding; then improvement replanted the lone g0 of a z3 spot claim onto
// the z3 on-demand one. The final counts held (zones 3, 2, 2; spot 3,
// on-demand 4) with every spot replica in az-1, an end no binding order
// reaches, and the checked solve left a replica out (11 pods). Solved
// again with the replicas' domains kept (scheduler.WithSpreadDomainsKept),
// all 12 bind for $1.728/h.
func TestSolveKeepsSpreadDomainsWhenOrderFails(t *testing.T) {
	in, cat, opts := loadCase(t, "spread-domains-kept")
	repairPasses(t, in, cat, opts, scheduler.WithSpreadDomainsKept())

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, 12, res.Summary.Scheduled)
	require.Empty(t, res.PodErrors)
	require.LessOrEqual(t, res.Summary.PricePerHour, 1.728)
}

// TestSolveKeepsSpreadDomainsInTheLastPhase: seven replicas spread with
// maxSkew 1 on zone and on a custom family label (generated seed 35875,
// minimised: two families, fd3's on-demand offerings in zones a and c and
// its spot in b, fe3 cheapest in b). The solve with the replicas' domains
// kept (scheduler.WithSpreadDomainsKept) placed them at zones (2, 3, 2)
// and families (fd3 3, fe3 4), an end the queue order reaches; then the
// last phase, which empties claims into the plan's other nodes, moved the
// lone replica of a zone-b fd3 claim to a zone-c fd3 one. The counts held
// (zones 2, 2, 3), but with every fd3 replica in zone c no order binds
// them, and the checked solve left a replica out (6 of 7, Karpenter 7 of
// 7). The last phase now keeps such pods in their domains too, and all
// seven bind for the same price.
func TestSolveKeepsSpreadDomainsInTheLastPhase(t *testing.T) {
	in, cat, opts := loadCase(t, "spread-domains-kept-emptied")
	repairPasses(t, in, cat, opts, scheduler.WithSpreadDomainsKept())

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, 7, res.Summary.Scheduled)
	require.Empty(t, res.PodErrors)
	require.LessOrEqual(t, res.Summary.PricePerHour, 0.178245+1e-9)
}

// TestSolveTriesNameOrderWhenOrderFails: a random scenario of the
// differential (seed 22483: two NodePools of weight 0, a capacity-type and
// a zone spread) that Solve plans for $0.40/h by giving new claims to the
// cheaper pool of the weight, an end kube-scheduler's queue order does not
// reach. Solved again with the spread domains kept it binds for $0.44/h;
// with Karpenter's order between the pools (scheduler.WithNameOrderOnTies)
// it binds the same 22 pods for $0.42/h, and verify.Solve keeps that one,
// or a plan that binds them for less. (Since a pod others follow on
// hostname may leave a claim none of them is on, the name-order plan fails
// the queue order too, and verify.Solve binds the 22 pods for $0.38/h
// another way; the test then logs that the name order is not exercised.)
func TestSolveTriesNameOrderWhenOrderFails(t *testing.T) {
	in, cat, opts := loadCase(t, "name-order-ties")
	named, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(slices.Clip(opts), scheduler.WithNameOrderOnTies())...)
	require.NoError(t, err)

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, 22, res.Summary.Scheduled)
	if verify.Plan(in.Pods, in.NodePools, cat, named, opts...) == nil {
		require.LessOrEqual(t, res.Summary.PricePerHour, named.Summary.PricePerHour+1e-9)
	} else {
		t.Log("the name-order plan fails too: the name order is not exercised by this input")
	}
	require.LessOrEqual(t, res.Summary.PricePerHour, 0.42+1e-9)
}

// TestSolveReadmitsLeftOutPods: five replicas spread with maxSkew 1 on
// zone and on capacity type, one existing on-demand node in z1 with room
// for four (property case 1125 of the scheduler's tests, minimised).
// scheduler.Solve puts two replicas on the node and three on a z2 spot and
// a z3 on-demand NodeClaim: the final counts hold, but the node's two bind
// first, and then the z3 replica waits for a second spot one (capacity
// type) while the second z2 replica waits for the z3 one (zone). Solved
// again without the last replica in queue order, the node takes one; the
// replica left out then has room on the z3 on-demand NodeClaim, where the
// plan still passes, and all five bind for what the first plan cost.
func TestSolveReadmitsLeftOutPods(t *testing.T) {
	first, res := solveChecked(t, "left-out-readmitted")
	require.Equal(t, 5, res.Summary.Scheduled)
	require.Empty(t, res.PodErrors)
	require.LessOrEqual(t, res.Summary.PricePerHour, first.Summary.PricePerHour+1e-9)
	require.LessOrEqual(t, res.Summary.PriceLowerBound, res.Summary.PricePerHour+1e-9)
}

// TestSolveKeepsTiedSpreadsOffExistingNodes: property case 1125 of the
// scheduler's tests whole (30 pods; 19 replicas spread with maxSkew 1 on
// zone and on capacity type, 7 pods no NodePool can take). scheduler.Solve
// puts three replicas on the existing on-demand node in z1 and no
// NodeClaim in the z3 spot cell: once the node's three bind, z3 grows only
// with on-demand pods, which wait for spot ones, and spot grows only in z2
// (one pod, then it waits for z3) or z1 (which waits for z2 and z3), so 15
// replicas stay pending. Leaving them out one by one placed 8 of the 23;
// solved again with every replica but the first kept off the existing
// nodes, all 23 bind.
func TestSolveKeepsTiedSpreadsOffExistingNodes(t *testing.T) {
	_, res := solveChecked(t, "tied-off-existing")
	require.Equal(t, 23, res.Summary.Scheduled)
	require.Len(t, res.PodErrors, 7)
	for _, e := range res.PodErrors {
		require.Equal(t, scheduler.ReasonUndefinedLabel, e.Code, e.Pod)
	}
	require.LessOrEqual(t, res.Summary.PricePerHour, 86.4+1e-9)
}

// solveChecked loads testdata/verify/<name> and returns scheduler.Solve's
// plan (logging when it passes already: the repair is then not exercised)
// and verify.Solve's, which must pass Plan.
func solveChecked(t *testing.T, name string) (first, res scheduler.Result) {
	t.Helper()
	in, cat, opts := loadCase(t, name)
	first, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	if verify.Plan(in.Pods, in.NodePools, cat, first, opts...) == nil {
		t.Log("scheduler.Solve's plan passes now: the repair is not exercised by this input")
	}
	res, err = verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	return first, res
}

// loadCase reads testdata/verify/<name>: its manifests, catalog and the
// options the manifests give.
// TestSolveWithoutImprovementWhenItBreaksASpread: generated seed 42157
// (its unplaceable g6 Deployment dropped: 251 pods), found by the
// differential. Seventeen g3 pods spread over three zones (maxSkew 1,
// DoNotSchedule); their NodePool's spot types are arm in az-1 and az-2 and
// x86 in az-2 and az-3. Greedy placement ends at 6, 6, 5, and the plan
// passes with the improvement budget cut at 1,094 evaluations; the
// 1,095th put g8's six pods and g3-p14, alone on an x86 claim in az-3,
// together on an arm type in az-1. The zones ended at 7, 6, 4, which no
// binding reaches, and the checked solve left three g3 pods out (248
// placed; Karpenter placed 251 of the seed's 258 for $10.89/h).
// verify.Solve now also solves without the improvement phase when the
// first plan fails, and keeps that plan when it passes placing more: all
// 251 for $9.70/h.
func TestSolveWithoutImprovementWhenItBreaksASpread(t *testing.T) {
	in, cat, opts := loadCase(t, "improve-narrows-claim-zone")
	repairPasses(t, in, cat, opts, scheduler.WithImprovementBudget(0))

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, 251, res.Summary.Scheduled)
	require.Empty(t, res.PodErrors)
	require.LessOrEqual(t, res.Summary.PricePerHour, 9.696+1e-9)
}

func loadCase(t *testing.T, name string) (manifest.Input, instancetypes.Catalog, []scheduler.Option) {
	t.Helper()
	in, err := manifest.Load("../../testdata/verify/" + name + "/manifests.yaml")
	require.NoError(t, err)
	cat, err := manifest.LoadCatalog("../../testdata/verify/" + name + "/catalog.json")
	require.NoError(t, err)
	return in, cat, in.Options()
}

// repairPasses checks that the input solved with the repair option passes
// Plan, and returns that plan (it logs when scheduler.Solve's own plan
// passes already: the repair is then not exercised).
func repairPasses(t *testing.T, in manifest.Input, cat instancetypes.Catalog, opts []scheduler.Option, repair scheduler.Option) scheduler.Result {
	t.Helper()
	first, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	if verify.Plan(in.Pods, in.NodePools, cat, first, opts...) == nil {
		t.Log("scheduler.Solve's plan passes now: the repair is not exercised by this input")
	}
	repaired, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(slices.Clip(opts), repair)...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, repaired, opts...))
	return repaired
}

// TestExistingNodesBindFirst: generated seed 42378 (108 pods, nine of a
// tier=batch Deployment planned on the existing on-demand node, spreads of
// tier=batch on capacity type and zone carried by other workloads). The
// plan stored beside it, the start of stop 34's, binds every pod in
// kube-scheduler's queue order, but the pods planned on an existing node
// bind first (kube-scheduler takes them as soon as they fit, a NodeClaim's
// node joins later), and after them two carriers stay pending: Plan
// reports them. verify.Solve's plan passes with the same 77 pods.
func TestExistingNodesBindFirst(t *testing.T) {
	in, cat, opts := loadCase(t, "existing-first")
	data, err := os.ReadFile("../../testdata/verify/existing-first/queue-order-plan.json")
	require.NoError(t, err)
	var old scheduler.Result
	require.NoError(t, json.Unmarshal(data, &old))
	err = verify.Plan(in.Pods, in.NodePools, cat, old, opts...)
	var ve *verify.Error
	require.ErrorAs(t, err, &ve)
	var pending []string
	for _, v := range ve.Violations {
		require.Equal(t, scheduler.ReasonTopologySpread, v.Code, v.String())
		require.Contains(t, v.Message, "queue order", v.String())
		pending = append(pending, v.Pod)
	}
	require.ElementsMatch(t, []string{"default/g3-8", "default/g5-p8"}, pending)

	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Equal(t, old.Summary.Scheduled, res.Summary.Scheduled)
}

// TestExistingNodesBindEarly: two carriers of a zone spread (maxSkew 2,
// minDomains 2, one zone in the catalog) planned on the existing node
// (scheduler.WithExistingNodesFirst) and
// three workers their selector counts planned on NodeClaims in the same
// zone. The final counts (five in the zone) exceed the skew, but
// kube-scheduler binds the carriers before any NodeClaim's node joins,
// against the existing nodes alone: the plan passes. A carrier moved to a
// NodeClaim binds after the workers, against every count, and fails.
func TestExistingNodesBindEarly(t *testing.T) {
	in, cat, opts := loadCase(t, "existing-early")
	opts = append(opts, scheduler.WithExistingNodesFirst())
	res, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.Equal(t, 5, res.Summary.Scheduled)
	require.Len(t, res.ExistingNodes, 1)
	require.Equal(t, []string{"default/carrier-0", "default/carrier-1"}, res.ExistingNodes[0].Pods)
	require.NoError(t, verify.Plan(in.Pods, in.NodePools, cat, res, opts...))

	moved := res
	moved.ExistingNodes = []scheduler.NodePlacement{{Name: res.ExistingNodes[0].Name, Pods: []string{"default/carrier-0"}}}
	moved.NodeClaims = slices.Clone(res.NodeClaims)
	last := &moved.NodeClaims[len(moved.NodeClaims)-1]
	last.Pods = append(slices.Clone(last.Pods), "default/carrier-1")
	slices.Sort(last.Pods)
	err = verify.Plan(in.Pods, in.NodePools, cat, moved, opts...)
	var ve *verify.Error
	require.ErrorAs(t, err, &ve)
	var spread []string
	for _, v := range ve.Violations {
		if v.Code == scheduler.ReasonTopologySpread {
			spread = append(spread, v.Pod)
		}
	}
	require.Equal(t, []string{"default/carrier-1"}, spread, ve.Error())
}
