// Package manifest reads the Kubernetes manifests of a scenario into what
// scheduler.Solve takes, exactly as the nodeplan command line does: a team can
// plan, or test, its own YAML from Go.
//
// It reads multi-document YAML and JSON (and `kind: List`), gzipped or not;
// it expands Deployments, ReplicaSets, StatefulSets and Jobs into the pods
// their controllers would create; it keeps pods bound to nodes, Nodes,
// DaemonSets, volumes, storage classes, namespaces and NodePools as cluster
// state; and it rejects what the API server would reject, with errors that
// name the file, the document, the object and the field. The input format is
// described in docs/SCENARIO.md.
//
//	in, err := manifest.Load("testdata/examples/gpu-taint")
//	...
//	res, err := scheduler.Solve(in.Pods, in.NodePools, catalog, in.Options()...)
//
// [Decode] takes bytes and never opens a file; [Load], [ReadFiles] and
// [LoadCatalog] read files and folders (the one place of the library that
// does, for tests and tools). [LoadCatalog] reads an instance-type catalog
// file (docs/CATALOG.md) with the label vocabulary of the provider it names.
//
// Flow: manifest sits beside scheduler: it turns files into the arguments of
// scheduler.Solve and makes no scheduling decision.
package manifest
