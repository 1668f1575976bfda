// Package topology tracks the topology groups of one solve: topology spread
// constraints, pod affinity and pod anti-affinity, required and preferred.
// For a pod and a candidate node (an existing node, a NodeClaim already
// planned, or a new NodeClaim) it answers which domains the pod may take
// there, and pins an undecided candidate to one domain when a topology
// decision depends on it; recording a placement updates the counts.
//
// Counting follows kube-scheduler: a group counts the pods that match its
// label selector in its namespaces, per domain of its topology key, over the
// nodes that pass the owner's node filter (nodeAffinityPolicy,
// nodeTaintsPolicy). A spread constraint allows a domain when
// count + (1 if the pod matches its own selector) − min ≤ maxSkew, where min
// is the lowest count over the domains eligible for the pod (zero when fewer
// than minDomains are eligible, and zero for hostname, where a new node is
// always an empty domain). Once a plan opens no more NodeClaims,
// CloseDomains fixes the eligible domains to those of the plan's nodes, as
// kube-scheduler counts them (a zone no node is in is no domain). Affinity needs a domain with a matching pod (the
// first pod of a self-selecting group may start one); anti-affinity needs a
// domain without one, and a pod may not enter a domain where a pod whose
// required anti-affinity selects it already is (the inverse rule).
//
// Beyond Karpenter: a candidate whose domain is still open (a NodeClaim that
// could land in several zones) is pinned to one domain as soon as a pod that
// any group counts is placed on it, so counts are always exact: a pod is
// never counted in several zones, and never blocks every zone it might land
// in. The one exception is asked for with LeaveSoftTargetsOpen (the plan
// that packs like Karpenter does): a pod that only other pods' preferred
// anti-affinity counts on a key leaves its claim open there, counted in
// every domain the claim may still take (with KeepLooseCounts, in every
// domain it could take when the pod joined it, as Karpenter records a pod
// once), and a pod whose only rule on a key
// is a preferred anti-affinity leaves its claim open on every domain that
// rule allows when it is placed, as Karpenter checks it only against the
// pods placed before (loose.go). Placements that a group counts but does not own are also kept within
// the skew of the owners already in that domain, so a plan stays valid in
// whatever order kube-scheduler binds its pods.
//
// Two-phase binding (early.go, asked for with ExistingNodesFirst):
// kube-scheduler binds a pod planned on an existing node as soon as it
// fits, before any NodeClaim's node joins, so such a pod may pass against
// the existing nodes' pods and domains alone (else it binds later, against
// every count), and a pod planned on a NodeClaim never pushes it past its
// skew. By default every pod is judged against every count: the plan then
// holds whenever the NodeClaims' nodes join.
//
// Volume topology (a pod's claims → zone requirements) lives here too.
//
// Flow: topology sits on requirements; scheduler drives it. It has no
// clients and chooses no nodes.
package topology
