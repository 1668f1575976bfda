// Package compare runs the differential check: for each seed it generates a
// scenario (package gen), solves it with nodeplan (in process, as `nodeplan
// solve` does with its default options, or with a nodeplan binary) and with
// Karpenter (package karp, in a child process of karpdiff so that each
// scenario's label vocabulary and any crash stay its own), checks both plans
// with kube-scheduler's filters (package kubecheck) and classifies the
// scenario:
//
//   - refused: some pod of nodeplan's plan would not bind where the plan puts
//     it (or the plan has document errors);
//   - fewer: fewer of nodeplan's placed pods bind than of Karpenter's;
//     fewer-order-only marks a fewer scenario where Karpenter's plan binds
//     its extra pods only in a favourable order (kubecheck's OrderBound:
//     nodeplan binds at least as many as remain without them);
//   - nodeplan-order: some pod of nodeplan's plan binds only in a
//     favourable order;
//   - costlier: as many bind, and nodeplan's plan costs more than
//     Karpenter's by more than 0.01%; costlier-order-only marks one where
//     some of Karpenter's pods bind only in a favourable order and nodeplan
//     binds more of those that bind in any order (the same pods, counted
//     robustly, are more for nodeplan);
//   - more, cheaper, same: nodeplan wins or ties.
//
// It also counts Karpenter's own refused plans, crashes and errors, and the
// time each side takes. Scenarios run in parallel; results are reported in
// seed order.
package compare
