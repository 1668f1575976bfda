package manifest

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The checks below reject what no Kubernetes API server would accept and no
// scheduler could interpret: unknown operators and enum values. Everything
// else about a pod (label syntax, Gt with a non-integer, restricted labels)
// is judged by the solver, which reports such a pod as unplaced.

func nodeSelectorOperators() []corev1.NodeSelectorOperator {
	return []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
}

func labelSelectorOperators() []metav1.LabelSelectorOperator {
	return []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
}

// checkPodSpec checks the operators of node affinity, pod affinity and
// anti-affinity and spread selectors, spread's whenUnsatisfiable and
// maxSkew, and tolerations' operators and effects.
func checkPodSpec(path *field.Path, spec *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	if a := spec.Affinity; a != nil {
		errs = append(errs, checkAffinity(path.Child("affinity"), a)...)
	}
	for i, c := range spec.TopologySpreadConstraints {
		p := path.Child("topologySpreadConstraints").Index(i)
		if c.MaxSkew < 1 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be at least 1"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), ""))
		}
		if !slices.Contains([]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}, c.WhenUnsatisfiable) {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable,
				[]corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}))
		}
		errs = append(errs, checkLabelSelector(p.Child("labelSelector"), c.LabelSelector)...)
	}
	for i, t := range spec.Tolerations {
		p := path.Child("tolerations").Index(i)
		if !slices.Contains([]corev1.TolerationOperator{"", corev1.TolerationOpExists, corev1.TolerationOpEqual}, t.Operator) {
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpExists, corev1.TolerationOpEqual}))
		}
		if !slices.Contains([]corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, taintEffects()))
		}
	}
	return errs
}

func taintEffects() []corev1.TaintEffect {
	return []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
}

func checkAffinity(path *field.Path, a *corev1.Affinity) field.ErrorList {
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := path.Child("nodeAffinity")
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			errs = append(errs, checkNodeSelector(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), r)...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			errs = append(errs, checkNodeSelectorTerm(p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("preference"), t.Preference)...)
		}
	}
	type terms struct {
		name      string
		required  []corev1.PodAffinityTerm
		preferred []corev1.WeightedPodAffinityTerm
	}
	var all []terms
	if pa := a.PodAffinity; pa != nil {
		all = append(all, terms{"podAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution})
	}
	if pa := a.PodAntiAffinity; pa != nil {
		all = append(all, terms{"podAntiAffinity", pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution})
	}
	for _, ts := range all {
		p := path.Child(ts.name)
		for i, t := range ts.required {
			errs = append(errs, checkPodAffinityTerm(p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i), t)...)
		}
		for i, t := range ts.preferred {
			errs = append(errs, checkPodAffinityTerm(p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i).Child("podAffinityTerm"), t.PodAffinityTerm)...)
		}
	}
	return errs
}

func checkPodAffinityTerm(path *field.Path, t corev1.PodAffinityTerm) field.ErrorList {
	errs := checkLabelSelector(path.Child("labelSelector"), t.LabelSelector)
	errs = append(errs, checkLabelSelector(path.Child("namespaceSelector"), t.NamespaceSelector)...)
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(path.Child("topologyKey"), ""))
	}
	return errs
}

func checkNodeSelector(path *field.Path, ns *corev1.NodeSelector) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ns.NodeSelectorTerms {
		errs = append(errs, checkNodeSelectorTerm(path.Child("nodeSelectorTerms").Index(i), t)...)
	}
	return errs
}

func checkNodeSelectorTerm(path *field.Path, t corev1.NodeSelectorTerm) field.ErrorList {
	var errs field.ErrorList
	for i, e := range t.MatchExpressions {
		if !slices.Contains(nodeSelectorOperators(), e.Operator) {
			errs = append(errs, field.NotSupported(path.Child("matchExpressions").Index(i).Child("operator"), e.Operator, nodeSelectorOperators()))
		}
	}
	for i, e := range t.MatchFields {
		if !slices.Contains(nodeSelectorOperators(), e.Operator) {
			errs = append(errs, field.NotSupported(path.Child("matchFields").Index(i).Child("operator"), e.Operator, nodeSelectorOperators()))
		}
	}
	return errs
}

func checkLabelSelector(path *field.Path, s *metav1.LabelSelector) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	for i, e := range s.MatchExpressions {
		if !slices.Contains(labelSelectorOperators(), e.Operator) {
			errs = append(errs, field.NotSupported(path.Child("matchExpressions").Index(i).Child("operator"), e.Operator, labelSelectorOperators()))
		}
	}
	return errs
}
