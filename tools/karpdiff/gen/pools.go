package gen

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
)

// poolInfo is what workloads need to know of a generated NodePool.
type poolInfo struct {
	name          string
	labels        map[string]string
	taints        []corev1.Taint
	startupTaints []corev1.Taint
}

// genPools writes one to three NodePools.
func (b *builder) genPools() {
	n := b.g.weighted(5, 3, 2) + 1
	for i := range n {
		b.genPool(fmt.Sprintf("np%d", i))
	}
}

func (b *builder) genPool(name string) {
	g := b.g
	np := nodepool.NodePool{TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	spec := &np.Spec.Template.Spec
	spec.NodeClassRef = &nodepool.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	spec.Requirements = b.poolRequirements()
	info := poolInfo{name: name}
	if g.chance(0.4) {
		info.labels = map[string]string{"team": pick(g, []string{"a", "b"})}
		np.Spec.Template.ObjectMeta.Labels = info.labels
	}
	if g.chance(taintChance(name)) {
		effect := pick(g, []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule})
		info.taints = []corev1.Taint{{Key: "dedicated", Value: name, Effect: effect}}
		spec.Taints = info.taints
	}
	if g.chance(0.2) {
		info.startupTaints = []corev1.Taint{{Key: "example.com/agent-not-ready", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		spec.StartupTaints = info.startupTaints
	}
	if g.chance(0.35) {
		w := int32(g.between(1, 100))
		np.Spec.Weight = &w
	}
	if g.chance(0.25) {
		np.Spec.Limits = b.limits()
	}
	b.pools = append(b.pools, info)
	b.nodePools = append(b.nodePools, np)
}

// taintChance keeps the first NodePool mostly untainted (a scenario whose
// only pool is tainted leaves most pods unplaceable) and taints the others
// often.
func taintChance(name string) float64 {
	if name == "np0" {
		return 0.1
	}
	return 0.45
}

// poolRequirements draws the NodePool's requirements: often
// kubernetes.io/os In [linux] as real NodePools have, then capacity type,
// arch, zones, excluded types, numeric bounds, custom values, minValues.
func (b *builder) poolRequirements() []nodepool.NodeSelectorRequirementWithMinValues {
	g, v := b.g, b.v
	var reqs []nodepool.NodeSelectorRequirementWithMinValues
	add := func(key string, op corev1.NodeSelectorOperator, values ...string) *nodepool.NodeSelectorRequirementWithMinValues {
		reqs = append(reqs, nodepool.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
		return &reqs[len(reqs)-1]
	}
	if g.chance(0.6) {
		add(corev1.LabelOSStable, corev1.NodeSelectorOpIn, "linux")
	}
	if g.chance(0.5) {
		add("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, subset(g, v.capacityTypes, 3)...)
	}
	if len(v.arches) > 1 && g.chance(0.2) {
		add(corev1.LabelArchStable, corev1.NodeSelectorOpIn, pick(g, v.arches))
	}
	if len(v.zones) > 1 && g.chance(0.2) {
		add(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, subset(g, v.zones, len(v.zones)-1)...)
	}
	if g.chance(0.1) {
		add(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpNotIn, pick(g, v.typeNames))
	}
	if nums := v.numericLabels(); len(nums) > 0 && g.chance(0.2) {
		d := pick(g, nums)
		op, val := b.bound(d)
		add(d.key, op, val)
	}
	if cl := v.customLabels(); len(cl) > 0 && g.chance(0.2) {
		d := pick(g, cl)
		add(d.key, corev1.NodeSelectorOpIn, subset(g, d.values, len(d.values))...)
	}
	if g.chance(0.12) {
		r := add(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpExists)
		mv := g.between(2, 4)
		r.MinValues = &mv
	}
	if reqs == nil {
		reqs = []nodepool.NodeSelectorRequirementWithMinValues{}
	}
	return reqs
}

// bound returns Gt or Lt with a threshold inside the numeric label's range
// (so some types pass and some do not).
func (b *builder) bound(d labelDomain) (corev1.NodeSelectorOperator, string) {
	nums := make([]int, 0, len(d.values))
	for _, s := range d.values {
		n, _ := strconv.Atoi(s)
		nums = append(nums, n)
	}
	slices.Sort(nums)
	x := nums[b.g.intn(len(nums))]
	if b.g.chance(0.5) {
		return corev1.NodeSelectorOpGt, strconv.Itoa(max(x-1, 0))
	}
	return corev1.NodeSelectorOpLt, strconv.Itoa(x + 1)
}

// limits draws NodePool limits on cpu, memory or nodes.
func (b *builder) limits() corev1.ResourceList {
	g := b.g
	l := corev1.ResourceList{}
	switch g.intn(3) {
	case 0:
		l[corev1.ResourceCPU] = *resource.NewQuantity(int64(g.between(8, 300)), resource.DecimalSI)
	case 1:
		l[corev1.ResourceMemory] = *resource.NewQuantity(int64(g.between(16, 1024))<<30, resource.BinarySI)
	default:
		l["nodes"] = *resource.NewQuantity(int64(g.between(2, 20)), resource.DecimalSI)
	}
	return l
}
