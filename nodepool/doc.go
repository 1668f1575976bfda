// Package nodepool is the administrator's layer of nodeplan's three layers of
// constraints. It decodes Karpenter NodePools (karpenter.sh/v1, and the older
// v1beta1), validates them as Karpenter's admission would, and turns each into
// a [Template]: the requirements, labels, taints, limits and weight every
// NodeClaim of the pool starts from. It also answers which DaemonSets would run
// on a pool's nodes, and what their pods add to every node (DaemonSet overhead),
// and holds the rules the solver and the plan checker share about nodes: host
// ports, an existing node's effective taints, and the limits check.
//
// One phase per file:
//
//	decode.go, v1beta1.go  bytes → NodePool (Decode, DecodeAll), strict
//	validate.go            NodePool → field errors (Validate)
//	template.go            NodePool → Template (NewTemplate, Templates, Order)
//	limits.go              limits on node capacity (Usage, Remaining, Exceeded, FitsLimits)
//	daemonset.go           DaemonSet → overhead per template and instance type
//	hostports.go           the host ports a pod holds, and which clash
//	node.go                an existing node: initialised, effective taints, labels
//
// Every error about a NodePool names it and the field: `nodepool "gpu":
// spec.template.spec.requirements[0].operator: Unsupported value: ...`.
//
// Flow: nodepool sits on requirements (and internal/podrequests); binpack and
// scheduler consume it. It never chooses instance types, reads files or keeps
// state: every function is pure, and no value shares memory with its inputs.
package nodepool
