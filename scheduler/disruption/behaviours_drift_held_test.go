package disruption_test

import (
	"fmt"
	"testing"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// Behaviours of behaviours_drift_replace_test.go where nodeplan disagreed
// with the spec until the commit that added this file: the reason a
// drifted node held back by the Drifted budget gives, and StaticDrift's
// count against limits.nodes.

// drBudgetKept checks that each node named stays for its pool's budget
// for Drifted, allowing allowed nodes of which disrupting are in flight.
func drBudgetKept(allowed, disrupting int, nodes ...string) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		for _, n := range nodes {
			drBudgetDetails(t, res, n, disruption.ReasonDrifted, allowed, disrupting)
		}
	}
}

// A drifted node held back by the Drifted budget stays for that budget
// (D-022), not for a consolidation rule.
func TestDriftBudgetReasons(t *testing.T) {
	var pk []string
	var inFlight []string
	for p := range 10 {
		pk = append(pk, fmt.Sprintf("p%d-n0", p), fmt.Sprintf("p%d-n1", p))
		inFlight = append(inFlight, fmt.Sprintf("p%d-n2", p))
	}
	never := consolidateAfter("Never")
	drRun(t, []drCase{
		{id: "D-136", name: "three commands in flight: the other drifted nodes stay for the budget", pools: drPartitionPools(),
			build: drPartitioned(3),
			check: drBudgetKept(3, 3, "n03", "n04", "n05", "n06", "n07", "n08", "n09")},
		{id: "D-160", name: "30% of 10 with three in flight: the other drifted nodes stay for the budget", pools: drThirtyPercentPools(),
			build: drThirtyPercent(3), check: drBudgetKept(3, 3, "n03", "n04")},
		{id: "D-161", name: "a command in flight in every pool: the others stay for their pool's budget", pools: drTenPoolsPools(),
			build: drTenPools(inFlight...), check: drBudgetKept(1, 1, pk...)},
		{id: "D-172", name: "static budget 2 with two in flight: the others stay for the budget",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(drDriftedOnly("2")), never)}, build: drStaticNodes("st", 5, 0, 1),
			check: drBudgetKept(2, 2, "st-2", "st-3", "st-4")},
		{id: "D-172", name: "three static pools: st1's second node stays for st1's budget of 1",
			pools: []nodepool.NodePool{drStatic("st1", 4, budgets(drDriftedOnly("1")), never),
				drStatic("st2", 3, budgets(drDriftedOnly("2")), never), drStatic("st3", 2, budgets(drDriftedOnly("100%")), never)},
			build:        drAll(drStaticNodes("st1", 2, 0), drStaticNodes("st2", 2), drStaticNodes("st3", 2)),
			wantCommands: drStaticCommands("st2-0", "st2-1", "st3-0", "st3-1"),
			check:        drBudgetKept(1, 1, "st1-1")},
	})
}

// StaticDrift reserves the replacement under limits.nodes, counting the
// pool's nodes being deleted (Karpenter: active + deleting + pending
// disruption + reserved ≤ limit).
func TestStaticDriftLimits(t *testing.T) {
	never := consolidateAfter("Never")
	drRun(t, []drCase{
		{id: "D-173", name: "limits.nodes 5 already reached by 5 nodes: nothing",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(all()), never, drNodeLimit(5))}, build: drStaticNodes("st", 5),
			wantStay: []string{"st-0", "st-1", "st-2", "st-3", "st-4"}},
		{id: "D-173", name: "limits.nodes 6 with one drift in flight (6 NodeClaims): no second one",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(all()), never, drNodeLimit(6))}, build: drStaticNodes("st", 5, 0),
			wantStay: []string{"st-1", "st-2", "st-3", "st-4"}},
		{id: "D-173", name: "limits.nodes 7 with two drifts in flight (7 NodeClaims): no third one",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(all()), never, drNodeLimit(7))}, build: drStaticNodes("st", 5, 0, 1),
			wantStay: []string{"st-2", "st-3", "st-4"}},
		{id: "D-174", name: "three static pools, the second at its nodes limit: only the first and third drift",
			pools: []nodepool.NodePool{drStatic("np1", 3, budgets(all()), never), drStatic("np2", 2, budgets(all()), never, drNodeLimit(2)),
				drStatic("np3", 2, budgets(all()), never)},
			build:        drAll(drStaticNodes("np1", 2), drStaticNodes("np2", 2), drStaticNodes("np3", 2)),
			wantCommands: drStaticCommands("np1-0", "np1-1", "np3-0", "np3-1"),
			wantStay:     []string{"np2-0", "np2-1"}},
	})
}
