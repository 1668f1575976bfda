package gen

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// allocatable is capacity − kubeReserved − systemReserved −
// evictionThreshold, never below zero.
func allocatable(it instancetypes.InstanceType) corev1.ResourceList {
	out := it.Capacity.DeepCopy()
	for _, l := range []corev1.ResourceList{it.Overhead.KubeReserved, it.Overhead.SystemReserved, it.Overhead.EvictionThreshold} {
		for name, q := range l {
			if v, ok := out[name]; ok {
				v.Sub(q)
				if v.Sign() < 0 {
					v = resource.Quantity{}
				}
				out[name] = v
			}
		}
	}
	return out
}

// genNodes writes zero to four existing nodes, each of a catalog type and
// one of its available offerings, some Karpenter's (a NodePool label, most
// initialised), some tainted or cordoned, with running pods (some nodes
// nearly full).
func (b *builder) genNodes() {
	if !b.g.chance(0.4) {
		return
	}
	for i := range b.g.between(1, 4) {
		b.genNode(fmt.Sprintf("node-%d", i))
	}
}

func (b *builder) genNode(name string) {
	g := b.g
	it := pick(g, b.v.types)
	var avail []instancetypes.Offering
	for _, o := range it.Offerings {
		if !o.Unavailable && o.CapacityType != "reserved" {
			avail = append(avail, o)
		}
	}
	if len(avail) == 0 {
		return
	}
	o := pick(g, avail)
	labels := map[string]string{corev1.LabelTopologyZone: o.Zone, "karpenter.sh/capacity-type": o.CapacityType, corev1.LabelHostname: name}
	for k, v := range it.Labels {
		labels[k] = v
	}
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	n.Status.Allocatable = allocatable(it)
	if g.chance(0.5) {
		p := pick(g, b.pools)
		labels["karpenter.sh/nodepool"] = p.name
		for k, v := range p.labels {
			labels[k] = v
		}
		n.Spec.Taints = append(n.Spec.Taints, p.taints...)
		if g.chance(0.85) {
			labels["karpenter.sh/initialized"] = "true"
		} else {
			n.Spec.Taints = append(n.Spec.Taints, p.startupTaints...)
		}
	} else if g.chance(0.3) {
		labels["team"] = pick(g, []string{"a", "b"})
	}
	if g.chance(0.2) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule})
	}
	n.Spec.Unschedulable = g.chance(0.05)
	// The API server refuses two taints with the same key and effect (a
	// pool's taint and its startup taint, or "dedicated" twice): the first
	// stays, after every draw, so that other seeds' scenarios stay as they were.
	n.Spec.Taints = uniqueTaints(n.Spec.Taints)
	b.nodes = append(b.nodes, n)
	b.genRunning(n)
}

// genRunning writes the pods running on a node: up to six, labelled as one
// of the workload groups or as other apps, filling the node to a random
// level (sometimes nearly full); one may carry a required anti-affinity.
func (b *builder) genRunning(n *corev1.Node) {
	g := b.g
	count := g.between(0, 6)
	if count == 0 {
		return
	}
	fill := pick(g, []float64{0.2, 0.5, 0.8, 0.97})
	cpu := n.Status.Allocatable.Cpu().MilliValue()
	mem := n.Status.Allocatable.Memory().Value()
	for i := range count {
		app := pick(g, []string{"run", "g0", "g1", "g2", "cache"})
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("run-%s-%d", n.Name, i), Namespace: "default", Labels: map[string]string{"app": app}}}
		if g.chance(0.3) {
			p.Labels["tier"] = "web"
		}
		p.Spec.NodeName = n.Name
		p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		p.Spec.Containers = []corev1.Container{{Name: "app", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(float64(cpu)*fill)/int64(count), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(float64(mem)*fill)/int64(count), resource.BinarySI),
		}}}}
		if g.chance(0.1) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": pick(g, []string{"g0", "g1", "g2"})}},
				TopologyKey:   pick(g, []string{corev1.LabelHostname, corev1.LabelTopologyZone}),
			}}}}
		}
		b.running = append(b.running, p)
	}
}

// genDaemonSets writes zero to two DaemonSets with small requests; some
// tolerate every taint, some select an architecture, one may use a host
// port.
func (b *builder) genDaemonSets() {
	g := b.g
	if !g.chance(0.35) {
		return
	}
	for i := range g.between(1, 2) {
		name := fmt.Sprintf("ds-%d", i)
		labels := map[string]string{"app": name}
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(g.between(20, 250)), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(g.between(32, 256))<<20, resource.BinarySI),
		}}}}}
		if g.chance(0.5) {
			spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		}
		if len(b.v.arches) > 1 && g.chance(0.3) {
			spec.NodeSelector = map[string]string{corev1.LabelArchStable: pick(g, b.v.arches)}
		}
		if g.chance(0.1) {
			spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9100, HostPort: 9100, Protocol: corev1.ProtocolTCP}}
		}
		ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
		b.daemonSets = append(b.daemonSets, ds)
	}
}

// uniqueTaints keeps the first taint of each key and effect.
func uniqueTaints(ts []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range ts {
		if !slices.ContainsFunc(out, func(o corev1.Taint) bool { return o.Key == t.Key && o.Effect == t.Effect }) {
			out = append(out, t)
		}
	}
	return out
}
