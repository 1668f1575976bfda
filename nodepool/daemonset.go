package nodepool

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/requirements"
)

// DaemonSet is what a DaemonSet costs every node it runs on, and where it
// runs, parsed once by NewDaemonSet. It is an immutable value: accessors
// return copies.
type DaemonSet struct {
	namespace, name string
	requests        corev1.ResourceList
	tolerations     []corev1.Toleration
	hostPorts       []HostPort
	// alternatives are the node constraints the DS pod accepts: its
	// nodeSelector ∩ one required node-affinity term each. The pod runs on
	// a node that satisfies any one of them; none means nowhere.
	alternatives []requirements.Requirements
	skipped      field.ErrorList
	// schema decides which undefined keys a template may leave undefined
	// (well-known ones). It is shared, read-only.
	schema requirements.Schema
}

// NewDaemonSet parses a DaemonSet's pod template once:
//
//   - Requests: internal/podrequests.Of of the pod template spec, as the
//     kubelet counts it (init containers and sidecars, overhead, requests
//     defaulted from limits) plus one "pods" slot.
//   - Tolerations: the template's, plus those the DaemonSet controller adds
//     to every DaemonSet pod (not-ready and unreachable NoExecute;
//     disk-pressure, memory-pressure, pid-pressure and unschedulable
//     NoSchedule; network-unavailable NoSchedule for hostNetwork pods).
//   - HostPorts: the pod's host ports (PodHostPorts), sorted and unique.
//   - node constraints: nodeSelector ∩ each required node-affinity term, one
//     alternative per term, or just the nodeSelector when there are no terms.
//     Keys are normalised by schema. A term that does not parse (a bad
//     operator or value, matchFields) or is empty (Kubernetes: an empty term
//     matches no node) is skipped; an invalid nodeSelector means the
//     DaemonSet runs nowhere. Neither is an error: the DaemonSet simply adds
//     nothing where it cannot run, and SelectorErrors says why.
//   - Preferred node affinity is ignored: it never stops a DaemonSet pod
//     from running (B-154).
//
// An empty namespace reads as "default". The error is for a nil DaemonSet or
// one without a name. ds is not modified or retained.
func NewDaemonSet(ds *appsv1.DaemonSet, schema requirements.Schema) (DaemonSet, error) {
	if ds == nil {
		return DaemonSet{}, errors.New("daemonset: nil DaemonSet")
	}
	if ds.Name == "" {
		return DaemonSet{}, fmt.Errorf("daemonset in namespace %q: metadata.name: Required value", ds.Namespace)
	}
	spec := &ds.Spec.Template.Spec
	d := DaemonSet{
		namespace:   kube.Namespace(ds.Namespace),
		name:        ds.Name,
		requests:    podrequests.Of(spec),
		tolerations: daemonTolerations(spec),
		hostPorts:   sortedHostPorts(spec),
		schema:      schema,
	}
	d.alternatives, d.skipped = alternatives(spec, schema)
	return d, nil
}

// daemonTolerations copies the pod's tolerations and appends the ones the
// DaemonSet controller adds to every DaemonSet pod.
func daemonTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := make([]corev1.Toleration, 0, len(spec.Tolerations)+7)
	for i := range spec.Tolerations {
		out = append(out, *spec.Tolerations[i].DeepCopy())
	}
	add := func(key string, effect corev1.TaintEffect) {
		out = append(out, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
	return out
}

// alternatives returns the DS pod's node constraints and the selector
// errors that removed some (or all) of them.
func alternatives(spec *corev1.PodSpec, schema requirements.Schema) ([]requirements.Requirements, field.ErrorList) {
	podSpec := field.NewPath("spec", "template", "spec")
	if errs := schema.ValidateLabels(podSpec.Child("nodeSelector"), spec.NodeSelector); len(errs) > 0 {
		slices.SortFunc(errs, func(a, b *field.Error) int { return cmp.Compare(a.Error(), b.Error()) })
		return nil, errs
	}
	base := schema.FromLabels(spec.NodeSelector)
	var required *corev1.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if required == nil {
		return keepSatisfiable([]requirements.Requirements{base}), nil
	}
	termsPath := podSpec.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	var (
		out     []requirements.Requirements
		skipped field.ErrorList
	)
	for i, term := range required.NodeSelectorTerms {
		p := termsPath.Index(i)
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			skipped = append(skipped, field.Invalid(p, "", "an empty term matches no node"))
			continue
		}
		tr, err := schema.FromNodeSelectorTerm(p, term)
		if err != nil {
			skipped = append(skipped, field.Invalid(p, field.OmitValueType{}, err.Error()))
			continue
		}
		out = append(out, base.Intersect(tr))
	}
	return keepSatisfiable(out), skipped
}

// keepSatisfiable drops alternatives no node satisfies (zone In [a] and
// zone In [b] in one term).
func keepSatisfiable(alts []requirements.Requirements) []requirements.Requirements {
	return slices.DeleteFunc(alts, func(rs requirements.Requirements) bool {
		_, empty := rs.Empty()
		return empty
	})
}

// Namespace returns the DaemonSet's namespace.
func (d DaemonSet) Namespace() string { return d.namespace }

// Name returns the DaemonSet's name.
func (d DaemonSet) Name() string { return d.name }

// String returns "namespace/name".
func (d DaemonSet) String() string { return d.namespace + "/" + d.name }

// Requests returns a copy of what one DaemonSet pod requests, "pods" included.
func (d DaemonSet) Requests() corev1.ResourceList { return d.requests.DeepCopy() }

