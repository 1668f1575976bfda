package nodepool

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Admission limits of Karpenter's NodePool CRD.
const (
	// MaxRequirements caps requirements plus template labels (each label
	// becomes a requirement of the NodeClaim).
	MaxRequirements = 100
	// MaxWeight is the largest spec.weight; the smallest is 1.
	MaxWeight = 100
	// MaxBudgets caps spec.disruption.budgets.
	MaxBudgets = 50
)

// Never is the expireAfter and consolidateAfter value that disables them.
const Never = "Never"

// Validate checks a NodePool as Karpenter's admission (CRD schema and CEL
// rules) would, and returns every problem. Every error's Field starts with
// the pool (`nodepool "gpu": spec.template.spec.requirements[0].operator`),
// so each message names the NodePool and the field path. Errors come in
// field order; label and limit keys in sorted order.
//
// Rules:
//   - apiVersion and kind, when set, are karpenter.sh/v1 NodePool;
//   - metadata.name is a DNS subdomain of at most 63 characters (it becomes
//     the value of the karpenter.sh/nodepool label);
//   - spec.weight is within 1..100 when set; spec.replicas is not negative;
//   - requirements plus template labels number at most 100; each requirement
//     passes schema.ValidateExpression (key, operator, values, minValues
//     1..50 and at most the number of In values);
//   - neither requirements nor template labels use a restricted key
//     (schema.IsRestricted), karpenter.sh/nodepool or kubernetes.io/hostname;
//   - karpenter.sh/capacity-type In lists at least one of on-demand, spot
//     and reserved (the others are dropped by NewTemplate, B-042); a
//     capacity-type label is one of them;
//   - template labels are valid labels, annotations valid annotations;
//   - taints and startup taints have a key, a valid value and an effect of
//     NoSchedule, PreferNoSchedule or NoExecute, and no key+effect twice in
//     either list;
//   - limits are not negative;
//   - expireAfter and consolidateAfter are "Never" or a duration written as
//     Karpenter's CRD accepts it: whole numbers of h, m and s ("720h",
//     "1h30m"); terminationGracePeriod and budget durations are not negative;
//   - consolidationPolicy is WhenEmpty or WhenEmptyOrUnderutilized;
//   - at most 50 budgets, each with nodes a count or a percentage ("10",
//     "10%"), reasons among Underutilized, Empty and Drifted, and a
//     duration whenever it has a schedule (a cron expression or @daily and
//     the like).
//
// One departure from Karpenter's CRD: a budget with a duration but no
// schedule is accepted (the CRD wants both or neither). Budgets play no part
// in planning, and the v1beta1 NodePool of the seed article writes exactly
// that (`nodes: 10%`, `duration: 1h`).
//
// nodeClassRef is optional (the seed manifests users write often omit it);
// when set it needs a kind and a name.
func Validate(np NodePool, schema requirements.Schema) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateMeta(np)...)
	spec := field.NewPath("spec")
	s := np.Spec
	if s.Weight != nil && (*s.Weight < 1 || *s.Weight > MaxWeight) {
		errs = append(errs, field.Invalid(spec.Child("weight"), *s.Weight, fmt.Sprintf("must be within 1..%d", MaxWeight)))
	}
	if s.Replicas != nil && *s.Replicas < 0 {
		errs = append(errs, field.Invalid(spec.Child("replicas"), *s.Replicas, "must not be negative"))
	}
	errs = append(errs, validateTemplate(spec.Child("template"), s.Template, schema)...)
	for _, name := range slices.Sorted(maps.Keys(s.Limits)) {
		if q := s.Limits[name]; q.Sign() < 0 {
			errs = append(errs, field.Invalid(spec.Child("limits").Key(string(name)), q.String(), "must not be negative"))
		}
	}
	if s.Disruption != nil {
		errs = append(errs, validateDisruption(spec.Child("disruption"), *s.Disruption)...)
	}
	return named(np.Name, errs)
}

