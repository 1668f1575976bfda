package testutil

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
)

// NodePoolBuilder builds a nodepool.NodePool.
type NodePoolBuilder struct{ np nodepool.NodePool }

// NodePool starts a karpenter.sh/v1 NodePool with no requirements.
func NodePool(name string) *NodePoolBuilder {
	return &NodePoolBuilder{np: nodepool.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: nodepool.APIVersionV1, Kind: nodepool.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}}
}

// Obj returns a deep copy of the NodePool built so far.
func (b *NodePoolBuilder) Obj() nodepool.NodePool { return b.np.DeepCopy() }

// Weight sets spec.weight.
func (b *NodePoolBuilder) Weight(w int32) *NodePoolBuilder { b.np.Spec.Weight = &w; return b }

// Replicas sets spec.replicas (a static NodePool).
func (b *NodePoolBuilder) Replicas(n int64) *NodePoolBuilder { b.np.Spec.Replicas = &n; return b }

// Limit sets spec.limits[name].
func (b *NodePoolBuilder) Limit(name corev1.ResourceName, q string) *NodePoolBuilder {
	if b.np.Spec.Limits == nil {
		b.np.Spec.Limits = corev1.ResourceList{}
	}
	b.np.Spec.Limits[name] = resource.MustParse(q)
	return b
}

// Label adds a template label.
func (b *NodePoolBuilder) Label(k, v string) *NodePoolBuilder {
	m := &b.np.Spec.Template.ObjectMeta
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[k] = v
	return b
}

// Annotation adds a template annotation.
func (b *NodePoolBuilder) Annotation(k, v string) *NodePoolBuilder {
	m := &b.np.Spec.Template.ObjectMeta
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[k] = v
	return b
}

// Requirement adds a requirement.
func (b *NodePoolBuilder) Requirement(key string, op corev1.NodeSelectorOperator, values ...string) *NodePoolBuilder {
	s := &b.np.Spec.Template.Spec
	s.Requirements = append(s.Requirements, nodepool.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	return b
}

// MinValues sets minValues on the last requirement added.
func (b *NodePoolBuilder) MinValues(n int) *NodePoolBuilder {
	s := &b.np.Spec.Template.Spec
	s.Requirements[len(s.Requirements)-1].MinValues = &n
	return b
}

// Taint adds a taint.
func (b *NodePoolBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	s := &b.np.Spec.Template.Spec
	s.Taints = append(s.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// StartupTaint adds a startup taint.
func (b *NodePoolBuilder) StartupTaint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	s := &b.np.Spec.Template.Spec
	s.StartupTaints = append(s.StartupTaints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// NodeClassRef sets spec.template.spec.nodeClassRef.
func (b *NodePoolBuilder) NodeClassRef(group, kind, name string) *NodePoolBuilder {
	b.np.Spec.Template.Spec.NodeClassRef = &nodepool.NodeClassReference{Group: group, Kind: kind, Name: name}
	return b
}

// ExpireAfter sets spec.template.spec.expireAfter.
func (b *NodePoolBuilder) ExpireAfter(d string) *NodePoolBuilder {
	b.np.Spec.Template.Spec.ExpireAfter = &d
	return b
}

func (b *NodePoolBuilder) disruption() *nodepool.Disruption {
	if b.np.Spec.Disruption == nil {
		b.np.Spec.Disruption = &nodepool.Disruption{}
	}
	return b.np.Spec.Disruption
}

// ConsolidationPolicy sets spec.disruption.consolidationPolicy.
func (b *NodePoolBuilder) ConsolidationPolicy(p string) *NodePoolBuilder {
	b.disruption().ConsolidationPolicy = p
	return b
}

// ConsolidateAfter sets spec.disruption.consolidateAfter.
func (b *NodePoolBuilder) ConsolidateAfter(d string) *NodePoolBuilder {
	b.disruption().ConsolidateAfter = &d
	return b
}

// Budget adds a disruption budget.
func (b *NodePoolBuilder) Budget(budget nodepool.Budget) *NodePoolBuilder {
	d := b.disruption()
	d.Budgets = append(d.Budgets, budget)
	return b
}

// DaemonSet wraps a pod's spec (build it with Pod) into an apps/v1 DaemonSet
// in the pod's namespace, selecting app=name. The pod is copied.
func DaemonSet(name string, pod *corev1.Pod) *appsv1.DaemonSet {
	p := pod.DeepCopy()
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.Namespace},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: p.Spec},
		},
	}
}