// Tolerations returns a copy of the DS pod's tolerations (see NewDaemonSet).
func (d DaemonSet) Tolerations() []corev1.Toleration {
	out := make([]corev1.Toleration, len(d.tolerations))
	for i := range d.tolerations {
		d.tolerations[i].DeepCopyInto(&out[i])
	}
	return out
}

// HostPorts returns a copy of the DS pod's host ports, sorted.
func (d DaemonSet) HostPorts() []HostPort { return slices.Clone(d.hostPorts) }

// Alternatives returns the node constraints the DS pod accepts, one per
// usable required term (see NewDaemonSet); none means it runs nowhere.
func (d DaemonSet) Alternatives() []requirements.Requirements { return slices.Clone(d.alternatives) }

// SelectorErrors returns why node-affinity terms were skipped or why the
// nodeSelector made the DaemonSet run nowhere; nil when nothing was skipped.
func (d DaemonSet) SelectorErrors() field.ErrorList {
	if len(d.skipped) == 0 {
		return nil
	}
	return slices.Clone(d.skipped)
}

// Equal reports whether two DaemonSets are the same (the schema they were
// parsed with is not compared).
func (d DaemonSet) Equal(o DaemonSet) bool {
	return d.namespace == o.namespace && d.name == o.name &&
		equality.Semantic.DeepEqual(d.requests, o.requests) &&
		equality.Semantic.DeepEqual(d.tolerations, o.tolerations) &&
		slices.Equal(d.hostPorts, o.hostPorts) &&
		slices.EqualFunc(d.alternatives, o.alternatives, requirements.Requirements.Equal) &&
		slices.EqualFunc(d.skipped, o.skipped, func(a, b *field.Error) bool { return a.Error() == b.Error() })
}

// RunsDaemonSet reports whether ds would run on a node of this template
// with the given instance type (its requirements, as the catalog derives
// them), which is when its pod's requests count as overhead there:
//
//  1. the DS pod tolerates the template's NoSchedule and NoExecute taints
//     (PreferNoSchedule never keeps a DaemonSet off; startup taints are
//     ignored because they go away, B-149);
//  2. some alternative of ds (see NewDaemonSet) is Compatible with the
//     template's requirements plus karpenter.sh/registered In [true] and
//     karpenter.sh/initialized In [true] (labels every Karpenter node gets,
//     B-156), well-known keys the template leaves undefined being allowed;
//     a custom key the template does not declare is absent (B-153), unless
//     the DS only asks NotIn or DoesNotExist of it (B-154);
//  3. the same alternative Intersects the instance type's requirements on
//     the keys both define: a DS that selects only arm64 adds nothing on
//     amd64 types (B-155), one that asks for a nonexistent instance type
//     adds nothing anywhere (B-153).
//
// So a DS selecting the pool's custom label counts, one matching only via
// its second required term counts, and one with an impossible preferred
// affinity counts (B-154).
func (t Template) RunsDaemonSet(ds DaemonSet, instanceType requirements.Requirements) bool {
	return t.runs(t.daemonTarget(), ds, instanceType)
}

// DaemonSetRunner returns RunsDaemonSet for the template, with what a
// DaemonSet sees of its nodes derived once for all the calls (a caller
// asking about many DaemonSets and instance types).
func (t Template) DaemonSetRunner() func(ds DaemonSet, instanceType requirements.Requirements) bool {
	target := t.daemonTarget()
	return func(ds DaemonSet, instanceType requirements.Requirements) bool {
		return t.runs(target, ds, instanceType)
	}
}

func (t Template) runs(target requirements.Requirements, ds DaemonSet, instanceType requirements.Requirements) bool {
	if _, untolerated := requirements.UntoleratedTaint(t.Taints, ds.tolerations); untolerated {
		return false
	}
	wk := wellKnownOnly{ds.schema}
	return slices.ContainsFunc(ds.alternatives, func(alt requirements.Requirements) bool {
		return target.Compatible(alt, wk) == nil && instanceType.Intersects(alt) == nil
	})
}

// wellKnownOnly is a schema without its Hint method: only the answer
// matters here, so Compatible need not look for typos on every miss.
type wellKnownOnly struct{ s requirements.Schema }

func (w wellKnownOnly) IsWellKnown(key string) bool { return w.s.IsWellKnown(key) }

// daemonTarget is the template's requirements as a DaemonSet sees a node of
// the pool: registered and initialized.
func (t Template) daemonTarget() requirements.Requirements {
	return t.Requirements.Add(
		requirements.In(requirements.LabelNodeRegistered, "true"),
		requirements.In(requirements.LabelNodeInitialized, "true"))
}

// RunningDaemonSets returns the DaemonSets of dss that run on a node of this
// template with the given instance type (see RunsDaemonSet), in dss order.
// Their HostPorts are taken on every such node.
func (t Template) RunningDaemonSets(dss []DaemonSet, instanceType requirements.Requirements) []DaemonSet {
	var out []DaemonSet
	target := t.daemonTarget()
	for _, ds := range dss {
		if t.runs(target, ds, instanceType) {
			out = append(out, ds)
		}
	}
	return out
}

// DaemonSetOverhead returns the sum of the requests of the DaemonSets that
// run on a node of this template with the given instance type (see
// RunsDaemonSet), "pods" included: what such a node gives DaemonSets before
// any pending pod lands. It is an empty list when none runs.
func (t Template) DaemonSetOverhead(dss []DaemonSet, instanceType requirements.Requirements) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, ds := range t.RunningDaemonSets(dss, instanceType) {
		for name, q := range ds.requests {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}
