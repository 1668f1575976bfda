package gen

import (
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// group is one workload: its pods share a template.
type group struct {
	name     string
	replicas int
	labels   map[string]string
	spec     corev1.PodSpec
	// claims is the StatefulSet claim template's storage class ("" none).
	claimClass string
	// boundZones are the zones of pre-bound volumes, one per replica (bare
	// pods only).
	bound bool
}

// genWorkloads draws the pod budget (5 to 300) and spends it on up to ten
// groups.
func (b *builder) genWorkloads() {
	g := b.g
	var budget int
	switch g.weighted(3, 4, 3) {
	case 0:
		budget = g.between(5, 20)
	case 1:
		budget = g.between(20, 80)
	default:
		budget = g.between(80, 300)
	}
	var names []string
	for i := 0; budget > 0 && i < 10; i++ {
		n := min(budget, g.between(1, max(1, budget/2+1)))
		if i == 9 {
			n = budget
		}
		budget -= n
		names = append(names, fmt.Sprintf("g%d", i))
		grp := b.genGroup(names[i], n, names)
		b.emit(grp)
	}
}

// genGroup draws a group's pod template: resources, then each kind of
// constraint with its own probability.
func (b *builder) genGroup(name string, replicas int, names []string) *group {
	g := b.g
	grp := &group{name: name, replicas: replicas, labels: map[string]string{"app": name}}
	if g.chance(0.5) {
		grp.labels["tier"] = pick(g, []string{"web", "batch"})
	}
	if g.chance(0.15) {
		grp.labels["version"] = pick(g, []string{"v1", "v2"})
	}
	grp.spec = b.resources()
	spec := &grp.spec
	if g.chance(0.25) {
		spec.NodeSelector = b.nodeSelector()
	}
	req, pref := g.chance(0.25), g.chance(0.2)
	if req || pref {
		spec.Affinity = &corev1.Affinity{NodeAffinity: b.nodeAffinity(req, pref)}
	}
	b.tolerations(spec)
	b.spreads(grp)
	b.podAffinity(grp, names)
	if g.chance(0.07) {
		spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: int32(pick(g, []int{8080, 9100})), Protocol: corev1.ProtocolTCP}}
	}
	if g.chance(0.08) {
		b.volumes(grp)
	}
	return grp
}

// resources sizes the main container as a fraction of a catalog type's
// allocatable (smaller types more often), sometimes with limits only, a
// larger init container, a restartable sidecar, pod overhead or an
// extended resource.
func (b *builder) resources() corev1.PodSpec {
	g := b.g
	types := slices.Clone(b.v.types)
	slices.SortStableFunc(types, func(x, y instancetypesT) int { return x.Capacity.Cpu().Cmp(*y.Capacity.Cpu()) })
	it := types[min(len(types)-1, int(float64(len(types))*g.r.Float64()*g.r.Float64()))]
	alloc := allocatable(it)
	cpu := max(int64(float64(alloc.Cpu().MilliValue())*pick(g, []float64{0.03, 0.08, 0.15, 0.3, 0.45, 0.7, 0.9})), 10)
	mem := max(int64(float64(alloc.Memory().Value())*pick(g, []float64{0.03, 0.08, 0.15, 0.3, 0.45, 0.7, 0.9})), 16<<20)
	list := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(mem>>20<<20, resource.BinarySI),
	}
	if len(b.v.extended) > 0 && g.chance(0.2) {
		list[pick(g, b.v.extended)] = *resource.NewQuantity(int64(pick(g, []int{1, 1, 2})), resource.DecimalSI)
	}
	c := corev1.Container{Name: "c0", Image: "app:1", Resources: corev1.ResourceRequirements{Requests: list}}
	if g.chance(0.05) {
		c.Resources = corev1.ResourceRequirements{Limits: list}
	}
	spec := corev1.PodSpec{Containers: []corev1.Container{c}}
	if g.chance(0.1) {
		spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: "init", Image: "init:1", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cpu*3/2, resource.DecimalSI)}}})
	}
	if g.chance(0.08) {
		always := corev1.ContainerRestartPolicyAlways
		spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: "sidecar", Image: "proxy:1", RestartPolicy: &always,
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}})
	}
	if g.chance(0.05) {
		spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("120Mi")}
	}
	return spec
}

