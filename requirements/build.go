package requirements

import (
	"fmt"

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
	var errs field.ErrorList
	reqs := make([]Requirement, 0, len(exprs))
	for i, e := range exprs {
		p := path.Index(i)
		if es := s.ValidateExpression(p, e.Key, Operator(e.Operator), e.Values, nil); len(es) > 0 {
			errs = append(errs, es...)
			continue
		}
		r, err := New(s.Normalize(e.Key), Operator(e.Operator), e.Values...)
		if err != nil {
			errs = append(errs, field.Invalid(p, e.Values, err.Error()))
			continue
		}
		reqs = append(reqs, r)
	}
	if len(errs) > 0 {
		return Requirements{}, errs.ToAggregate()
	}
	return NewRequirements(reqs...), nil
}

// FromNodeSelectorTerm builds the set of one node-selector term. matchFields
// is not supported (it pins a pod to a node by name, which a node that does
// not exist yet cannot satisfy) and is an error.
func (s Schema) FromNodeSelectorTerm(path *field.Path, term corev1.NodeSelectorTerm) (Requirements, error) {
	if path == nil {
		path = field.NewPath("nodeSelectorTerm")
	}
	if len(term.MatchFields) > 0 {
		return Requirements{}, field.Invalid(path.Child("matchFields"), len(term.MatchFields), "matchFields is not supported for provisioning")
	}
	return s.FromNodeSelectorRequirements(path.Child("matchExpressions"), term.MatchExpressions)
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
// restricted keys rejected.
func (s Schema) ForPod(nodeSelector map[string]string, term *corev1.NodeSelectorTerm) (Requirements, error) {
	spec := field.NewPath("spec")
	errs := s.ValidateLabels(spec.Child("nodeSelector"), nodeSelector)
	for k := range nodeSelector {
		if s.IsRestricted(k) {
			errs = append(errs, field.Forbidden(spec.Child("nodeSelector").Key(k), fmt.Sprintf("label %q is restricted", k)))
		}
	}
	if len(errs) > 0 {
		return Requirements{}, errs.ToAggregate()
	}
	rs := s.FromLabels(nodeSelector)
	if term == nil {
		return rs, nil
	}
	tr, err := s.FromNodeSelectorTerm(spec.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"), *term)
	if err != nil {
		return Requirements{}, err
	}
	for r := range tr.All() {
		if s.IsRestricted(r.key) {
			return Requirements{}, fmt.Errorf("required node affinity: label %q is restricted", r.key)
		}
	}
	return rs.Intersect(tr), nil
}
