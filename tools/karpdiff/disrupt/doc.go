// Package disrupt checks nodeplan's Karpenter-faithful consolidation
// (scheduler/disruption with SearchKarpenter) against Karpenter v1.14.1's
// own disruption code on the same running cluster.
//
// Karpenter computes its first command with its real code: the nodeclaim
// disruption controller sets the Drifted and Consolidatable conditions, and
// the disruption controller's methods (Emptiness, StaticDrift, Drift,
// MultiNodeConsolidation, SingleNodeConsolidation) run in its order on the
// candidates GetCandidatesWithTotals returns and the budgets
// BuildDisruptionBudgetMapping computes, simulating with its provisioner
// and scheduler. The world is offline: a controller-runtime fake client, a
// state.Cluster filled directly, a fake clock stopped at the plan's now, a
// cloud provider backed by the catalog (karp.InstanceTypes), PDB statuses
// computed as kube-controller-manager would. Only the validators' 15-second
// wait (and re-check of an unchanged cluster) is skipped.
//
// nodeplan's next command is `nodeplan consolidate --next` without
// expirations (Karpenter's expiration controller deletes an expired
// NodeClaim outside the disruption loop). Compare classifies it against
// Karpenter's: Same, Tie (Karpenter's order leaves the choice between equal
// candidates to chance: its candidate list comes from a map, its sort is
// not stable, single-node consolidation interleaves NodePools in map order;
// Check therefore runs Karpenter a few times), Packs (nodeplan's Solve
// places pods on the remaining nodes that Karpenter's first-fit simulation
// does not: a better packing, not another rule), SameNodes, Differ. Follow
// walks a whole plan, applying nodeplan's commands with disruption.Apply.
package disrupt
