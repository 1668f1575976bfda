// Package disruption plans what Karpenter's disruption controller does with
// a running cluster: which nodes to delete or replace, with what, in which
// order, what it saves, and why every other node stays.
//
// Plan takes the cluster as it runs (nodes, their NodeClaims, bound and
// pending pods, PodDisruptionBudgets, DaemonSets, volumes), the NodePools,
// the instance-type catalog and the time now, and returns the commands, a
// typed reason for every node kept, and the totals. It is pure: no clock,
// no client, no global state; the same input gives the same Result.
//
// The default search is Karpenter's, faithfully (SearchKarpenter): the
// candidates and every exclusion rule, the methods in Karpenter's order
// (Emptiness, StaticDrift, Drift, multi-node and single-node
// consolidation, with Expiration first), budgets, consolidateAfter,
// replacement rules and the Balanced score. SearchGlobal searches better
// under the same safety rules. docs/disruption-behaviours.md explains the
// rule and behaviour IDs (D-0xx, D-1xx) the code and tests cite.
//
// The simulation that proves moved pods fit is scheduler.Solve over the
// remaining nodes, through its public API; a command's plan passes
// verify.Plan (the property tests check every command).
//
// Files, one phase each:
//
//	cluster.go      the input: Cluster, NodeClaim
//	model.go        the cluster as the plan goes, built and checked
//	pool.go         NodePools' disruption settings
//	pods.go         pod facts: reschedulable, evictable, do-not-disrupt, eviction cost
//	pdb.go          PodDisruptionBudgets
//	budget.go       disruption budgets; cron.go their schedules
//	drift.go        drift computed, expiry
//	candidate.go    the exclusion rules (D-001 to D-020)
//	simulate.go     the scheduling simulation (B.2)
//	consolidation.go, replace.go, offer.go   the replacement rules (B.3, B.4)
//	methods.go      Emptiness, Drift, multi- and single-node consolidation
//	staticdrift.go, expiration.go, balanced.go
//	global.go       SearchGlobal; surplus.go the order its subsets start from
//	apply.go, launch.go   carrying a command out on the model
//	explain.go      why each node stays
//	plan.go         the front door and the loop
//
// Flow: disruption builds on scheduler (Solve), nodepool,
// instancetypes and requirements; only cmd/ and examples import it.
package disruption
