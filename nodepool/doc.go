// Package nodepool is the administrator's layer of nodeplan's three layers of
// constraints. It decodes Karpenter NodePools (karpenter.sh/v1, and the older
// v1beta1), validates them as Karpenter's admission would, and turns each into
// a [Template]: the requirements, labels, taints, limits and weight every
// NodeClaim of the pool starts from. It also answers which DaemonSets would run
// on a pool's nodes, and what their pods add to every node (DaemonSet overhead).
//
// Flow: nodepool sits on requirements; binpack and scheduler consume it. It
// never chooses instance types.
package nodepool
