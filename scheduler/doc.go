// Package scheduler is nodeplan's front door: Solve places pending pods on
// existing nodes and on NodeClaims it plans, the way Karpenter's provisioning
// scheduler does, and returns the plan with a reason for every pod it could
// not place. Resolve reads what a list of options says: the public reading
// the plan checker, package scheduler/verify, is built on. ReasonCode is
// the one vocabulary of constraints that pod errors and the checker's
// violations share (docs/REASONS.md).
//
// Solve is a pure function of its arguments: no clients, no clock, no
// logging, no global state. The same input gives the same Result.
//
// What Solve derives from the catalog alone (its index of instance types)
// is a PreparedCatalog. Solve prepares one per call and keeps nothing; a
// caller that solves many times on one catalog calls Prepare once and
// passes the result to every Solve with WithPrepared. A PreparedCatalog is
// immutable, so concurrent Solves may share it. Likewise a caller that
// solves many times over mostly the same node and pod objects passes one
// Memo (NewMemo) to every Solve with WithMemo: what Solve derives from each
// node and bound pod is then derived once. Within one Solve, the plans it
// compares prepare the NodePools, existing nodes and volumes once.
//
// Flow: scheduler uses requirements, instancetypes, nodepool, topology and
// binpack; cmd/, scheduler/verify, scheduler/plantest, scheduler/manifest
// and examples import it.
package scheduler
