// Package scheduler is nodeplan's front door: Solve places pending pods on
// existing nodes and on NodeClaims it plans, the way Karpenter's provisioning
// scheduler does, and returns the plan with a reason for every pod it could
// not place. Verify checks any plan against every constraint, independently
// of how the plan was made.
//
// Solve is a pure function of its arguments: no clients, no clock, no
// logging, no global state. The same input gives the same Result.
//
// Flow: scheduler uses requirements, instancetypes, nodepool, topology and
// binpack; only cmd/ and examples import it.
package scheduler