func validateMeta(np NodePool) field.ErrorList {
	var errs field.ErrorList
	if v := np.APIVersion; v != "" && v != APIVersionV1 {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), v, []string{APIVersionV1}))
	}
	if k := np.Kind; k != "" && k != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), k, []string{Kind}))
	}
	name := field.NewPath("metadata", "name")
	if np.Name == "" {
		return append(errs, field.Required(name, ""))
	}
	msgs := validation.IsDNS1123Subdomain(np.Name)
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(name, np.Name, msg))
	}
	if len(msgs) == 0 && len(np.Name) > validation.LabelValueMaxLength {
		errs = append(errs, field.Invalid(name, np.Name, fmt.Sprintf(
			"must be no more than %d characters: it becomes the value of label %s", validation.LabelValueMaxLength, requirements.LabelNodePool)))
	}
	return errs
}

func validateTemplate(path *field.Path, t NodeClaimTemplate, schema requirements.Schema) field.ErrorList {
	var errs field.ErrorList
	meta := path.Child("metadata")
	labels := t.ObjectMeta.Labels
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		p := meta.Child("labels").Key(k)
		errs = append(errs, schema.ValidateLabels(meta.Child("labels"), map[string]string{k: labels[k]})...)
		errs = append(errs, validateKey(p, k, schema)...)
		if schema.Normalize(k) == requirements.LabelCapacityType && !slices.Contains(capacityTypes(), labels[k]) {
			errs = append(errs, field.NotSupported(p, labels[k], capacityTypes()))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.ObjectMeta.Annotations)) {
		errs = append(errs, apivalidation.ValidateAnnotations(map[string]string{k: t.ObjectMeta.Annotations[k]}, meta.Child("annotations"))...)
	}
	spec := path.Child("spec")
	s := t.Spec
	reqs := spec.Child("requirements")
	if n := len(s.Requirements) + len(labels); n > MaxRequirements {
		e := field.TooMany(reqs, n, MaxRequirements)
		e.Detail = fmt.Sprintf("%d requirements plus %d template labels (each label is a requirement too) must be at most %d",
			len(s.Requirements), len(labels), MaxRequirements)
		errs = append(errs, e)
	}
	for i, r := range s.Requirements {
		errs = append(errs, validateRequirement(reqs.Index(i), r, schema)...)
	}
	errs = append(errs, validateTaints(spec.Child("taints"), s.Taints)...)
	errs = append(errs, validateTaints(spec.Child("startupTaints"), s.StartupTaints)...)
	if ref := s.NodeClassRef; ref != nil {
		p := spec.Child("nodeClassRef")
		if ref.Kind == "" {
			errs = append(errs, field.Required(p.Child("kind"), ""))
		}
		if ref.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
	}
	if s.ExpireAfter != nil {
		errs = append(errs, validateDurationOrNever(spec.Child("expireAfter"), *s.ExpireAfter)...)
	}
	if d := s.TerminationGracePeriod; d != nil && d.Duration < 0 {
		errs = append(errs, field.Invalid(spec.Child("terminationGracePeriod"), d.Duration.String(), "must not be negative"))
	}
	return errs
}

func validateRequirement(path *field.Path, r NodeSelectorRequirementWithMinValues, schema requirements.Schema) field.ErrorList {
	op := requirements.Operator(r.Operator)
	errs := schema.ValidateExpression(path, r.Key, op, r.Values, r.MinValues)
	errs = append(errs, validateKey(path.Child("key"), r.Key, schema)...)
	if schema.Normalize(r.Key) == requirements.LabelCapacityType && op == requirements.OpIn && len(r.Values) > 0 &&
		!slices.ContainsFunc(r.Values, isCapacityType) {
		errs = append(errs, field.Invalid(path.Child("values"), r.Values,
			fmt.Sprintf("%s needs at least one of %s", requirements.LabelCapacityType, strings.Join(capacityTypes(), ", "))))
	}
	return errs
}

// validateKey forbids keys users may not constrain in a NodePool.
func validateKey(path *field.Path, key string, schema requirements.Schema) field.ErrorList {
	switch schema.Normalize(key) {
	case requirements.LabelNodePool:
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("label %q is set by Karpenter to the NodePool's name", key))}
	case requirements.LabelHostname:
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("label %q is restricted: every node gets its own", key))}
	}
	return schema.ValidateRestricted(path, key)
}

// capacityTypes are the values of karpenter.sh/capacity-type, sorted.
func capacityTypes() []string {
	return []string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeReserved, requirements.CapacityTypeSpot}
}

