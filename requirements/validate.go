package requirements

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxMinValues is the largest minValues a requirement may carry (Karpenter's
// admission limit).
const MaxMinValues = 50

// ValidateExpression checks one user-written requirement: the key is a
// qualified label name; the operator is known; In and NotIn have values;
// Exists and DoesNotExist have none; Gt, Lt, Gte and Lte have exactly one
// non-negative integer; every value is a valid label value; minValues (when
// set) is within 1..50 and, for In, no more than the number of values.
// Errors carry field paths under path (nil: the key's own path).
func (s Schema) ValidateExpression(path *field.Path, key string, op Operator, values []string, minValues *int) field.ErrorList {
	if path == nil {
		path = field.NewPath(key)
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path.Child("key"), key, msg))
	}
	switch op {
	case OpIn, OpNotIn:
		if len(values) == 0 {
			errs = append(errs, field.Required(path.Child("values"), fmt.Sprintf("key %q: operator %s needs at least one value", key, op)))
		}
	case OpExists, OpDoesNotExist:
		if len(values) != 0 {
			errs = append(errs, field.Invalid(path.Child("values"), values, fmt.Sprintf("key %q: operator %s takes no values", key, op)))
		}
	case OpGt, OpLt, OpGte, OpLte:
		if len(values) != 1 {
			errs = append(errs, field.Invalid(path.Child("values"), values, fmt.Sprintf("key %q: operator %s needs exactly one integer value", key, op)))
			break
		}
		n, err := strconv.ParseInt(values[0], 10, 64)
		if err != nil || n < 0 {
			errs = append(errs, field.Invalid(path.Child("values").Index(0), values[0], fmt.Sprintf("key %q: operator %s needs a non-negative integer", key, op)))
		}
	default:
		return append(errs, field.NotSupported(path.Child("operator"), op, operatorStrings()))
	}
	for i, v := range values {
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(path.Child("values").Index(i), v, msg))
		}
	}
	if minValues != nil {
		mv := *minValues
		switch {
		case mv < 1 || mv > MaxMinValues:
			errs = append(errs, field.Invalid(path.Child("minValues"), mv, fmt.Sprintf("key %q: minValues must be within 1..%d", key, MaxMinValues)))
		case op == OpIn && mv > len(values):
			errs = append(errs, field.Invalid(path.Child("minValues"), mv, fmt.Sprintf("key %q: minValues %d is more than the %d values of In", key, mv, len(values))))
		}
	}
	return errs
}

// ValidateLabels checks a label map (a nodeSelector or template labels):
// qualified keys and valid values.
func (s Schema) ValidateLabels(path *field.Path, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) { // map order must not reach the errors
		v := labels[k]
		for _, msg := range validation.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(path.Key(k), v, msg))
		}
	}
	return errs
}

// ValidateRestricted reports a Forbidden error when users may not constrain key.
func (s Schema) ValidateRestricted(path *field.Path, key string) field.ErrorList {
	if s.IsRestricted(key) {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("label %q is restricted", key))}
	}
	return nil
}

func operatorStrings() []string {
	var out []string
	for _, op := range Operators() {
		out = append(out, string(op))
	}
	return out
}
