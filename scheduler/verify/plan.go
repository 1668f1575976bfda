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
// (sorted by rule, NodePool, NodeClaim, node, pod, message) when it does
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

// Rule names one family of constraints a plan must hold (see Plan).
type Rule string

// The rules Plan checks.
const (
	RuleAccounting            Rule = "Accounting"
	RuleSummary               Rule = "Summary"
	RuleNodePool              Rule = "NodePool"
	RuleInstanceTypeOptions   Rule = "InstanceTypeOptions"
	RuleNodeClaimRequirements Rule = "NodeClaimRequirements"
	RuleOffering              Rule = "Offering"
	RuleFit                   Rule = "Fit"
	RuleRequests              Rule = "Requests"
	RuleLabels                Rule = "Labels"
	RuleTaints                Rule = "Taints"
	RulePodRequirements       Rule = "PodRequirements"
	RuleToleration            Rule = "Toleration"
	RuleExistingNode          Rule = "ExistingNode"
	RuleVolumeTopology        Rule = "VolumeTopology"
	RuleHostPort              Rule = "HostPort"
	RuleLimits                Rule = "Limits"
	RuleReservation           Rule = "Reservation"
	RuleMinValues             Rule = "MinValues"
	RuleTopologySpread        Rule = "TopologySpread"
	RulePodAffinity           Rule = "PodAffinity"
	RulePodAntiAffinity       Rule = "PodAntiAffinity"
	RuleTopologyDomain        Rule = "TopologyDomain"
)

// Violation is one broken constraint of a plan. Pod, NodeClaim, Node and
// NodePool name what it is about ("" when not about one).
type Violation struct {
	Rule      Rule   `json:"rule"`
	Pod       string `json:"pod,omitempty"`
	NodeClaim string `json:"nodeClaim,omitempty"`
	Node      string `json:"node,omitempty"`
	NodePool  string `json:"nodePool,omitempty"`
	Message   string `json:"message"`
}

// String renders the violation on one line: `Rule [nodeclaim X] [node Y]
// [pod Z]: message`.
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(string(v.Rule))
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
	return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.NodeClaim, b.NodeClaim),
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

// Rules returns the distinct rules violated, sorted.
func (e *Error) Rules() []Rule {
	var out []Rule
	for _, v := range e.Violations {
		out = append(out, v.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Has reports whether some violation breaks rule.
func (e *Error) Has(rule Rule) bool {
	return slices.ContainsFunc(e.Violations, func(v Violation) bool { return v.Rule == rule })
}
