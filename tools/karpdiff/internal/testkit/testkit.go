package testkit

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// PodBuilder builds a pending pod.
type PodBuilder struct{ p *corev1.Pod }

// Pod starts a pod in namespace default with one container and no requests.
func Pod(name string) *PodBuilder {
	return &PodBuilder{p: &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}}}}},
	}}
}

// Obj returns the pod.
func (b *PodBuilder) Obj() *corev1.Pod { return b.p }

// Request adds a container request (cpu "500m", memory "1Gi", ...).
func (b *PodBuilder) Request(name corev1.ResourceName, q string) *PodBuilder {
	b.p.Spec.Containers[0].Resources.Requests[name] = resource.MustParse(q)
	return b
}

// Label sets a pod label.
func (b *PodBuilder) Label(k, v string) *PodBuilder { b.p.Labels[k] = v; return b }

// Node binds the pod to a node (a running pod).
func (b *PodBuilder) Node(n string) *PodBuilder { b.p.Spec.NodeName = n; return b }

// NodeSelector adds a nodeSelector entry.
func (b *PodBuilder) NodeSelector(k, v string) *PodBuilder {
	if b.p.Spec.NodeSelector == nil {
		b.p.Spec.NodeSelector = map[string]string{}
	}
	b.p.Spec.NodeSelector[k] = v
	return b
}

// Tolerate adds a toleration of key=value with the effect.
func (b *PodBuilder) Tolerate(key, value string, effect corev1.TaintEffect) *PodBuilder {
	b.p.Spec.Tolerations = append(b.p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
	return b
}

// HostPort exposes a TCP host port.
func (b *PodBuilder) HostPort(port int32) *PodBuilder {
	b.p.Spec.Containers[0].Ports = append(b.p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return b
}

// Spread adds a topology spread constraint.
func (b *PodBuilder) Spread(c corev1.TopologySpreadConstraint) *PodBuilder {
	b.p.Spec.TopologySpreadConstraints = append(b.p.Spec.TopologySpreadConstraints, c)
	return b
}

func (b *PodBuilder) affinity() *corev1.Affinity {
	if b.p.Spec.Affinity == nil {
		b.p.Spec.Affinity = &corev1.Affinity{}
	}
	return b.p.Spec.Affinity
}

// RequireNode adds a required node-affinity term (OR'd with the others).
func (b *PodBuilder) RequireNode(reqs ...corev1.NodeSelectorRequirement) *PodBuilder {
	a := b.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{}}
	}
	ns := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: reqs})
	return b
}

// Affinity adds a required pod-affinity term to pods labelled app=target.
func (b *PodBuilder) Affinity(target, topologyKey string) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(target, topologyKey))
	return b
}

// AntiAffinity adds a required pod anti-affinity term to pods labelled
// app=target.
func (b *PodBuilder) AntiAffinity(target, topologyKey string) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(target, topologyKey))
	return b
}

// Claim mounts a PersistentVolumeClaim.
func (b *PodBuilder) Claim(name string) *PodBuilder {
	b.p.Spec.Volumes = append(b.p.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
	return b
}

func term(target, key string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": target}}, TopologyKey: key}
}

// Type builds a catalog type with cpu cores, memory GiB and a pod cap, an
// on-demand offering at price in each zone, no overhead.
func Type(name string, cpu, memGiB, pods int64, price float64, zones ...string) instancetypes.InstanceType {
	it := instancetypes.InstanceType{
		Name:   name,
		Labels: map[string]string{corev1.LabelInstanceTypeStable: name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux"},
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(memGiB<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
		},
	}
	for _, z := range zones {
		it.Offerings = append(it.Offerings, instancetypes.Offering{Zone: z, CapacityType: "on-demand", Price: price})
	}
	return it
}

// Catalog builds a catalog of types; it panics on invalid types (tests only).
func Catalog(types ...instancetypes.InstanceType) instancetypes.Catalog {
	c, err := instancetypes.NewCatalog(types)
	if err != nil {
		panic(err)
	}
	return c
}

// NodePool builds a NodePool with no requirements.
func NodePool(name string) nodepool.NodePool {
	np := nodepool.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.Requirements = []nodepool.NodeSelectorRequirementWithMinValues{}
	return np
}

// Node builds an existing node with labels (hostname added) and allocatable
// cpu cores and pods.
func Node(name string, cpu, pods int64, labels map[string]string) *corev1.Node {
	l := map[string]string{corev1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}, Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}}}
}
