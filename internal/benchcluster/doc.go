// Package benchcluster generates running clusters for the consolidation
// benchmarks and quality tests: the aws-mixed workload of
// internal/benchdata planned by scheduler.Solve on the built-in AWS catalog,
// launched as running nodes (disruption.Launch; without the workload's
// "reserved" NodePool), then scaled down by a fraction of its pods, with PodDisruptionBudgets, do-not-disrupt pods,
// bound volumes and a few drifted nodes. Everything is drawn from a seed:
// the same arguments give the same cluster.
//
// It is only imported by tests and benchmarks.
package benchcluster
