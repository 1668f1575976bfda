package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// Plan checks plan against every hard constraint of its input (the rules
// are listed in the package documentation). Call it with the same pods,
// NodePools, catalog and options the plan was made from; a plan read back
// from JSON verifies too. The options are read with scheduler.Resolve, so
// they are validated exactly as Solve validates them.
//
// It returns nil when the plan holds, a *Error listing every violation
// (sorted by code, NodePool, NodeClaim, node, pod, message) when it does
// not, and any other error for invalid input (a bad option, an invalid
// NodePool, a nil or duplicate pod, a DaemonSet without a name), as Solve
// would. It never modifies its arguments.
func Plan(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, plan scheduler.Result, opts ...scheduler.Option) error {
	v, err := newVerifier(pods, nodePools, catalog, plan, opts)
	if err != nil {
		return err
	}
	v.run()
	if len(v.out) == 0 {
		return nil
	}
	slices.SortStableFunc(v.out, compareViolations)
	return &Error{Violations: slices.CompactFunc(v.out, func(a, b Violation) bool { return a == b })}
}

// Violation is one broken constraint of a plan. Code names the constraint
// in the vocabulary pod errors use (scheduler.ReasonCode); Pod, NodeClaim,
// Node and NodePool name what it is about ("" when not about one).
type Violation struct {
	Code      scheduler.ReasonCode `json:"code"`
	Pod       string               `json:"pod,omitempty"`
	NodeClaim string               `json:"nodeClaim,omitempty"`
	Node      string               `json:"node,omitempty"`
	NodePool  string               `json:"nodePool,omitempty"`
	Message   string               `json:"message"`
}

// String renders the violation on one line: `Code [nodepool P] [nodeclaim
// X] [node Y] [pod Z]: message`.
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(string(v.Code))
	for _, part := range [][2]string{{"nodepool", v.NodePool}, {"nodeclaim", v.NodeClaim}, {"node", v.Node}, {"pod", v.Pod}} {
		if part[1] != "" {
			fmt.Fprintf(&b, " %s %s", part[0], part[1])
		}
	}
	b.WriteString(": ")
	b.WriteString(v.Message)
	return b.String()
}

func compareViolations(a, b Violation) int {
	return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.NodeClaim, b.NodeClaim),
		cmp.Compare(a.Node, b.Node), cmp.Compare(a.Pod, b.Pod), cmp.Compare(a.Message, b.Message))
}

// Error lists every violation Plan found, sorted.
type Error struct {
	Violations []Violation
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan violates %d constraint(s):", len(e.Violations))
	for _, v := range e.Violations {
		b.WriteString("\n  ")
		b.WriteString(v.String())
	}
	return b.String()
}

// Codes returns the distinct codes of the constraints violated, sorted.
func (e *Error) Codes() []scheduler.ReasonCode {
	var out []scheduler.ReasonCode
	for _, v := range e.Violations {
		out = append(out, v.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Has reports whether some violation has code.
func (e *Error) Has(code scheduler.ReasonCode) bool {
	return slices.ContainsFunc(e.Violations, func(v Violation) bool { return v.Code == code })
}
