package requirements

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Parse builds one requirement with the schema's key normalisation, and
// validates it (see ValidateExpression). minValues 0 means none.
func (s Schema) Parse(key string, op Operator, values []string, minValues int) (Requirement, error) {
	var mv *int
	if minValues != 0 {
		mv = &minValues
	}
	if errs := s.ValidateExpression(nil, key, op, values, mv); len(errs) > 0 {
		return Requirement{}, errs.ToAggregate()
	}
	r, err := New(s.Normalize(key), op, values...)
	if err != nil {
		return Requirement{}, err
	}
	return r.WithMinValues(minValues), nil
}

// FromNodeSelectorRequirements builds the set of a node-selector expression
// list (expressions are ANDed). Keys are normalised; every expression is
// validated and all errors are returned together, each with its field path
// under path (nil: "matchExpressions").
func (s Schema) FromNodeSelectorRequirements(path *field.Path, exprs []corev1.NodeSelectorRequirement) (Requirements, error) {
	if path == nil {
		path = field.NewPath("matchExpressions")
	}
	rs, errs := s.fromExpressions(path, exprs)
	if len(errs) > 0 {
		return Requirements{}, errs.ToAggregate()
	}
	return rs, nil
}

func (s Schema) fromExpressions(path *field.Path, exprs []corev1.NodeSelectorRequirement) (Requirements, field.ErrorList) {
	var errs field.ErrorList
	reqs := make([]Requirement, 0, len(exprs))
	for i, e := range exprs {
		p := path.Index(i)
		if es := s.ValidateExpression(p, e.Key, Operator(e.Operator), e.Values, nil); len(es) > 0 {
			errs = append(errs, es...)
			continue
		}
		r, err := New(s.Normalize(e.Key), Operator(e.Operator), e.Values...)
		if err != nil { // unreachable: ValidateExpression checks what New checks
			errs = append(errs, field.Invalid(p, e.Values, err.Error()))
			continue
		}
		reqs = append(reqs, r)
	}
	return NewRequirements(reqs...), errs
}

// FromNodeSelectorTerm builds the set of one node-selector term. matchFields
// is not supported (it pins a pod to a node by name, which a node that does
// not exist yet cannot satisfy) and is an error.
func (s Schema) FromNodeSelectorTerm(path *field.Path, term corev1.NodeSelectorTerm) (Requirements, error) {
	if path == nil {
		path = field.NewPath("nodeSelectorTerm")
	}
	rs, errs := s.fromTerm(path, term)
	if len(errs) > 0 {
		return Requirements{}, errs.ToAggregate()
	}
	return rs, nil
}

func (s Schema) fromTerm(path *field.Path, term corev1.NodeSelectorTerm) (Requirements, field.ErrorList) {
	if len(term.MatchFields) > 0 {
		return Requirements{}, field.ErrorList{field.Invalid(path.Child("matchFields"), len(term.MatchFields), "matchFields is not supported for provisioning")}
	}
	return s.fromExpressions(path.Child("matchExpressions"), term.MatchExpressions)
}

// FromLabels builds In requirements from a label map (a nodeSelector, a
// NodePool's template labels, a node's labels), keys normalised. Keys are
// taken as given; callers validate user input with ValidateLabels first.
func (s Schema) FromLabels(labels map[string]string) Requirements {
	reqs := make([]Requirement, 0, len(labels))
	for k, v := range labels {
		reqs = append(reqs, In(s.Normalize(k), v))
	}
	return NewRequirements(reqs...)
}

// ForPod builds a pod's requirements: its nodeSelector ANDed with one
// required node-affinity term (term may be nil). Keys are normalised and
// restricted keys rejected. Every problem is reported, in a deterministic
// order, with its field path under "spec".
func (s Schema) ForPod(nodeSelector map[string]string, term *corev1.NodeSelectorTerm) (Requirements, error) {
	spec := field.NewPath("spec")
	selector := spec.Child("nodeSelector")
	errs := s.ValidateLabels(selector, nodeSelector)
	for _, k := range slices.Sorted(maps.Keys(nodeSelector)) {
		errs = append(errs, s.ValidateRestricted(selector.Key(k), k)...)
	}
	var tr Requirements
	if term != nil {
		path := spec.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		var termErrs field.ErrorList
		tr, termErrs = s.fromTerm(path, *term)
		errs = append(errs, termErrs...)
		for i, e := range term.MatchExpressions {
			errs = append(errs, s.ValidateRestricted(path.Child("matchExpressions").Index(i).Child("key"), e.Key)...)
		}
	}
	if len(errs) > 0 {
		return Requirements{}, errs.ToAggregate()
	}
	return s.FromLabels(nodeSelector).Intersect(tr), nil
}
