package apicheck

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func affinity(path *field.Path, a *corev1.Affinity) field.ErrorList {
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := path.Child("nodeAffinity")
		errs = append(errs, NodeSelector(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), na.RequiredDuringSchedulingIgnoredDuringExecution)...)
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, weight(tp.Child("weight"), t.Weight)...)
			errs = append(errs, NodeSelectorTerm(tp.Child("preference"), t.Preference)...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, podAffinityTerms(path.Child("podAffinity"), pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, podAffinityTerms(path.Child("podAntiAffinity"), pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution)...)
	}
	return errs
}

// weight checks the weight of a preferred term: 1 to 100.
func weight(path *field.Path, w int32) field.ErrorList {
	if w < 1 || w > 100 {
		return field.ErrorList{field.Invalid(path, w, "must be in the range 1-100")}
	}
	return nil
}

func podAffinityTerms(path *field.Path, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm) field.ErrorList {
	var errs field.ErrorList
	for i, t := range required {
		errs = append(errs, podAffinityTerm(path.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i), t)...)
	}
	for i, t := range preferred {
		p := path.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, weight(p.Child("weight"), t.Weight)...)
		errs = append(errs, podAffinityTerm(p.Child("podAffinityTerm"), t.PodAffinityTerm)...)
	}
	return errs
}

func podAffinityTerm(path *field.Path, t corev1.PodAffinityTerm) field.ErrorList {
	errs := LabelSelector(path.Child("labelSelector"), t.LabelSelector)
	errs = append(errs, LabelSelector(path.Child("namespaceSelector"), t.NamespaceSelector)...)
	errs = append(errs, topologyKey(path.Child("topologyKey"), t.TopologyKey)...)
	for i, k := range t.MatchLabelKeys {
		errs = append(errs, LabelKey(path.Child("matchLabelKeys").Index(i), k)...)
	}
	for i, k := range t.MismatchLabelKeys {
		errs = append(errs, LabelKey(path.Child("mismatchLabelKeys").Index(i), k)...)
	}
	return errs
}

func topologyKey(path *field.Path, key string) field.ErrorList {
	if key == "" {
		return field.ErrorList{field.Required(path, "can not be empty")}
	}
	return LabelKey(path, key)
}

func unsatisfiableActions() []corev1.UnsatisfiableConstraintAction {
	return []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
}

// spread checks topology spread constraints: maxSkew at least 1, a
// topology key, whenUnsatisfiable DoNotSchedule or ScheduleAnyway,
// minDomains at least 1 and only with DoNotSchedule, the policies Honor or
// Ignore, the selector, and no two constraints on the same key and action.
func spread(path *field.Path, cs []corev1.TopologySpreadConstraint) field.ErrorList {
	var errs field.ErrorList
	type pair struct {
		key    string
		action corev1.UnsatisfiableConstraintAction
	}
	seen := map[pair]bool{}
	for i, c := range cs {
		p := path.Index(i)
		if c.MaxSkew < 1 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		errs = append(errs, topologyKey(p.Child("topologyKey"), c.TopologyKey)...)
		if !slices.Contains(unsatisfiableActions(), c.WhenUnsatisfiable) {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, unsatisfiableActions()))
		}
		if m := c.MinDomains; m != nil && *m < 1 {
			errs = append(errs, field.Invalid(p.Child("minDomains"), *m, "must be greater than zero"))
		} else if m != nil && c.WhenUnsatisfiable != corev1.DoNotSchedule {
			errs = append(errs, field.Invalid(p.Child("minDomains"), *m, "can only be used when whenUnsatisfiable is DoNotSchedule"))
		}
		errs = append(errs, policy(p.Child("nodeAffinityPolicy"), c.NodeAffinityPolicy)...)
		errs = append(errs, policy(p.Child("nodeTaintsPolicy"), c.NodeTaintsPolicy)...)
		errs = append(errs, LabelSelector(p.Child("labelSelector"), c.LabelSelector)...)
		for j, k := range c.MatchLabelKeys {
			errs = append(errs, LabelKey(p.Child("matchLabelKeys").Index(j), k)...)
		}
		if k := (pair{c.TopologyKey, c.WhenUnsatisfiable}); seen[k] {
			errs = append(errs, field.Duplicate(p, "{"+c.TopologyKey+", "+string(c.WhenUnsatisfiable)+"}"))
		} else {
			seen[k] = true
		}
	}
	return errs
}

func policy(path *field.Path, p *corev1.NodeInclusionPolicy) field.ErrorList {
	if p == nil || *p == corev1.NodeInclusionPolicyHonor || *p == corev1.NodeInclusionPolicyIgnore {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, *p, []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore})}
}

// TaintEffects are the effects a taint may have.
func TaintEffects() []corev1.TaintEffect {
	return []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}
}

// Tolerations checks tolerations: a key (when given) is a label key, an
// empty key goes with operator Exists, the operator is Exists or Equal, an
// Exists toleration has no value, an Equal one a label value, the effect is
// a taint effect (or empty, every effect), and tolerationSeconds goes with
// NoExecute.
func Tolerations(path *field.Path, ts []corev1.Toleration) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		p := path.Index(i)
		if t.Key != "" {
			errs = append(errs, LabelKey(p.Child("key"), t.Key)...)
		} else if t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator, "operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			errs = append(errs, LabelValue(p.Child("value"), t.Value)...)
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []corev1.TolerationOperator{corev1.TolerationOpExists, corev1.TolerationOpEqual}))
		}
		if t.Effect != "" && !slices.Contains(TaintEffects(), t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, TaintEffects()))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
	}
	return errs
}

// Taints checks a node's taints: a key (a label key), a value (a label
// value), an effect among TaintEffects, and no two taints with the same key
// and effect.
func Taints(path *field.Path, ts []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	seen := map[[2]string]bool{}
	for i, t := range ts {
		p := path.Index(i)
		if t.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), ""))
		} else {
			errs = append(errs, LabelKey(p.Child("key"), t.Key)...)
		}
		errs = append(errs, LabelValue(p.Child("value"), t.Value)...)
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(p.Child("effect"), ""))
		case !slices.Contains(TaintEffects(), t.Effect):
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, TaintEffects()))
		}
		if k := [2]string{t.Key, string(t.Effect)}; seen[k] {
			errs = append(errs, field.Duplicate(p, "taints must be unique by key and effect pair"))
		} else {
			seen[k] = true
		}
	}
	return errs
}

// Node checks a node's labels and taints.
func Node(n *corev1.Node) field.ErrorList {
	errs := Labels(field.NewPath("metadata", "labels"), n.Labels)
	return append(errs, Taints(field.NewPath("spec", "taints"), n.Spec.Taints)...)
}
