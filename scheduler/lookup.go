package scheduler

import (
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/internal/kube"
)

// PodPlacement is where one pending pod of a plan goes: a new NodeClaim, an
// existing node, or nowhere with a reason. Exactly one of NodeClaim, Node
// and Error is set. NodeClaim and Error point into the Result they come
// from (shared: do not modify them).
type PodPlacement struct {
	// Pod is "namespace/name".
	Pod string
	// NodeClaim is the new NodeClaim the pod goes to.
	NodeClaim *NodeClaim
	// Node is the existing node the pod goes to.
	Node string
	// Error says why the pod was not placed.
	Error *PodError
}

// Placed reports whether the pod goes to a new NodeClaim or an existing node.
func (p PodPlacement) Placed() bool { return p.NodeClaim != nil || p.Node != "" }

// Pod returns where the pending pod named name goes: name is
// "namespace/name", or a bare name for a pod of namespace "default". false
// when the plan does not hold the pod (it was not a pending pod of the
// solve). The lookup scans the plan, O(pods): to look up
// every pod of a large plan, range over NodeClaims, ExistingNodes and
// PodErrors instead.
func (r Result) Pod(name string) (PodPlacement, bool) {
	if !strings.Contains(name, "/") {
		name = kube.Key("", name)
	}
	for i := range r.NodeClaims {
		if slices.Contains(r.NodeClaims[i].Pods, name) {
			return PodPlacement{Pod: name, NodeClaim: &r.NodeClaims[i]}, true
		}
	}
	for _, n := range r.ExistingNodes {
		if slices.Contains(n.Pods, name) {
			return PodPlacement{Pod: name, Node: n.Name}, true
		}
	}
	for i := range r.PodErrors {
		if r.PodErrors[i].Pod == name {
			return PodPlacement{Pod: name, Error: &r.PodErrors[i]}, true
		}
	}
	return PodPlacement{}, false
}

// NodeClaim returns the NodeClaim named name ("<nodepool>-<n>"), shared
// with the Result.
func (r Result) NodeClaim(name string) (*NodeClaim, bool) {
	for i := range r.NodeClaims {
		if r.NodeClaims[i].Name == name {
			return &r.NodeClaims[i], true
		}
	}
	return nil, false
}
