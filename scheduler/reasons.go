package scheduler

// ReasonCode names one constraint of a plan. It is the one vocabulary for
// both sides of a constraint: why a pod could not be placed (PodError.Code,
// Cause.Code, in the plan's JSON as "code") and which constraint a plan
// breaks (the Code of a violation of package scheduler/verify). A code a
// pod error uses never changes its name; docs/REASONS.md lists every code
// with both meanings and the names violations had before they shared it.
type ReasonCode string

// Reason codes, most specific first. Each says what it means for a pod
// that was not placed ("pod:") and for a plan that breaks it ("plan:");
// codes only a plan can break say "plan only".
const (
	// ReasonInvalidPod: pod: the pod is invalid (the API server would
	// reject it). Plan: not used (an invalid pod is an input error).
	ReasonInvalidPod ReasonCode = "InvalidPod"
	// ReasonDynamicResources: pod: it claims dynamic resources, which
	// nodeplan does not plan. Plan: not used.
	ReasonDynamicResources ReasonCode = "DynamicResources"
	// ReasonNoNodePool: pod: no NodePool can take it. Plan: a NodeClaim
	// names a NodePool that is not an input NodePool, or a static one.
	ReasonNoNodePool ReasonCode = "NoNodePool"
	// ReasonIncompatible: pod: its node requirements are incompatible with
	// a NodePool's. Plan: a pod's node requirements (nodeSelector, required
	// node affinity) do not hold on its node or NodeClaim.
	ReasonIncompatible ReasonCode = "IncompatibleRequirements"
	// ReasonUndefinedLabel: pod: it requires a custom label the NodePool
	// does not define. Plan: not used (a plan breaks it as
	// IncompatibleRequirements).
	ReasonUndefinedLabel ReasonCode = "UndefinedLabel"
	// ReasonTaint: pod: it does not tolerate a NodePool's or node's taint.
	// Plan: a pod does not tolerate a NoSchedule or NoExecute taint of its
	// node or NodeClaim.
	ReasonTaint ReasonCode = "UntoleratedTaint"
	// ReasonNoInstanceType: pod: no instance type satisfies the
	// requirements. Plan: not used (see InstanceTypeOptions).
	ReasonNoInstanceType ReasonCode = "NoInstanceType"
	// ReasonInsufficient: pod: no instance type or node has room for its
	// requests. Plan: a node's or a NodeClaim option's allocatable, less
	// its DaemonSets (and bound pods), does not hold the pods' requests.
	ReasonInsufficient ReasonCode = "InsufficientResources"
	// ReasonNoOffering: pod: no available offering satisfies the
	// requirements. Plan: a NodeClaim's option or chosen launch has no
	// such offering, its price is not the offering's, or a cheaper valid
	// option exists.
	ReasonNoOffering ReasonCode = "NoOffering"
	// ReasonLimits: pod: every fitting type exceeds the NodePool's limits.
	// Plan: a NodePool's existing nodes plus its NodeClaims (each at its
	// largest option) exceed its limits.
	ReasonLimits ReasonCode = "LimitsExceeded"
	// ReasonMinValues: pod: the options cannot meet a minValues. Plan:
	// under the Strict policy, a NodeClaim's options offer fewer distinct
	// values than a minValues of its NodePool asks.
	ReasonMinValues ReasonCode = "MinValues"
	// ReasonTopologySpread: pod: no domain keeps a DoNotSchedule spread.
	// Plan: a placed pod breaks a DoNotSchedule spread constraint.
	ReasonTopologySpread ReasonCode = "TopologySpread"
	// ReasonPodAffinity: pod: no domain satisfies its required pod
	// affinity. Plan: a placed pod's required pod affinity does not hold.
	ReasonPodAffinity ReasonCode = "PodAffinity"
	// ReasonPodAntiAffinity: pod: every domain holds a pod its required
	// anti-affinity excludes (or one whose anti-affinity excludes it).
	// Plan: such two pods share a domain.
	ReasonPodAntiAffinity ReasonCode = "PodAntiAffinity"
	// ReasonVolumeTopology: pod: its volumes' topology rules out every
	// node. Plan: a pod's volumes cannot be placed on its node or
	// NodeClaim.
	ReasonVolumeTopology ReasonCode = "VolumeTopology"
	// ReasonHostPort: pod: its host ports clash everywhere. Plan: two pods
	// (or a pod and a DaemonSet) hold the same host port on one node.
	ReasonHostPort ReasonCode = "HostPort"
	// ReasonReservation: pod: the capacity reservation it needs is used
	// up. Plan: a reservation holds more NodeClaims than its capacity.
	ReasonReservation ReasonCode = "Reservation"
	// ReasonDaemonSetOverhead: pod: the DaemonSets that would run on a
	// NodePool's nodes leave no instance type room. Plan: not used (a plan
	// breaks it as InsufficientResources).
	ReasonDaemonSetOverhead ReasonCode = "DaemonSetOverhead"

	// ReasonAccounting: plan only: a pending pod is missing or appears
	// twice, the plan names a pod that is not pending, a NodeClaim has no
	// pods, or two NodeClaims share a name.
	ReasonAccounting ReasonCode = "Accounting"
	// ReasonSummary: plan only: the summary's totals do not match the plan.
	ReasonSummary ReasonCode = "Summary"
	// ReasonInstanceTypeOptions: plan only: a NodeClaim's options are
	// empty, repeated, unknown, over the maximum, lack the chosen type, or
	// are not sorted cheapest first.
	ReasonInstanceTypeOptions ReasonCode = "InstanceTypeOptions"
	// ReasonNodeClaimRequirements: plan only: a NodeClaim's requirements do
	// not parse, allow what its NodePool does not, or an option's labels
	// fall outside them.
	ReasonNodeClaimRequirements ReasonCode = "NodeClaimRequirements"
	// ReasonNodeClaimRequests: plan only: a NodeClaim's requests are not
	// its pods' plus its DaemonSets'.
	ReasonNodeClaimRequests ReasonCode = "NodeClaimRequests"
	// ReasonNodeClaimLabels: plan only: a NodeClaim's labels disagree with
	// its requirements, its chosen offering or its NodePool's labels.
	ReasonNodeClaimLabels ReasonCode = "NodeClaimLabels"
	// ReasonNodeClaimTaints: plan only: a NodeClaim's taints or startup
	// taints are not its NodePool's.
	ReasonNodeClaimTaints ReasonCode = "NodeClaimTaints"
	// ReasonExistingNode: plan only: a pod is placed on a node that is not
	// an existing node of the input, is being deleted, or is cordoned.
	ReasonExistingNode ReasonCode = "ExistingNode"
	// ReasonTopologyDomain: plan only: a NodeClaim whose domain a hard
	// topology term depends on can launch in more than one domain.
	ReasonTopologyDomain ReasonCode = "TopologyDomain"
)

// ReasonCodes returns every reason code, in the order of their
// declaration: the codes pod errors use, then the codes only a plan can
// break.
func ReasonCodes() []ReasonCode {
	return []ReasonCode{
		ReasonInvalidPod, ReasonDynamicResources, ReasonNoNodePool, ReasonIncompatible, ReasonUndefinedLabel,
		ReasonTaint, ReasonNoInstanceType, ReasonInsufficient, ReasonNoOffering, ReasonLimits, ReasonMinValues,
		ReasonTopologySpread, ReasonPodAffinity, ReasonPodAntiAffinity, ReasonVolumeTopology, ReasonHostPort,
		ReasonReservation, ReasonDaemonSetOverhead,
		ReasonAccounting, ReasonSummary, ReasonInstanceTypeOptions, ReasonNodeClaimRequirements,
		ReasonNodeClaimRequests, ReasonNodeClaimLabels, ReasonNodeClaimTaints, ReasonExistingNode, ReasonTopologyDomain,
	}
}
