// Package plan holds nodeplan's plan JSON (the `-o json` output of
// `nodeplan solve`, see cmd/nodeplan): NodeClaims with their offering and
// pods, pods placed on existing nodes, unplaced pods and the summary. Both
// solvers' plans are read and written in it, so the kube-scheduler check and
// the comparison treat them alike.
package plan
