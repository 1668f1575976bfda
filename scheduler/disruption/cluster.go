package disruption

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
)

// Cluster is a running cluster as consolidation reads it: what
// `kubectl get -A -o yaml` prints for its nodes, NodeClaims, pods,
// PodDisruptionBudgets, DaemonSets and volume objects. Plan never modifies
// or retains it.
type Cluster struct {
	Nodes      []*corev1.Node
	NodeClaims []NodeClaim
	// Pods holds the pods bound to a node (spec.nodeName set) and the
	// pending ones (not bound): the simulation also places the pending pods,
	// as Karpenter's does. Terminal pods (Succeeded, Failed) are gone.
	Pods                 []*corev1.Pod
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	DaemonSets           []*appsv1.DaemonSet
	PVCs                 []*corev1.PersistentVolumeClaim
	PVs                  []*corev1.PersistentVolume
	StorageClasses       []*storagev1.StorageClass
	Namespaces           []*corev1.Namespace
}

// Well-known keys of Karpenter's disruption API.
const (
	// AnnotationDoNotDisrupt on a pod ("true" or a duration counted from
	// status.startTime) or on a node or NodeClaim ("true") blocks graceful
	// disruption.
	AnnotationDoNotDisrupt = "karpenter.sh/do-not-disrupt"
	// AnnotationPodDeletionCost is the pod-deletion-cost of ReplicaSets;
	// it raises or lowers a pod's eviction cost.
	AnnotationPodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"
	// AnnotationNodePoolHash and AnnotationNodePoolHashVersion are the hash
	// of the NodePool template a NodeClaim was launched from.
	AnnotationNodePoolHash        = "karpenter.sh/nodepool-hash"
	AnnotationNodePoolHashVersion = "karpenter.sh/nodepool-hash-version"
)

// NodeClaim condition types consolidation reads.
const (
	ConditionInitialized         = "Initialized"
	ConditionDrifted             = "Drifted"
	ConditionConsolidatable      = "Consolidatable"
	ConditionInstanceTerminating = "InstanceTerminating"
)

// NodeClaim mirrors the karpenter.sh/v1 NodeClaim in the fields
// consolidation reads; unknown fields of a dump are ignored by the reader.
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodeClaimSpec   `json:"spec,omitempty"`
	Status            NodeClaimStatus `json:"status,omitempty"`
}

// NodeClaimSpec is a NodeClaim's spec.
type NodeClaimSpec struct {
	Taints        []corev1.Taint                                  `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                                  `json:"startupTaints,omitempty"`
	Requirements  []nodepool.NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	NodeClassRef  *nodepool.NodeClassReference                    `json:"nodeClassRef,omitempty"`
	// ExpireAfter is a duration ("720h") or "Never"; unset means the
	// NodePool's.
	ExpireAfter            *string          `json:"expireAfter,omitempty"`
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
}

// NodeClaimStatus is a NodeClaim's status.
type NodeClaimStatus struct {
	NodeName    string              `json:"nodeName,omitempty"`
	ProviderID  string              `json:"providerID,omitempty"`
	Capacity    corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions  []metav1.Condition  `json:"conditions,omitempty"`
	// LastPodEventTime is when a pod was last bound to the node or left it
	// (consolidateAfter counts from it).
	LastPodEventTime metav1.Time `json:"lastPodEventTime,omitempty"`
}

// condition returns the NodeClaim's condition of a type, or nil.
func (nc *NodeClaim) condition(t string) *metav1.Condition {
	for i := range nc.Status.Conditions {
		if nc.Status.Conditions[i].Type == t {
			return &nc.Status.Conditions[i]
		}
	}
	return nil
}

// isTrue reports whether the NodeClaim has a condition of a type with
// status True.
func (nc *NodeClaim) isTrue(t string) bool {
	c := nc.condition(t)
	return c != nil && c.Status == metav1.ConditionTrue
}
