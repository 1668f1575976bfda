package apicheck

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// LabelKey checks a label key: a qualified name ("prefix/name", the prefix a
// DNS subdomain, the name up to 63 characters).
func LabelKey(path *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	return errs
}

// LabelValue checks a label value: up to 63 characters, alphanumerics,
// '-', '_' and '.', starting and ending with an alphanumeric, or empty.
func LabelValue(path *field.Path, value string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// Labels checks a label map (metadata.labels, spec.nodeSelector), in key
// order; each error's path names the key.
func Labels(path *field.Path, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		errs = append(errs, LabelKey(path.Key(k), k)...)
		errs = append(errs, LabelValue(path.Key(k), labels[k])...)
	}
	return errs
}

func labelSelectorOperators() []metav1.LabelSelectorOperator {
	return []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
}

// LabelSelector checks a label selector: matchLabels as labels; each
// expression's key, operator (In, NotIn, Exists, DoesNotExist), values
// (required by In and NotIn, forbidden with Exists and DoesNotExist) and
// the values as label values. A nil selector is valid.
func LabelSelector(path *field.Path, s *metav1.LabelSelector) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := Labels(path.Child("matchLabels"), s.MatchLabels)
	for i, e := range s.MatchExpressions {
		p := path.Child("matchExpressions").Index(i)
		errs = append(errs, LabelKey(p.Child("key"), e.Key)...)
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(e.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(e.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), e.Operator, labelSelectorOperators()))
		}
		for j, v := range e.Values {
			errs = append(errs, LabelValue(p.Child("values").Index(j), v)...)
		}
	}
	return errs
}
