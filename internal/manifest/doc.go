// Package manifest reads the Kubernetes manifests of the command line's input
// (docs/SCENARIO.md) into the values scheduler.Solve takes: pending
// pods, pods already bound to nodes, nodes, NodePools, DaemonSets, volumes,
// storage classes and namespaces.
//
// It owns the input format: multi-document YAML and JSON, `kind: List`,
// expansion of workloads (Deployment, ReplicaSet, StatefulSet, Job) into the
// pods their controllers would create, defaults (namespace "default"), and
// input errors that name the file, the document, the object and the field.
// It is pure: it takes bytes and never opens a file; cmd/nodeplan reads the
// files and passes them in.
//
// Leniency: a document of an unknown kind, or without kind, is skipped with
// a warning; so is an unknown field in a core kind (kubectl accepts those).
// A well-known kind under an unexpected apiVersion (the common
// "apiVersion: v1, kind: Deployment" slip) is decoded by its kind, with a
// warning. What cannot be decoded (YAML syntax, a quantity that does not
// parse, a missing name, an invalid NodePool, an unknown field in a
// NodePool) is an error, and so is what the API server would reject in the
// fields scheduling reads (internal/apicheck: label keys and values,
// selector operators and values, Gt/Lt with one integer, taint effects,
// negative quantities, negative replicas). Rules that are Karpenter's
// rather than the API server's (restricted labels) are left to the solver,
// which reports such a pod as unplaced.
//
// Flow: manifest sits between the files cmd/nodeplan reads and
// scheduler.Solve; it makes no scheduling decision.
package manifest
