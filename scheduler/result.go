package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Result is a plan: the NodeClaims to launch, the pods placed on existing
// nodes, and a reason for every pod that could not be placed. Every pending
// pod given to Solve appears exactly once: in one NodeClaim's Pods, in one
// existing node's Pods, or in PodErrors. All lists are sorted, so the same
// input gives the same Result.
//
// The JSON form is the plan format of the command line (docs/SCENARIO.md);
// fields tagged "-" are Go-only detail.
type Result struct {
	NodeClaims    []NodeClaim     `json:"nodeClaims"`
	ExistingNodes []NodePlacement `json:"existingNodes"`
	PodErrors     []PodError      `json:"podErrors"`
	Summary       Summary         `json:"summary"`

	// Relaxations lists, per placed pod, the preferences the final plan does
	// not honour (judged on the plan as it ends, relaxations.go), in the
	// order placing drops them; kinds the policy ignores are not judged.
	Relaxations []Relaxation `json:"relaxations"`
	// Preferences reports what honouring preferences cost, when measured.
	Preferences *PreferenceCost `json:"-"`
}

// NodeClaim is one node to launch.
type NodeClaim struct {
	// Name is "<nodepool>-<n>", numbered within this plan.
	Name     string `json:"name"`
	NodePool string `json:"nodePool"`
	// InstanceType, Zone, CapacityType and Price are the cheapest available
	// offering that satisfies Requirements among InstanceTypeOptions.
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	// InstanceTypeOptions lists every instance type that fits the NodeClaim's
	// pods and requirements, cheapest first (ties by name), capped at the
	// configured maximum.
	InstanceTypeOptions []string `json:"instanceTypeOptions"`
	// Labels are the labels the node will carry that the plan decides: the
	// NodePool's template labels, the NodePool name, and a value for every
	// single-valued requirement (custom keys resolved from Exists/NotIn).
	Labels map[string]string `json:"labels"`
	// Taints are the NodePool's taints; StartupTaints its startup taints.
	Taints        []corev1.Taint `json:"taints,omitempty"`
	StartupTaints []corev1.Taint `json:"startupTaints,omitempty"`
	// Requirements is the NodeClaim's requirement set as node-selector
	// expressions, instance-type options included.
	Requirements []requirements.Expression `json:"requirements"`
	// Requests is the sum of the pods' requests plus DaemonSet overhead.
	Requests corev1.ResourceList `json:"requests"`
	// Pods are "namespace/name", sorted.
	Pods []string `json:"pods"`

	// ZoneID and ReservationID describe the chosen offering further.
	ZoneID        string `json:"-"`
	ReservationID string `json:"-"`
	// MinValuesRelaxed is set when BestEffort lowered a minValues.
	MinValuesRelaxed bool `json:"-"`
}

// NodePlacement lists the pending pods placed on one existing node.
type NodePlacement struct {
	Name string   `json:"name"`
	Pods []string `json:"pods"`
}

// PodError says why one pod could not be placed.
type PodError struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
	// Code is a stable, machine-readable cause; Details carries the numbers
	// and names behind Reason, one cause per candidate that refused the pod.
	Code    ReasonCode `json:"code"`
	Details []Cause    `json:"causes"`
}

// Summary totals the plan.
type Summary struct {
	Pods            int     `json:"pods"`
	Scheduled       int     `json:"scheduled"`
	NodeClaims      int     `json:"nodeClaims"`
	PricePerHour    float64 `json:"pricePerHour"`
	PriceLowerBound float64 `json:"priceLowerBound"`
}

// Relaxation records the preferences dropped to place one pod.
type Relaxation struct {
	Pod     string   `json:"pod"`
	Dropped []string `json:"dropped"`
}

// PreferenceCost compares the plan with the plan that ignores preferences.
type PreferenceCost struct {
	ExtraNodeClaims int     `json:"extraNodeClaims"`
	ExtraPerHour    float64 `json:"extraPricePerHour"`
}

// Cause is one reason a candidate (a NodePool, an existing node) refused a
// pod, with what was asked and what was on offer.
type Cause struct {
	Code ReasonCode `json:"code"`
	// NodePool or Node names the candidate ("" when the cause is the pod's own).
	NodePool string `json:"nodePool,omitempty"`
	Node     string `json:"node,omitempty"`
	// Key is the label key or resource name at fault.
	Key     string `json:"key,omitempty"`
	Asked   string `json:"asked,omitempty"`
	Offered string `json:"offered,omitempty"`
	Message string `json:"message"`
}
