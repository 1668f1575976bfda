package apicheck

import (
	"strconv"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PodDisruptionBudgetSpec checks what the API server checks of a
// PodDisruptionBudget's budget: minAvailable and maxUnavailable not both
// set, each a count of zero or more or a percentage ("10%") of at most
// 100%, and the label selector.
func PodDisruptionBudgetSpec(path *field.Path, spec *policyv1.PodDisruptionBudgetSpec) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(path, "minAvailable: "+spec.MinAvailable.String()+", maxUnavailable: "+spec.MaxUnavailable.String(),
			"minAvailable and maxUnavailable cannot both be set"))
	}
	errs = append(errs, budgetValue(path.Child("minAvailable"), spec.MinAvailable)...)
	errs = append(errs, budgetValue(path.Child("maxUnavailable"), spec.MaxUnavailable)...)
	return append(errs, LabelSelector(path.Child("selector"), spec.Selector)...)
}

// budgetValue checks a count or percentage of a disruption budget.
func budgetValue(path *field.Path, v *intstr.IntOrString) field.ErrorList {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.Int:
		if v.IntVal < 0 {
			return field.ErrorList{field.Invalid(path, v.IntVal, "must be greater than or equal to 0")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsValidPercent(v.StrVal) {
		errs = append(errs, field.Invalid(path, v.StrVal, msg))
	}
	if len(errs) > 0 {
		return errs
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); err != nil || n > 100 {
		errs = append(errs, field.Invalid(path, v.StrVal, "must not be greater than 100%"))
	}
	return errs
}
