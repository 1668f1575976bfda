// Package scenario loads a scenario folder (the manifests nodeplan's command
// line reads, see the repository's testdata and cmd/nodeplan) together with
// its instance-type catalog, into the values both solvers and the
// kube-scheduler check start from.
//
// It reads files the way `nodeplan solve -f DIR` does (every *.yaml, *.yml
// and *.json file of the folder, gzipped or not, in name order), decodes
// them with the library's own manifest reader, and applies the defaulting
// the API server would apply to stored pods (requests from limits), so the
// three consumers (nodeplan, Karpenter, the check) see the same objects.
//
// Flow: scenario sits before karp (Karpenter's solve), kubecheck (the
// independent check) and compare; it makes no scheduling decision.
package scenario
