// Package verify checks a plan against every hard constraint of its input,
// without trusting how the plan was made: Plan takes the pods, NodePools,
// catalog and options a plan was made from (by scheduler.Solve, by hand, or
// read back from JSON) and returns every violation, or nil.
//
// It imports only the public input and result types of package scheduler
// (Result, Option, Settings through scheduler.Resolve, ReasonCode, the
// policies) and the lower packages, never the solver's internals, so the
// compiler keeps it independent of the solver. It re-derives each
// constraint from Kubernetes and Karpenter semantics with the public
// building blocks: the requirements algebra, nodepool templates and
// DaemonSets, internal/podrequests, instancetypes, topology.Volumes for a
// pod's volume claims, component-helpers for node affinity, and
// apimachinery label selectors. It shares no placement, topology tracking
// or finalisation with Solve; the rules both must read alike are written
// once, below both: the host ports a pod holds and which clash, an
// existing node's effective taints and labels, which DaemonSets run on it,
// and the limits check (package nodepool); taints against tolerations
// (requirements); bound pods that are gone and DaemonSet-owned pods
// (internal/kube).
//
// The pending pods are the pods given plus the pods bound to an existing
// node that is being deleted (but for DaemonSet pods, terminal pods and pods
// being deleted): Karpenter replaces such a node, so its pods need a place
// (A51, B-140). A pod's requests are internal/podrequests.OfPod (the
// kubelet's effective requests, resize-aware, plus one "pods"), counted in
// integer units per pod as kube-scheduler does: millicores for cpu,
// Value() for the rest; a resource a node lacks is 0, and a zero request
// always fits.
//
// What is checked, constraint by constraint, each under the code its
// violations carry (scheduler.ReasonCode, the vocabulary pod errors use;
// docs/REASONS.md maps the rule names violations had before):
//
//   - Accounting: every pending pod appears exactly once, in one NodeClaim's
//     pods, one existing node's pods or PodErrors; no pod that is not a
//     pending pod; no NodeClaim without pods; NodeClaim names are non-empty
//     and unique (they are hostname domains).
//   - Summary: Pods is the number of pending pods, Scheduled the number
//     placed, NodeClaims the number of NodeClaims, PricePerHour the sum of
//     their prices (within 1e-6), and 0 ≤ PriceLowerBound ≤ PricePerHour.
//   - NoNodePool: a NodeClaim names a NodePool of the input that is not
//     static.
//   - InstanceTypeOptions: the options are non-empty, unique, known to the
//     catalog, at most the configured maximum (WithMaxInstanceTypeOptions),
//     contain InstanceType, and are sorted by the price of their cheapest
//     available offering that satisfies the NodeClaim's requirements, ties
//     by name.
//   - NodeClaimRequirements: the requirements parse; on every key the
//     NodePool constrains, the NodeClaim's effective requirement (below) is
//     within the NodePool's (intersecting does not change it); every
//     option's labels satisfy the requirements.
//   - NoOffering: every option has an available offering satisfying the
//     requirements (zone, capacity type, zone ID, reservation ID); the
//     chosen (instanceType, zone, capacityType) is such an offering and
//     Price is its price; no option that passes the other option checks has
//     a cheaper one. A reserved offering whose reservation the other
//     NodeClaims of the plan use up does not count as cheaper (nor in the
//     sort order).
//   - InsufficientResources: for every option, allocatable minus the
//     requests of the DaemonSets that run on it
//     (nodepool.Template.DaemonSetOverhead) holds the sum of the pods'
//     requests (an option the DaemonSets alone overflow fails). On an
//     existing node: allocatable (capacity when no allocatable is reported)
//     minus the bound pods' requests, minus the requests of the DaemonSets
//     that would run there but have no pod there yet, holds the new pods,
//     for every resource they request.
//   - NodeClaimRequests: a NodeClaim's Requests equal the pods' requests
//     plus the requests of the DaemonSets that run on the chosen instance
//     type.
//   - NodeClaimLabels: every label is allowed by the requirements; zone,
//     capacity type and instance type labels, when set, match the chosen
//     offering; the NodePool's template labels are present; every key the
//     requirements pin to one value carries that value; every custom (not
//     well-known) key the requirements make present has a value.
//   - NodeClaimTaints: a NodeClaim's taints and startup taints equal its
//     NodePool's (as multisets).
//   - IncompatibleRequirements: a pod's node requirements are its
//     nodeSelector ANDed with one required node-affinity term (any term;
//     deprecated keys normalised; an empty or unparsable term matches
//     nothing). On a NodeClaim, for some term and for every key it
//     constrains, every state the NodeClaim allows (each value, and absence
//     when allowed) satisfies the pod: eff(k) ∩ pod(k) is the same set as
//     eff(k), where eff(k) is the NodeClaim's requirement on k (Any for an
//     undefined well-known key, DoesNotExist for an undefined custom key)
//     narrowed to what its options can launch (their labels; the zones,
//     capacity types and zone IDs of their matching available offerings). On
//     an existing node, its labels (normalised, kubernetes.io/hostname
//     defaulting to the node's name) satisfy the pod, as component-helpers'
//     RequiredNodeAffinity decides.
//   - UndefinedLabel: a pod on a NodeClaim is its NodePool's to take: some
//     term of the pod, with the keys of its DoNotSchedule spreads and
//     required pod affinities (hostname aside) required to exist, is
//     compatible with the NodePool's requirements under Karpenter's rule
//     (an undefined custom key allows only NotIn or DoesNotExist), the
//     NodePool read as also defining every key a pod of the same NodeClaim
//     excludes values of (NotIn, required or preferred), as Karpenter
//     carries such a requirement into the NodeClaim.
//   - UntoleratedTaint: a pod tolerates a NodeClaim's NoSchedule and
//     NoExecute taints (startup taints need no toleration; PreferNoSchedule
//     is a preference). On an existing node it tolerates the node's taints,
//     except that a Karpenter node (labelled karpenter.sh/nodepool) whose
//     karpenter.sh/initialized label is not "true" sheds its NodePool's
//     startup taints and the well-known ephemeral taints (not-ready,
//     unreachable NoSchedule, cloud-provider uninitialized,
//     karpenter.sh/unregistered, readiness.k8s.io/*). A cordoned node takes
//     only pods that tolerate node.kubernetes.io/unschedulable.
//   - ExistingNode: a pod is placed on a node given with WithExistingNodes
//     that is not being deleted.
//   - VolumeTopology: the pod's claims resolve (topology.Volumes) and one of
//     their alternatives holds: on a NodeClaim, implied by its effective
//     requirements as above (so the chosen zone is allowed); on an existing
//     node, matched by its labels.
//   - HostPort: on every node, no two pods hold the same (port, protocol) on
//     the same IP (an unset IP, 0.0.0.0 and :: take every IP), counting
//     containers and restartable init containers, the bound pods and the
//     DaemonSets expected on an existing node, and on a NodeClaim the
//     DaemonSets that run on each option.
//   - LimitsExceeded: for each NodePool with limits and NodeClaims in the
//     plan, the capacity of its existing nodes plus, per NodeClaim, the
//     per-resource maximum capacity over its options (any option may be
//     launched) stays within every limit; "nodes" counts existing nodes plus
//     NodeClaims.
//   - Reservation: the NodeClaims on reserved offerings of one reservation
//     ID number at most its capacity (the smallest any offering states).
//   - MinValues (policy Strict): for every NodePool requirement with
//     minValues on an instance-type label, zone, capacity type or zone ID,
//     the options offer at least that many distinct values.
//   - TopologySpread, PodAffinity, PodAntiAffinity, TopologyDomain: see
//     below.
//
// Topology is checked on the final plan: the bound pods (not terminal, not
// being deleted, on a node that is not being deleted) plus every placed
// pod. A NodeClaim is a node whose labels are those of the chosen launch:
// the chosen instance type's labels, the requirements' single values, its
// Labels, its Zone, CapacityType and InstanceType (and the chosen
// offering's zone ID and reservation ID), and its own name as
// kubernetes.io/hostname. Topology keys are normalised. Then:
//
//   - TopologySpread: for every placed pod and every DoNotSchedule
//     constraint (ScheduleAnyway is a preference), count the pods in the
//     pod's namespace that match the label selector (a nil selector matches
//     nothing; matchLabelKeys add the pod's own values) per domain, over the
//     eligible nodes: nodes with the key that, under nodeAffinityPolicy
//     Honor (the default), satisfy the pod's node requirements and, under
//     nodeTaintsPolicy Honor (default Ignore), carry no taint the pod does
//     not tolerate (the taints it must tolerate to be placed there: an
//     initialising Karpenter node's ephemeral and startup taints do not
//     count, as under UntoleratedTaint; a cordoned node carries
//     node.kubernetes.io/unschedulable:NoSchedule, which the node lifecycle
//     controller adds, whether or not the node given has it yet). The
//     pod's domain count minus the global minimum must be at most
//     maxSkew. The minimum runs over the
//     eligible domains, as kube-scheduler's: those of the plan's eligible
//     nodes (existing nodes and NodeClaims; a zone or host no eligible node
//     of the plan is in is no domain, whatever a NodePool could launch);
//     when fewer domains than minDomains are eligible it is 0. The pod's
//     node must carry the key. Then the final counts must be reachable:
//     the placed pods bound one at a time in kube-scheduler's queue order
//     (higher priority, then earlier creation, then name with runs of
//     digits by value), each to its planned node when its spreads pass
//     against the pods bound so far, a pod that fails tried again after
//     others bound, must all bind (order.go).
//   - PodAffinity, as kube-scheduler's filter on the final plan: for every
//     required term the pod's node carries the key, and for every term some
//     other pod matching all the pod's required affinity terms shares the
//     pod's domain; unless no other pod anywhere matches them all and the
//     pod matches them itself (the first of a self-selecting group).
//     Namespaces: the term's list and namespaceSelector (labels from
//     WithNamespaces; an empty selector selects all), else the pod's own;
//     matchLabelKeys and mismatchLabelKeys apply.
//   - PodAntiAffinity: no other pod matching a required anti-affinity term
//     shares the pod's domain, and no bound pod whose required anti-affinity
//     term selects the pod shares its domain for that term's key (the
//     inverse rule; between two placed pods the owner's check reports it).
//   - TopologyDomain: a NodeClaim holding a pod that a hard topology term
//     owns or counts on a key must be pinned on that key: every launch its
//     requirements and options allow has the same value (for the zone, every
//     matching offering of every option is in one zone). Otherwise the node
//     could come up in another domain than the one checked above.
//
// Not checked: preferences (preferred affinities, ScheduleAnyway,
// PreferNoSchedule), volume attach limits, and whether a better plan exists.
//
// Files, one phase each: plan.go (the front door, Violation, Error),
// input.go (the input, indexed), accounting.go (where every pod went, the
// summary), claims.go (each NodeClaim against its NodePool, options and
// offerings; limits; reservations), pods.go (each pod against its node;
// host ports; existing nodes), resources.go (resource arithmetic in
// kube-scheduler's units), topology.go (spread, pod affinity and
// anti-affinity on the final plan).
//
// Flow: verify sits on scheduler's public API and on requirements,
// instancetypes, nodepool and topology; cmd/nodeplan (--verify),
// scheduler/plantest and tests use it.
package verify