func isCapacityType(v string) bool { return slices.Contains(capacityTypes(), v) }

func taintEffects() []string {
	return []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}
}

func validateTaints(path *field.Path, taints []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range taints {
		p := path.Index(i)
		if t.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), ""))
		}
		for _, msg := range validation.IsQualifiedName(t.Key) {
			if t.Key != "" {
				errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
			}
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
		if !slices.Contains(taintEffects(), string(t.Effect)) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, taintEffects()))
		}
		id := t.Key + ":" + string(t.Effect)
		if seen[id] {
			errs = append(errs, field.Duplicate(p, id))
		}
		seen[id] = true
	}
	return errs
}

func validateDisruption(path *field.Path, d Disruption) field.ErrorList {
	var errs field.ErrorList
	if d.ConsolidateAfter != nil {
		errs = append(errs, validateDurationOrNever(path.Child("consolidateAfter"), *d.ConsolidateAfter)...)
	}
	switch d.ConsolidationPolicy {
	case "", ConsolidationWhenEmpty, ConsolidationWhenEmptyOrUnderutilized, ConsolidationBalanced:
	default:
		errs = append(errs, field.NotSupported(path.Child("consolidationPolicy"), d.ConsolidationPolicy,
			[]string{ConsolidationWhenEmpty, ConsolidationWhenEmptyOrUnderutilized, ConsolidationBalanced}))
	}
	budgets := path.Child("budgets")
	if len(d.Budgets) > MaxBudgets {
		errs = append(errs, field.TooMany(budgets, len(d.Budgets), MaxBudgets))
	}
	for i, b := range d.Budgets {
		errs = append(errs, validateBudget(budgets.Index(i), b)...)
	}
	return errs
}

func disruptionReasons() []string { return []string{"Drifted", "Empty", "Underutilized"} }

func validateBudget(path *field.Path, b Budget) field.ErrorList {
	var errs field.ErrorList
	if !isBudgetNodes(b.Nodes) {
		errs = append(errs, field.Invalid(path.Child("nodes"), b.Nodes, `must be a count ("10") or a percentage ("10%")`))
	}
	for j, r := range b.Reasons {
		if !slices.Contains(disruptionReasons(), r) {
			errs = append(errs, field.NotSupported(path.Child("reasons").Index(j), r, disruptionReasons()))
		}
	}
	if b.Schedule != nil && b.Duration == nil {
		errs = append(errs, field.Required(path.Child("duration"), "a schedule needs a duration"))
	}
	if b.Schedule != nil && !isSchedule(*b.Schedule) {
		errs = append(errs, field.Invalid(path.Child("schedule"), *b.Schedule, "must be a cron expression of five fields or @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"))
	}
	if b.Duration != nil && b.Duration.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("duration"), b.Duration.Duration.String(), "must not be negative"))
	}
	return errs
}

// isBudgetNodes matches Karpenter's pattern ^((100|[0-9]{1,2})%|[0-9]+)$.
func isBudgetNodes(s string) bool {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		return pct == "100" || (len(pct) >= 1 && len(pct) <= 2 && isDigits(pct))
	}
	return isDigits(s)
}

// isSchedule matches Karpenter's pattern: a @macro or five fields.
func isSchedule(s string) bool {
	switch s {
	case "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly":
		return true
	}
	return len(strings.Fields(s)) == 5
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validateDurationOrNever accepts "Never" or Karpenter's duration pattern
// ^([0-9]+(s|m|h))+$ (whole numbers only, no sign, no ms or days) that
// time.ParseDuration can hold.
func validateDurationOrNever(path *field.Path, s string) field.ErrorList {
	if s == Never || isKarpenterDuration(s) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, s, `must be "Never" or a duration of whole hours, minutes and seconds ("720h", "1h30m")`)}
}

func isKarpenterDuration(s string) bool {
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || !strings.ContainsRune("hms", rune(rest[i])) {
			return false
		}
		if _, err := strconv.ParseInt(rest[:i], 10, 64); err != nil {
			return false
		}
		rest = rest[i+1:]
	}
	if s == "" {
		return false
	}
	_, err := time.ParseDuration(s)
	return err == nil
}
