package disruption

import (
	"github.com/nodeplan/nodeplan/scheduler"
)

// Result is a consolidation plan: the commands in the order they are to be
// carried out, every node once with what happens to it and, for a node
// that stays, why, and the totals. The JSON form is the output format of
// `nodeplan consolidate -o json`.
type Result struct {
	Commands []Command   `json:"commands"`
	Nodes    []NodeState `json:"nodes"`
	Summary  Summary     `json:"summary"`
	// Stats counts the work done (Go only).
	Stats Stats `json:"-"`
}

// Stats counts the simulations of a plan: how many ran, per method, how
// many pods they placed in all, and how many a cache answered.
type Stats struct {
	Simulations   map[Method]int
	PodsSimulated int
	CacheHits     int
	// Prefiltered counts the consolidations a check before the simulation
	// ruled out (prefilter.go, split.go).
	Prefiltered int
	// Thinned counts the pods on ghosts a simulation left out (thin.go).
	Thinned int
}

// Method names the disruption method that produced a command.
type Method string

// The methods, in the order Karpenter runs them (Expiration is not a method
// of Karpenter's disruption loop: its own controller deletes an expired
// NodeClaim at once; GlobalConsolidation is SearchGlobal's).
const (
	MethodExpiration  Method = "Expiration"
	MethodEmptiness   Method = "Emptiness"
	MethodStaticDrift Method = "StaticDrift"
	MethodDrift       Method = "Drift"
	MethodMultiNode   Method = "MultiNodeConsolidation"
	MethodSingleNode  Method = "SingleNodeConsolidation"
	MethodGlobal      Method = "GlobalConsolidation"
)

// Reason is the disruption reason of a command, as budgets name it.
type Reason string

// The disruption reasons.
const (
	ReasonEmpty         Reason = "Empty"
	ReasonUnderutilized Reason = "Underutilized"
	ReasonDrifted       Reason = "Drifted"
	ReasonExpired       Reason = "Expired"
)

// Decision says whether a command deletes its nodes or replaces them.
type Decision string

// The decisions.
const (
	DecisionDelete  Decision = "delete"
	DecisionReplace Decision = "replace"
)

// Command is one disruption: the nodes it removes, the NodeClaims it
// launches in their place, and where every moved pod goes. It is valid on
// the cluster as the commands before it leave it.
type Command struct {
	Method   Method        `json:"method"`
	Reason   Reason        `json:"reason"`
	Decision Decision      `json:"decision"`
	Nodes    []CommandNode `json:"nodes"`
	// Replacements are the NodeClaims to launch, in the plan format of
	// scheduler.Result; their names are unique in the whole Result.
	Replacements []scheduler.NodeClaim `json:"replacements"`
	// Moves lists every pod the command places: the pods of its nodes and
	// the pending pods the simulation placed (From empty), sorted by pod.
	Moves []Move `json:"moves"`
	// Pending lists the pods of the nodes that no node can take: only an
	// expiration leaves pods pending (the NodeClaim goes whatever happens).
	Pending            []string `json:"pending,omitempty"`
	PricePerHourBefore float64  `json:"pricePerHourBefore"`
	PricePerHourAfter  float64  `json:"pricePerHourAfter"`
	SavingsPerHour     float64  `json:"savingsPerHour"`
}

// CommandNode is one node a command disrupts.
type CommandNode struct {
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool"`
	InstanceType string  `json:"instanceType"`
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
}

// Move is one pod placed by a command.
type Move struct {
	Pod  string `json:"pod"`
	From string `json:"from,omitempty"`
	To   string `json:"to"`
}

// NodeState is one node of the cluster (or launched by a command): whether
// a command disrupts it and, if not, the reason that keeps it.
type NodeState struct {
	Name         string  `json:"name"`
	NodePool     string  `json:"nodePool,omitempty"`
	InstanceType string  `json:"instanceType,omitempty"`
	Price        float64 `json:"price"`
	// Pods is the number of pods on the node: when it is disrupted, or at
	// the end of the plan.
	Pods      int  `json:"pods"`
	Disrupted bool `json:"disrupted"`
	// Command is the 1-based index of the command that disrupts the node;
	// CreatedBy that of the command that launched it (0: none).
	Command   int `json:"command,omitempty"`
	CreatedBy int `json:"createdBy,omitempty"`
	// Reason, Message and Details say why a node stays.
	Reason  KeepReason `json:"reason,omitempty"`
	Message string     `json:"message,omitempty"`
	Details *Details   `json:"details,omitempty"`
}

// Summary totals the plan.
type Summary struct {
	Nodes             int     `json:"nodes"`
	PricePerHour      float64 `json:"pricePerHour"`
	PricePerHourAfter float64 `json:"pricePerHourAfter"`
	SavingsPerHour    float64 `json:"savingsPerHour"`
	Commands          int     `json:"commands"`
	NodesDisrupted    int     `json:"nodesDisrupted"`
	PodsMoved         int     `json:"podsMoved"`
	// RepackPricePerHour is what scheduler.Solve pays for every pod of the
	// cluster on new nodes of its NodePools (no disruption rule), and
	// RepackLowerBound its proven lower bound: how far the cluster is from
	// the cheapest it could be. Both are 0 with WithoutRepack.
	RepackPricePerHour float64 `json:"repackPricePerHour"`
	RepackLowerBound   float64 `json:"repackLowerBound"`
}
