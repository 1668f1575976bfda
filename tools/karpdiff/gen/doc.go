// Package gen writes random scenarios for the differential check: a
// scenario.yaml (NodePools, existing Nodes with running pods, DaemonSets,
// workloads, volumes) and a catalog.json, both a pure function of a seed.
//
// Catalogs come from nine families: Karpenter's fake.InstanceTypes(400)
// shape (or its first types), Karpenter's test catalog K, tiny catalogs of
// two to four types where merging matters, synthetic families with custom
// labels (family, size), spot in some zones only and unavailable offerings,
// GPU and extended-resource types, mixed arm64/amd64 types with pod caps,
// capacity reservations, and slices of nodeplan's built-in AWS us-east-1
// catalog (random types, or whole families). Scenarios mix every kind of
// constraint both solvers model: resource shapes (init containers,
// sidecars, pod overhead, limits only), nodeSelector, required and
// preferred node affinity with OR'd terms and every operator, tolerations
// of tainted NodePools, topology spread on zone, hostname, capacity type
// and custom keys (maxSkew, minDomains, both whenUnsatisfiable values,
// node inclusion policies, matchLabelKeys), pod affinity and anti-affinity
// (required and preferred, hostname and zone), host ports, PVCs bound to
// zonal PVs or provisioned by zonal StorageClasses, existing nodes (some
// tainted, some full) with running pods, DaemonSets, several NodePools with
// weights, limits, template labels and taints, startup taints and minValues.
//
// Determinism: one math/rand/v2 PCG source per scenario, seeded by the
// scenario's seed; no map order reaches a choice; the YAML is written with
// sorted keys.
package gen
