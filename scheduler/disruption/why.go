package disruption

import (
	"fmt"
	"strings"
	"time"
)

// KeepReason is why a node stays: the rule of Karpenter's disruption spec
// that excluded it (docs/disruption-behaviours.md gives the D-0xx rules), or
// what the simulation found when it tried to remove it.
type KeepReason string

// The reasons a node stays, in the order the rules are checked.
const (
	KeepUnmanaged        KeepReason = "Unmanaged"             // D-002: no NodeClaim, no karpenter.sh/nodepool label
	KeepNotInitialized   KeepReason = "NotInitialized"        // D-004
	KeepDeleting         KeepReason = "Deleting"              // D-005
	KeepDoNotDisrupt     KeepReason = "DoNotDisrupt"          // D-007: the node or NodeClaim annotation
	KeepNodePoolNotFound KeepReason = "NodePoolNotFound"      // D-008, D-009
	KeepPodDoNotDisrupt  KeepReason = "PodDoNotDisrupt"       // D-010
	KeepPDB              KeepReason = "PodDisruptionBudget"   // D-011
	KeepStatic           KeepReason = "StaticNodePool"        // D-013
	KeepDisabled         KeepReason = "ConsolidationDisabled" // D-014: consolidateAfter Never
	KeepConsolidateAfter KeepReason = "ConsolidateAfter"      // D-015
	KeepUnknownPrice     KeepReason = "UnknownPrice"          // D-018
	KeepWhenEmpty        KeepReason = "WhenEmpty"             // D-020
	KeepBudget           KeepReason = "Budget"                // D-022
	KeepPodsDoNotFit     KeepReason = "PodsDoNotFit"          // D-023
	KeepUninitializedDst KeepReason = "UninitializedDestination"
	KeepTooManyNodes     KeepReason = "MultipleNodeClaims" // D-027
	KeepNoCheaper        KeepReason = "NoCheaperReplacement"
	KeepSpotToSpot       KeepReason = "SpotToSpot"    // D-029
	KeepBalanced         KeepReason = "BalancedScore" // B.10
	KeepMinSavings       KeepReason = "BelowMinSavings"
	KeepNoUndo           KeepReason = "ChangedByEarlierCommand"
	KeepLater            KeepReason = "LaterCommand"
	KeepBlockedDrain     KeepReason = "DrainBlocked"
)

