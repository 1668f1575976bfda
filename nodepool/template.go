package nodepool

import (
	"errors"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Template is a NodePool as the solver sees it: the starting point of every
// NodeClaim of the pool. Build it with NewTemplate; it is an immutable value.
type Template struct {
	Name   string
	Weight int32
	// Requirements are the pool's requirements, normalised, intersected with
	// its template labels (as In requirements) and karpenter.sh/nodepool In
	// [Name] (and the node-class label when the provider defines one).
	Requirements requirements.Requirements
	// Labels are the template labels plus karpenter.sh/nodepool.
	Labels      map[string]string
	Annotations map[string]string
	// Taints must be tolerated by pods; StartupTaints need not be.
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// Limits caps the total capacity of the pool's nodes; "nodes" caps their count.
	Limits       corev1.ResourceList
	NodeClassRef *NodeClassReference
}

// ResourceNodes is the pseudo-resource of a NodePool limit on the number of nodes.
const ResourceNodes corev1.ResourceName = "nodes"

// Order sorts templates the way the solver tries them: weight descending,
// then name descending (as Karpenter breaks ties). It sorts a copy.
func Order(ts []Template) []Template {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b Template) int {
		if a.Weight != b.Weight {
			if a.Weight > b.Weight {
				return -1
			}
			return 1
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out
}

// HasTaint reports whether the template carries a taint with this effect.
func (t Template) HasTaint(effect corev1.TaintEffect) bool {
	return slices.ContainsFunc(t.Taints, func(x corev1.Taint) bool { return x.Effect == effect })
}

// LabelsCopy returns a copy of the template labels.
func (t Template) LabelsCopy() map[string]string { return maps.Clone(t.Labels) }

// labelEC2NodeClass is the AWS provider's node-class label: a NodePool whose
// nodeClassRef is an EC2NodeClass gives its nodes this label, set to the
// node class's name.
const labelEC2NodeClass = "karpenter.k8s.aws/ec2nodeclass"

const kindEC2NodeClass = "EC2NodeClass"

// NewTemplate validates np (see Validate) and returns the solver's view of it.
//
//   - Requirements = spec.template.spec.requirements (keys normalised by the
//     schema, minValues kept, requirements on one key intersected with the
//     larger minValues; capacity-type In values other than on-demand, spot
//     and reserved dropped, B-042) ∩ template labels as In ∩
//     karpenter.sh/nodepool In [name] ∩, when nodeClassRef.kind is
//     EC2NodeClass, karpenter.k8s.aws/ec2nodeclass In [nodeClassRef.name].
//     Requirements that contradict each other (arch In [amd64] and In
//     [arm64], or a label outside a requirement) are not an error, as in
//     Karpenter: the key's requirement is empty (Requirements.Empty reports
//     it) and no instance type fits the pool.
//   - Labels = template labels (keys normalised) + karpenter.sh/nodepool
//     (+ the ec2nodeclass label).
//   - Weight = spec.weight, or 0 when unset.
//   - Taints, StartupTaints, Limits, Annotations and NodeClassRef are deep
//     copies: the Template shares nothing with np.
//
// Errors: *InvalidError listing every validation error, or *StaticError for
// a static pool (spec.replicas set), which never provisions for pending pods.
func NewTemplate(np NodePool, schema requirements.Schema) (Template, error) {
	if errs := Validate(np, schema); len(errs) > 0 {
		return Template{}, &InvalidError{Name: np.Name, Errs: errs}
	}
	if np.IsStatic() {
		return Template{}, &StaticError{Name: np.Name}
	}
	t, ierr := build(np, schema)
	if ierr != nil {
		return Template{}, ierr
	}
	return t, nil
}

// Templates builds the template of every dynamic pool and returns them in
// the order the solver tries them (see Order: weight descending, then name
// descending, B-161). Static pools (spec.replicas set) are validated and then
// left out, as Karpenter leaves them out (B-163). Errors of all pools are
// joined, each naming its pool (*InvalidError); a name used twice is an
// error on the later pool. On error no template is returned.
func Templates(pools []NodePool, schema requirements.Schema) ([]Template, error) {
	var (
		out  []Template
		errs []error
	)
	seen := map[string]bool{}
	for _, np := range pools {
		if np.Name != "" && seen[np.Name] {
			errs = append(errs, invalid(np.Name, field.ErrorList{field.Duplicate(field.NewPath("metadata", "name"), np.Name)}))
			continue
		}
		seen[np.Name] = true
		if verrs := Validate(np, schema); len(verrs) > 0 {
			errs = append(errs, &InvalidError{Name: np.Name, Errs: verrs})
			continue
		}
		if np.IsStatic() {
			continue
		}
		t, ierr := build(np, schema)
		if ierr != nil {
			errs = append(errs, ierr)
			continue
		}
		out = append(out, t)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return Order(out), nil
}

// build turns a valid NodePool into its Template.
func build(np NodePool, schema requirements.Schema) (Template, *InvalidError) {
	s := np.Spec
	ts := s.Template.Spec
	labels := make(map[string]string, len(s.Template.ObjectMeta.Labels)+2)
	for k, v := range s.Template.ObjectMeta.Labels {
		labels[schema.Normalize(k)] = v
	}
	labels[requirements.LabelNodePool] = np.Name
	if ref := ts.NodeClassRef; ref != nil && ref.Kind == kindEC2NodeClass {
		labels[labelEC2NodeClass] = ref.Name
	}
	reqs := make([]requirements.Requirement, 0, len(ts.Requirements)+len(labels))
	var errs field.ErrorList
	for i, r := range ts.Requirements {
		req, err := requirementOf(r, schema)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "template", "spec", "requirements").Index(i), r.Values, err.Error()))
			continue
		}
		reqs = append(reqs, req)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		reqs = append(reqs, requirements.In(k, labels[k]))
	}
	t := Template{
		Name:          np.Name,
		Requirements:  requirements.NewRequirements(reqs...),
		Labels:        labels,
		Annotations:   maps.Clone(s.Template.ObjectMeta.Annotations),
		Taints:        cloneTaints(ts.Taints),
		StartupTaints: cloneTaints(ts.StartupTaints),
		Limits:        s.Limits.DeepCopy(),
		NodeClassRef:  clonePtr(ts.NodeClassRef),
	}
	if s.Weight != nil {
		t.Weight = *s.Weight
	}
	if len(errs) > 0 {
		return Template{}, invalid(np.Name, errs)
	}
	return t, nil
}

// requirementOf converts one validated NodePool requirement. The error is
// New's, which Validate has already ruled out.
func requirementOf(r NodeSelectorRequirementWithMinValues, schema requirements.Schema) (requirements.Requirement, error) {
	key := schema.Normalize(r.Key)
	op := requirements.Operator(r.Operator)
	values := r.Values
	if key == requirements.LabelCapacityType && op == requirements.OpIn {
		values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return !isCapacityType(v) })
	}
	req, err := requirements.New(key, op, values...)
	if err != nil {
		return requirements.Requirement{}, err
	}
	if r.MinValues != nil {
		req = req.WithMinValues(*r.MinValues)
	}
	return req, nil
}