// tolerations lets a group tolerate one tainted NodePool's taint, or every
// taint.
func (b *builder) tolerations(spec *corev1.PodSpec) {
	g := b.g
	var tainted []poolInfo
	for _, p := range b.pools {
		if len(p.taints) > 0 {
			tainted = append(tainted, p)
		}
	}
	switch {
	case g.chance(0.05):
		spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	case len(tainted) > 0 && g.chance(0.4):
		t := pick(g, tainted).taints[0]
		spec.Tolerations = []corev1.Toleration{{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}}
	}
	if g.chance(0.05) {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule})
	}
}

// spreads adds one or two topology spread constraints over the group itself
// (or every pod of its tier).
func (b *builder) spreads(grp *group) {
	g := b.g
	if !g.chance(0.3) {
		return
	}
	sel := map[string]string{"app": grp.name}
	if t, ok := grp.labels["tier"]; ok && g.chance(0.2) {
		sel = map[string]string{"tier": t}
	}
	var mlk []string
	if _, ok := grp.labels["version"]; ok {
		mlk = []string{"version"}
	}
	for range g.weighted(7, 3) + 1 {
		c := b.spread(sel, mlk)
		// The API server refuses two constraints with the same key and
		// whenUnsatisfiable; the draw is made anyway, so that the scenarios
		// of other seeds stay as they were.
		if !slices.ContainsFunc(grp.spec.TopologySpreadConstraints, func(o corev1.TopologySpreadConstraint) bool {
			return o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable
		}) {
			grp.spec.TopologySpreadConstraints = append(grp.spec.TopologySpreadConstraints, c)
		}
	}
}

// podAffinity adds required or preferred pod affinity and anti-affinity, to
// the group itself, an earlier group or running pods.
func (b *builder) podAffinity(grp *group, names []string) {
	g := b.g
	targets := slices.Clone(names)
	for _, p := range b.running {
		if app := p.Labels["app"]; !slices.Contains(targets, app) {
			targets = append(targets, app)
		}
	}
	aff, anti := g.chance(0.12), g.chance(0.15)
	if !aff && !anti {
		return
	}
	if grp.spec.Affinity == nil {
		grp.spec.Affinity = &corev1.Affinity{}
	}
	if aff {
		pa := &corev1.PodAffinity{}
		term := b.affinityTerm(pick(g, targets))
		if g.chance(0.6) {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(g.between(1, 100)), PodAffinityTerm: term}}
		}
		grp.spec.Affinity.PodAffinity = pa
	}
	if anti {
		pa := &corev1.PodAntiAffinity{}
		target := grp.name
		if g.chance(0.3) {
			target = pick(g, targets)
		}
		term := b.affinityTerm(target)
		if g.chance(0.55) {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{term}
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: int32(g.between(1, 100)), PodAffinityTerm: term}}
		}
		grp.spec.Affinity.PodAntiAffinity = pa
	}
}

// emit writes the group as a Deployment, a Job, a StatefulSet (with claim
// templates) or bare Pods.
func (b *builder) emit(grp *group) {
	g := b.g
	b.pods += grp.replicas
	meta := metav1.ObjectMeta{Name: grp.name, Namespace: "default"}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: grp.labels}, Spec: grp.spec}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": grp.name}}
	replicas := int32(grp.replicas)
	switch {
	case grp.claimClass != "":
		b.workloads = append(b.workloads, &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: meta,
			Spec: appsv1.StatefulSetSpec{Replicas: &replicas, Selector: sel, Template: tmpl, ServiceName: grp.name,
				VolumeClaimTemplates: []corev1.PersistentVolumeClaim{claimTemplate(grp.claimClass)}}})
	case grp.bound || g.chance(0.15):
		b.barePods(grp)
	case g.chance(0.2):
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
		b.workloads = append(b.workloads, &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta,
			Spec: batchv1.JobSpec{Parallelism: &replicas, Completions: &replicas, Template: tmpl}})
	default:
		b.workloads = append(b.workloads, &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: sel, Template: tmpl}})
	}
}

// barePods writes the group as Pods gN-p0, gN-p1, ...; with bound volumes
// each mounts its own claim, bound to a zonal PersistentVolume.
func (b *builder) barePods(grp *group) {
	for i := range grp.replicas {
		p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-p%d", grp.name, i), Namespace: "default", Labels: grp.labels},
			Spec:       *grp.spec.DeepCopy()}
		if grp.bound {
			claim := b.boundClaim(p.Name)
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
		}
		b.workloads = append(b.workloads, p)
	}
}
