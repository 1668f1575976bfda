package nodepool

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The karpenter.sh/v1beta1 NodePool, as far as it differs from v1. It is
// only decoded into and converted (see Decode); nothing else uses it.

type v1beta1NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              v1beta1Spec     `json:"spec"`
	Status            json.RawMessage `json:"status,omitempty"`
}

type v1beta1Spec struct {
	Template   v1beta1Template     `json:"template"`
	Disruption *v1beta1Disruption  `json:"disruption,omitempty"`
	Limits     corev1.ResourceList `json:"limits,omitempty"`
	Weight     *int32              `json:"weight,omitempty"`
}

type v1beta1Template struct {
	ObjectMeta TemplateMeta        `json:"metadata,omitempty"`
	Spec       v1beta1TemplateSpec `json:"spec"`
}

type v1beta1TemplateSpec struct {
	Taints        []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements  []NodeSelectorRequirementWithMinValues `json:"requirements"`
	// Resources (requests) and Kubelet are accepted and dropped.
	// ExpireAfter and TerminationGracePeriod are v1 fields, accepted here
	// because v1beta1 manifests in the wild carry them.
	Resources    *v1beta1Resources    `json:"resources,omitempty"`
	Kubelet      json.RawMessage      `json:"kubelet,omitempty"`
	NodeClassRef *v1beta1NodeClassRef `json:"nodeClassRef,omitempty"`
	ExpireAfter  *string              `json:"expireAfter,omitempty"`
	Termination  *metav1.Duration     `json:"terminationGracePeriod,omitempty"`
}

type v1beta1Resources struct {
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

type v1beta1NodeClassRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Group      string `json:"group,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
}

type v1beta1Disruption struct {
	ConsolidateAfter    *string  `json:"consolidateAfter,omitempty"`
	ConsolidationPolicy string   `json:"consolidationPolicy,omitempty"`
	ExpireAfter         *string  `json:"expireAfter,omitempty"`
	Budgets             []Budget `json:"budgets,omitempty"`
}

// v1beta1 consolidation policies that v1 renamed.
const v1beta1WhenUnderutilized = "WhenUnderutilized"

// Consolidation policies of v1.
const (
	ConsolidationWhenEmpty                = "WhenEmpty"
	ConsolidationWhenEmptyOrUnderutilized = "WhenEmptyOrUnderutilized"
	// ConsolidationBalanced consolidates like WhenEmptyOrUnderutilized, but
	// only moves whose share of the pool's savings is at least half their
	// share of its disruption (Karpenter v1.14's Balanced policy).
	ConsolidationBalanced = "Balanced"
)

// convert returns the v1 NodePool; errors are fields the two versions
// disagree on.
func (b v1beta1NodePool) convert() (NodePool, field.ErrorList) {
	var errs field.ErrorList
	s := b.Spec
	ts := s.Template.Spec
	np := NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersionV1, Kind: Kind},
		ObjectMeta: b.ObjectMeta,
		Spec: Spec{
			Template: NodeClaimTemplate{
				ObjectMeta: s.Template.ObjectMeta,
				Spec: NodeClaimTemplateSpec{
					Taints:                 ts.Taints,
					StartupTaints:          ts.StartupTaints,
					Requirements:           ts.Requirements,
					ExpireAfter:            ts.ExpireAfter,
					TerminationGracePeriod: ts.Termination,
				},
			},
			Limits: s.Limits,
			Weight: s.Weight,
		},
	}
	if ref := ts.NodeClassRef; ref != nil {
		group := ref.Group
		if ref.APIVersion != "" {
			g, _, _ := strings.Cut(ref.APIVersion, "/")
			if group != "" && group != g {
				errs = append(errs, field.Invalid(field.NewPath("spec", "template", "spec", "nodeClassRef", "group"), group,
					fmt.Sprintf("disagrees with nodeClassRef.apiVersion %q", ref.APIVersion)))
			}
			group = g
		}
		np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: group, Kind: ref.Kind, Name: ref.Name}
	}
	if d := s.Disruption; d != nil {
		policy := d.ConsolidationPolicy
		if policy == v1beta1WhenUnderutilized {
			policy = ConsolidationWhenEmptyOrUnderutilized
		}
		np.Spec.Disruption = &Disruption{ConsolidateAfter: d.ConsolidateAfter, ConsolidationPolicy: policy, Budgets: d.Budgets}
		if e := d.ExpireAfter; e != nil {
			if t := ts.ExpireAfter; t != nil && *t != *e {
				errs = append(errs, field.Invalid(field.NewPath("spec", "disruption", "expireAfter"), *e,
					fmt.Sprintf("disagrees with spec.template.spec.expireAfter %q (v1 keeps only the latter)", *t)))
			}
			np.Spec.Template.Spec.ExpireAfter = e
		}
	}
	return np, errs
}
