package apicheck

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func nodeSelectorOperators() []corev1.NodeSelectorOperator {
	return []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
		corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt}
}

// NodeSelector checks a required node selector (node affinity, a
// PersistentVolume's node affinity): at least one term, each term checked
// by NodeSelectorTerm.
func NodeSelector(path *field.Path, ns *corev1.NodeSelector) field.ErrorList {
	if ns == nil {
		return nil
	}
	terms := path.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(terms, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i, t := range ns.NodeSelectorTerms {
		errs = append(errs, NodeSelectorTerm(terms.Index(i), t)...)
	}
	return errs
}

// NodeSelectorTerm checks one term: each expression by
// NodeSelectorRequirement, and each field expression (only metadata.name,
// In or NotIn, exactly one value).
func NodeSelectorTerm(path *field.Path, t corev1.NodeSelectorTerm) field.ErrorList {
	var errs field.ErrorList
	for i, e := range t.MatchExpressions {
		errs = append(errs, NodeSelectorRequirement(path.Child("matchExpressions").Index(i), e)...)
	}
	for i, e := range t.MatchFields {
		p := path.Child("matchFields").Index(i)
		switch e.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(e.Values) != 1 {
				errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			if slices.Contains(nodeSelectorOperators(), e.Operator) {
				errs = append(errs, field.Invalid(p.Child("operator"), e.Operator, "not a valid selector operator for a node field selector"))
			} else {
				errs = append(errs, field.NotSupported(p.Child("operator"), e.Operator, nodeSelectorOperators()))
			}
		}
		if e.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(p.Child("key"), e.Key, []string{"metadata.name"}))
		}
	}
	return errs
}

// NodeSelectorRequirement checks one expression: its key, its operator, and
// its values: In and NotIn need at least one, Exists and DoesNotExist none,
// Gt and Lt exactly one, an integer.
func NodeSelectorRequirement(path *field.Path, e corev1.NodeSelectorRequirement) field.ErrorList {
	errs := LabelKey(path.Child("key"), e.Key)
	values := path.Child("values")
	switch e.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(e.Values) == 0 {
			errs = append(errs, field.Required(values, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(e.Values) > 0 {
			errs = append(errs, field.Forbidden(values, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(e.Values) != 1 {
			errs = append(errs, field.Required(values, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		} else if _, err := strconv.ParseInt(e.Values[0], 10, 64); err != nil {
			errs = append(errs, field.Invalid(values.Index(0), e.Values[0], "must be an integer when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("operator"), e.Operator, nodeSelectorOperators()))
	}
	return errs
}
