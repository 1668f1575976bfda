package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
)

// Plan is a plan in nodeplan's JSON format.
type Plan struct {
	NodeClaims    []NodeClaim `json:"nodeClaims"`
	ExistingNodes []Placement `json:"existingNodes"`
	PodErrors     []PodError  `json:"podErrors"`
	Summary       Summary     `json:"summary"`
}

// NodeClaim is one node to launch.
type NodeClaim struct {
	Name                string              `json:"name"`
	NodePool            string              `json:"nodePool"`
	InstanceType        string              `json:"instanceType"`
	Zone                string              `json:"zone"`
	CapacityType        string              `json:"capacityType"`
	Price               float64             `json:"price"`
	InstanceTypeOptions []string            `json:"instanceTypeOptions"`
	Labels              map[string]string   `json:"labels"`
	Taints              []corev1.Taint      `json:"taints,omitempty"`
	StartupTaints       []corev1.Taint      `json:"startupTaints,omitempty"`
	Requirements        []Expression        `json:"requirements"`
	Requests            corev1.ResourceList `json:"requests"`
	Pods                []string            `json:"pods"`
}

// Expression is one node-selector requirement of a NodeClaim.
type Expression struct {
	Key       string   `json:"key"`
	Operator  string   `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues int      `json:"minValues,omitempty"`
}

// Placement lists the pending pods a plan puts on an existing node.
type Placement struct {
	Name string   `json:"name"`
	Pods []string `json:"pods"`
}

// PodError is a pod the plan leaves unplaced, with the solver's reason.
type PodError struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

// Summary totals a plan.
type Summary struct {
	Pods            int     `json:"pods"`
	Scheduled       int     `json:"scheduled"`
	NodeClaims      int     `json:"nodeClaims"`
	PricePerHour    float64 `json:"pricePerHour"`
	PriceLowerBound float64 `json:"priceLowerBound"`
}

// Read reads a plan file.
func Read(name string) (Plan, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return Plan{}, err
	}
	return Decode(data)
}

// Decode parses plan JSON; unknown fields are ignored (a newer nodeplan may
// add some).
func Decode(data []byte) (Plan, error) {
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return Plan{}, fmt.Errorf("decoding the plan: %w", err)
	}
	return p, nil
}

// Encode renders a plan as nodeplan does: two-space indent, no HTML
// escaping, empty lists as [] and empty maps as {}.
func Encode(p Plan) ([]byte, error) {
	p = normalize(p)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("encoding the plan: %w", err)
	}
	return buf.Bytes(), nil
}

func normalize(p Plan) Plan {
	out := p
	out.NodeClaims = make([]NodeClaim, len(p.NodeClaims))
	for i, nc := range p.NodeClaims {
		nc.InstanceTypeOptions = orEmpty(nc.InstanceTypeOptions)
		nc.Requirements = orEmpty(nc.Requirements)
		nc.Pods = orEmpty(nc.Pods)
		if nc.Labels == nil {
			nc.Labels = map[string]string{}
		}
		if nc.Requests == nil {
			nc.Requests = corev1.ResourceList{}
		}
		out.NodeClaims[i] = nc
	}
	out.ExistingNodes = make([]Placement, len(p.ExistingNodes))
	for i, n := range p.ExistingNodes {
		n.Pods = orEmpty(n.Pods)
		out.ExistingNodes[i] = n
	}
	out.PodErrors = orEmpty(p.PodErrors)
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Placed returns the number of pods the plan places (on NodeClaims and
// existing nodes).
func (p Plan) Placed() int {
	n := 0
	for _, nc := range p.NodeClaims {
		n += len(nc.Pods)
	}
	for _, e := range p.ExistingNodes {
		n += len(e.Pods)
	}
	return n
}

// Price returns the sum of the NodeClaims' prices, in plan order.
func (p Plan) Price() float64 {
	sum := 0.0
	for _, nc := range p.NodeClaims {
		sum += nc.Price
	}
	return sum
}