// Details are the numbers behind a KeepReason; only the fields the reason
// uses are set.
type Details struct {
	// Pod is the pod at fault ("namespace/name").
	Pod string `json:"pod,omitempty"`
	// PodDisruptionBudgets are the budgets that match Pod; Allowed is what
	// the one PDB allows.
	PodDisruptionBudgets []string `json:"podDisruptionBudgets,omitempty"`
	// Until is when a time-bound protection ends (do-not-disrupt with a
	// duration, consolidateAfter); TimeLeft is Until minus now.
	Until    *time.Time `json:"until,omitempty"`
	TimeLeft string     `json:"timeLeft,omitempty"`
	// Zone is the zone Pod's required zone spread keeps it in: it fits
	// other nodes, none of them there.
	Zone string `json:"zone,omitempty"`
	// Label is the label a node lacks.
	Label string `json:"label,omitempty"`
	// DisruptionReason, Allowed and Disrupting describe a budget: the
	// reason it counts, the nodes it allows (before subtracting), and the
	// nodes of the pool already disrupting (NotReady or being deleted; a
	// command of the plan completes before the next is sought).
	DisruptionReason Reason `json:"disruptionReason,omitempty"`
	Allowed          *int   `json:"allowed,omitempty"`
	Disrupting       *int   `json:"disrupting,omitempty"`
	// PodError is why the simulation could not place Pod.
	PodError string `json:"podError,omitempty"`
	// Node is an uninitialized node the simulation needed.
	Node string `json:"node,omitempty"`
	// NodeClaims is how many new NodeClaims removing the node needs.
	NodeClaims int `json:"nodeClaims,omitempty"`
	// Price is the node's price; ReplacementPrice the cheapest replacement
	// the simulation found (its worst launch price, as the filter uses it).
	Price            float64  `json:"price,omitempty"`
	ReplacementPrice *float64 `json:"replacementPrice,omitempty"`
	// CheaperTypes and MinTypes are the spot-to-spot flexibility count and
	// its floor; Disabled says the gate is off.
	CheaperTypes int  `json:"cheaperTypes,omitempty"`
	MinTypes     int  `json:"minTypes,omitempty"`
	Disabled     bool `json:"disabled,omitempty"`
	// Score and Threshold are the Balanced score.
	Score     *float64 `json:"score,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	// Savings and MinSavings are a command's saving and the least asked.
	Savings    *float64 `json:"savings,omitempty"`
	MinSavings *float64 `json:"minSavings,omitempty"`
	// SavingsAtMost says Savings is a bound: no way of removing the node
	// saves more (no simulation was needed to know it).
	SavingsAtMost bool `json:"savingsAtMost,omitempty"`
	// Command is the 1-based command a reason refers to.
	Command int `json:"command,omitempty"`
	// NodePool is the pool a reason refers to.
	NodePool string `json:"nodePool,omitempty"`
}

// why is a KeepReason and its numbers, rendered into a message only when the
// result is built.
type why struct {
	code KeepReason
	d    Details
}

func keep(code KeepReason, d Details) *why { return &why{code: code, d: d} }

// message renders the reason as one sentence.
func (w *why) message() string {
	d := w.d
	switch w.code {
	case KeepUnmanaged:
		return "not managed by Karpenter (no NodeClaim and no karpenter.sh/nodepool label): it can receive pods but is never disrupted"
	case KeepNotInitialized:
		if d.Label != "" {
			return "not consolidatable: " + d.Label
		}
		return "not initialized (label karpenter.sh/initialized is not \"true\")"
	case KeepDeleting:
		return "already being deleted"
	case KeepDoNotDisrupt:
		return "annotated karpenter.sh/do-not-disrupt: \"true\""
	case KeepNodePoolNotFound:
		if d.Label != "" {
			return "no " + d.Label + " label"
		}
		return fmt.Sprintf("NodePool %q not found, or it has no instance type", d.NodePool)
	case KeepPodDoNotDisrupt:
		return podDoNotDisruptMessage(d)
	case KeepPDB:
		return pdbMessage(d)
	case KeepStatic:
		return fmt.Sprintf("NodePool %q is static (spec.replicas): only drift replaces its nodes", d.NodePool)
	case KeepDisabled:
		return fmt.Sprintf("NodePool %q has consolidateAfter: Never", d.NodePool)
	case KeepConsolidateAfter:
		return fmt.Sprintf("consolidateAfter not elapsed since the last pod event (%s left)", d.TimeLeft)
	case KeepUnknownPrice:
		return "its price is unknown: " + d.Label
	case KeepWhenEmpty:
		return fmt.Sprintf("NodePool %q has consolidationPolicy WhenEmpty and the node is not empty", d.NodePool)
	case KeepBudget:
		return budgetMessage(d)
	}
	return w.simulationMessage()
}

func (w *why) simulationMessage() string {
	d := w.d
	switch w.code {
	case KeepPodsDoNotFit:
		return fmt.Sprintf("pod %s fits nowhere else: %s", d.Pod, d.PodError)
	case KeepUninitializedDst:
		return fmt.Sprintf("pod %s could only move to node %s, which is not initialized", d.Pod, d.Node)
	case KeepTooManyNodes:
		if d.NodeClaims == 0 && d.Pod != "" {
			return fmt.Sprintf("removing it needs more than one new NodeClaim (consolidation replaces with at most one; pod %s fits %s)", d.Pod, d.fitsNoOther())
		}
		if d.NodeClaims == 0 {
			return "removing it needs more than one new NodeClaim (consolidation replaces with at most one; its pods need more room than the other nodes and one instance type have)"
		}
		return fmt.Sprintf("removing it needs %d new NodeClaims (consolidation replaces with at most one)", d.NodeClaims)
	case KeepNoCheaper:
		if d.Pod != "" {
			return fmt.Sprintf("pod %s fits %s, and no instance type that could hold it costs less than $%s/h", d.Pod, d.fitsNoOther(), price(d.Price))
		}
		if d.ReplacementPrice == nil {
			return fmt.Sprintf("no replacement is cheaper than $%s/h", price(d.Price))
		}
		return fmt.Sprintf("the cheapest replacement costs $%s/h at worst, not less than $%s/h", price(*d.ReplacementPrice), price(d.Price))
	case KeepSpotToSpot:
		if d.Disabled && d.Pod != "" {
			return fmt.Sprintf("pod %s fits %s, a spot node is only replaced by spot, and spot-to-spot consolidation is off", d.Pod, d.fitsNoOther())
		}
		if d.Disabled {
			return "a spot node is only replaced by spot, and spot-to-spot consolidation is off"
		}
		return fmt.Sprintf("spot-to-spot needs %d cheaper spot instance types, there are %d", d.MinTypes, d.CheaperTypes)
	case KeepBalanced:
		return fmt.Sprintf("Balanced score %.2f is below the threshold %.2f", deref(d.Score), deref(d.Threshold))
	case KeepMinSavings:
		if d.SavingsAtMost {
			return fmt.Sprintf("removing it saves at most $%s/h, less than the minimum $%s/h", price(deref(d.Savings)), price(deref(d.MinSavings)))
		}
		return fmt.Sprintf("removing it saves $%s/h, less than the minimum $%s/h", price(deref(d.Savings)), price(deref(d.MinSavings)))
	case KeepNoUndo:
		return fmt.Sprintf("command %d launched it or moved pods onto it; disrupting it would undo that", d.Command)
	case KeepLater:
		return fmt.Sprintf("a later command would disrupt it (saving $%s/h)", price(deref(d.Savings)))
	case KeepBlockedDrain:
		return "expired, but its drain is blocked: " + d.PodError
	}
	return string(w.code)
}

// fitsNoOther says where Pod does not fit: no other node, or none of the
// zone its spread keeps it in.
func (d Details) fitsNoOther() string {
	if d.Zone != "" {
		return fmt.Sprintf("no other node of zone %s (its required zone spread keeps it there)", d.Zone)
	}
	return "no other node"
}

func podDoNotDisruptMessage(d Details) string {
	if d.Until == nil {
		return fmt.Sprintf("pod %s is annotated karpenter.sh/do-not-disrupt", d.Pod)
	}
	return fmt.Sprintf("pod %s is annotated karpenter.sh/do-not-disrupt for %s more", d.Pod, d.TimeLeft)
}

func pdbMessage(d Details) string {
	if len(d.PodDisruptionBudgets) > 1 {
		return fmt.Sprintf("pod %s is matched by %d PodDisruptionBudgets (%s); eviction supports one", d.Pod,
			len(d.PodDisruptionBudgets), strings.Join(d.PodDisruptionBudgets, ", "))
	}
	return fmt.Sprintf("pdb %s allows 0 disruptions (pod %s)", strings.Join(d.PodDisruptionBudgets, ""), d.Pod)
}

func budgetMessage(d Details) string {
	return fmt.Sprintf("NodePool %q's disruption budget for %s allows %d node(s) and %d are already disrupting",
		d.NodePool, d.DisruptionReason, deref(d.Allowed), deref(d.Disrupting))
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// price renders a price per hour with up to four decimals.
func price(p float64) string {
	s := fmt.Sprintf("%.4f", p)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "00"
	} else if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i == 2 {
		s += "0"
	}
	return s
}

// left renders the time from now to until, rounded to the second.
func left(now, until time.Time) string { return until.Sub(now).Round(time.Second).String() }
