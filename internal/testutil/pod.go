// Package testutil holds fluent builders for test fixtures (pods, nodes,
// NodePools, instance types), so a test case reads as its intent:
//
//	testutil.Pod("web-0").CPU("500m").Memory("1Gi").NodeSelector("topology.kubernetes.io/zone", "us-east-1a").Obj()
//
// Builders never share state; each Obj call returns a fresh object.
package testutil

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodBuilder builds a *corev1.Pod.
type PodBuilder struct{ p *corev1.Pod }

// Pod starts a pending pod in namespace "default" with one container "app".
func Pod(name string) *PodBuilder {
	return &PodBuilder{p: &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}},
	}}
}

// Obj returns a deep copy of the pod built so far.
func (b *PodBuilder) Obj() *corev1.Pod { return b.p.DeepCopy() }

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.p.Namespace = ns; return b }

// Label adds a label.
func (b *PodBuilder) Label(k, v string) *PodBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

// NodeName binds the pod to a node.
func (b *PodBuilder) NodeName(n string) *PodBuilder { b.p.Spec.NodeName = n; return b }

// Request sets a request of the first container.
func (b *PodBuilder) Request(name corev1.ResourceName, q string) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	c.Resources.Requests[name] = resource.MustParse(q)
	return b
}

// Limit sets a limit of the first container.
func (b *PodBuilder) Limit(name corev1.ResourceName, q string) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	c.Resources.Limits[name] = resource.MustParse(q)
	return b
}

// CPU sets the first container's cpu request.
func (b *PodBuilder) CPU(q string) *PodBuilder { return b.Request(corev1.ResourceCPU, q) }

// Memory sets the first container's memory request.
func (b *PodBuilder) Memory(q string) *PodBuilder { return b.Request(corev1.ResourceMemory, q) }

// NodeSelector adds a nodeSelector entry.
func (b *PodBuilder) NodeSelector(k, v string) *PodBuilder {
	if b.p.Spec.NodeSelector == nil {
		b.p.Spec.NodeSelector = map[string]string{}
	}
	b.p.Spec.NodeSelector[k] = v
	return b
}

func (b *PodBuilder) nodeAffinity() *corev1.NodeAffinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	if b.p.Spec.Affinity.NodeAffinity == nil {
		b.p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return b.p.Spec.Affinity.NodeAffinity
}

// Expr is a node-selector expression, for RequiredTerm and PreferredTerm.
func Expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// RequiredTerm adds one required node-affinity term (terms are ORed).
func (b *PodBuilder) RequiredTerm(exprs ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	ns := na.RequiredDuringSchedulingIgnoredDuringExecution
	ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	return b
}

// PreferredTerm adds one preferred node-affinity term.
func (b *PodBuilder) PreferredTerm(weight int32, exprs ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: exprs}})
	return b
}

// Toleration adds a toleration.
func (b *PodBuilder) Toleration(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) *PodBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
	return b
}

// Spread adds a topology spread constraint selecting matchLabels.
func (b *PodBuilder) Spread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, matchLabels map[string]string) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels},
	})
	return b
}

// SpreadConstraint adds a fully specified topology spread constraint.
func (b *PodBuilder) SpreadConstraint(c corev1.TopologySpreadConstraint) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, c)
	return b
}

func (b *PodBuilder) affinity() *corev1.Affinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	return b.p.Spec.Affinity
}

// PodAffinity adds a required pod-affinity term on key selecting matchLabels.
func (b *PodBuilder) PodAffinity(key string, matchLabels map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}})
	return b
}

// PodAntiAffinity adds a required pod-anti-affinity term on key selecting matchLabels.
func (b *PodBuilder) PodAntiAffinity(key string, matchLabels map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}})
	return b
}

// PreferredPodAffinity adds a preferred pod-affinity term.
func (b *PodBuilder) PreferredPodAffinity(weight int32, key string, matchLabels map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}}})
	return b
}

// PreferredPodAntiAffinity adds a preferred pod-anti-affinity term.
func (b *PodBuilder) PreferredPodAntiAffinity(weight int32, key string, matchLabels map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: matchLabels}}})
	return b
}

// HostPort adds a container port with a host port.
func (b *PodBuilder) HostPort(port int32, protocol corev1.Protocol) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: protocol})
	return b
}

// PVC mounts a persistent volume claim.
func (b *PodBuilder) PVC(claim string) *PodBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, corev1.Volume{Name: claim,
		VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	return b
}

// InitContainer adds an init container with cpu and memory requests; sidecar
// makes it a restartable sidecar (restartPolicy Always).
func (b *PodBuilder) InitContainer(name, cpu, memory string, sidecar bool) *PodBuilder {
	c := corev1.Container{Name: name, Image: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}}
	if sidecar {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, c)
	return b
}

// Overhead sets the pod overhead.
func (b *PodBuilder) Overhead(cpu, memory string) *PodBuilder {
	b.p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	return b
}

// Replicas builds n pods, the i-th by build(i) (name it with ReplicaName).
func Replicas(n int, build func(i int) *corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = build(i)
	}
	return out
}

// ReplicaName names the i-th replica of prefix: "prefix-i".
func ReplicaName(prefix string, i int) string { return prefix + "-" + strconv.Itoa(i) }
