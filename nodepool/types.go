package nodepool

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool mirrors the karpenter.sh/v1 NodePool, field for field, so the YAML
// users already have decodes unchanged (see Decode; v1beta1 documents are
// converted on the way in).
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

// Spec is the NodePool's spec.
type Spec struct {
	Template   NodeClaimTemplate `json:"template"`
	Disruption *Disruption       `json:"disruption,omitempty"`
	// Limits caps the total capacity (not requests) of the pool's nodes, per
	// resource: cpu, memory, nvidia.com/gpu, ..., and "nodes" (a count).
	Limits corev1.ResourceList `json:"limits,omitempty"`
	// Weight orders NodePools: higher first; unset is 0. Valid values 1..100.
	Weight *int32 `json:"weight,omitempty"`
	// Replicas makes the pool static (Karpenter's StaticNodePool): such a pool
	// never provisions for pending pods.
	Replicas *int64 `json:"replicas,omitempty"`
}

// NodeClaimTemplate is spec.template.
type NodeClaimTemplate struct {
	ObjectMeta TemplateMeta          `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// TemplateMeta is spec.template.metadata.
type TemplateMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is spec.template.spec.
type NodeClaimTemplateSpec struct {
	Taints        []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements  []NodeSelectorRequirementWithMinValues `json:"requirements"`
	NodeClassRef  *NodeClassReference                    `json:"nodeClassRef,omitempty"`
	// ExpireAfter is a duration ("720h") or "Never".
	ExpireAfter *string `json:"expireAfter,omitempty"`
	// TerminationGracePeriod is a duration.
	TerminationGracePeriod *metav1.Duration `json:"terminationGracePeriod,omitempty"`
}

// NodeSelectorRequirementWithMinValues is a node-selector requirement that
// may also demand a minimum number of distinct values (instance-type
// flexibility).
type NodeSelectorRequirementWithMinValues struct {
	Key       string                      `json:"key"`
	Operator  corev1.NodeSelectorOperator `json:"operator"`
	Values    []string                    `json:"values,omitempty"`
	MinValues *int                        `json:"minValues,omitempty"`
}

// NodeClassReference points at the provider's node class.
type NodeClassReference struct {
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Name  string `json:"name"`
}

// Disruption is spec.disruption.
type Disruption struct {
	// ConsolidateAfter is a duration or "Never".
	ConsolidateAfter *string `json:"consolidateAfter,omitempty"`
	// ConsolidationPolicy is WhenEmpty or WhenEmptyOrUnderutilized.
	ConsolidationPolicy string   `json:"consolidationPolicy,omitempty"`
	Budgets             []Budget `json:"budgets,omitempty"`
}

// Budget is one disruption budget.
type Budget struct {
	Reasons  []string         `json:"reasons,omitempty"`
	Nodes    string           `json:"nodes"`
	Schedule *string          `json:"schedule,omitempty"`
	Duration *metav1.Duration `json:"duration,omitempty"`
}
