// Package karp drives Karpenter v1.14.1's provisioning scheduler offline on a
// scenario, the way its Provisioner does before Solve: NodePools ordered by
// weight become templates, the catalog becomes cloudprovider.InstanceTypes
// (requirements from labels and offerings, offerings with zone,
// capacity-type and reservation requirements, price, availability,
// capacity, overhead), existing Nodes and their bound pods enter a
// state.Cluster over a controller-runtime fake client, DaemonSets give
// daemon pods, PVCs/PVs/StorageClasses give volume topology, and nothing is
// in flight. The result is rendered as nodeplan's plan JSON.
//
// Karpenter keeps its label vocabulary in package-level variables
// (v1.WellKnownLabels and friends) that a cloud provider extends at start-up.
// Vocabulary registers the catalog's keys there for the run; it changes
// process-wide state, so one process solves scenarios of one vocabulary
// (the compare command runs each Karpenter solve in its own process).
package karp
