package nodepool

import (
	"maps"
	"slices"

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

// IsStatic reports whether the NodePool is static (spec.replicas set): such a
// pool keeps a fixed number of nodes and never provisions for pending pods,
// so NewTemplate refuses it and Templates leaves it out.
func (np NodePool) IsStatic() bool { return np.Spec.Replicas != nil }

// DeepCopy returns a copy of np that shares no map, slice or pointer with it.
func (np NodePool) DeepCopy() NodePool {
	out := NodePool{TypeMeta: np.TypeMeta, ObjectMeta: *np.ObjectMeta.DeepCopy()}
	out.Spec = np.Spec.deepCopy()
	return out
}

func (s Spec) deepCopy() Spec {
	out := Spec{
		Template: s.Template.deepCopy(),
		Limits:   s.Limits.DeepCopy(),
		Weight:   clonePtr(s.Weight),
		Replicas: clonePtr(s.Replicas),
	}
	if s.Disruption != nil {
		d := *s.Disruption
		d.ConsolidateAfter = clonePtr(d.ConsolidateAfter)
		d.Budgets = make([]Budget, 0, len(s.Disruption.Budgets))
		for _, b := range s.Disruption.Budgets {
			d.Budgets = append(d.Budgets, b.deepCopy())
		}
		if s.Disruption.Budgets == nil {
			d.Budgets = nil
		}
		out.Disruption = &d
	}
	return out
}

func (t NodeClaimTemplate) deepCopy() NodeClaimTemplate {
	out := NodeClaimTemplate{ObjectMeta: TemplateMeta{
		Labels:      maps.Clone(t.ObjectMeta.Labels),
		Annotations: maps.Clone(t.ObjectMeta.Annotations),
	}}
	s := t.Spec
	out.Spec = NodeClaimTemplateSpec{
		Taints:                 cloneTaints(s.Taints),
		StartupTaints:          cloneTaints(s.StartupTaints),
		NodeClassRef:           clonePtr(s.NodeClassRef),
		ExpireAfter:            clonePtr(s.ExpireAfter),
		TerminationGracePeriod: clonePtr(s.TerminationGracePeriod),
	}
	if s.Requirements != nil {
		out.Spec.Requirements = make([]NodeSelectorRequirementWithMinValues, len(s.Requirements))
		for i, r := range s.Requirements {
			r.Values = slices.Clone(r.Values)
			r.MinValues = clonePtr(r.MinValues)
			out.Spec.Requirements[i] = r
		}
	}
	return out
}

func (b Budget) deepCopy() Budget {
	b.Reasons = slices.Clone(b.Reasons)
	b.Schedule = clonePtr(b.Schedule)
	b.Duration = clonePtr(b.Duration)
	return b
}

// cloneTaints deep-copies taints (TimeAdded is a pointer); nil stays nil.
func cloneTaints(ts []corev1.Taint) []corev1.Taint {
	if ts == nil {
		return nil
	}
	out := make([]corev1.Taint, len(ts))
	for i := range ts {
		ts[i].DeepCopyInto(&out[i])
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
