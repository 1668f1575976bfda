package gen

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
)

// family is a kind of catalog.
type family struct {
	name  string
	build func(g *rng) ([]instancetypes.InstanceType, error)
}

// families are the nine catalog families, drawn uniformly.
func families() []family {
	return []family{
		{"fake400", fake400},
		{"catalogK", catalogK},
		{"tiny", tiny},
		{"custom", custom},
		{"gpu", gpuCatalog},
		{"arm", armCatalog},
		{"reserved", reservedCatalog},
		{"awsSlice", awsSlice},
		{"awsFamilies", awsFamilies},
	}
}

var testZones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// itype builds a catalog type.
func itype(name string, labels map[string]string, cpu int64, memMiB int64, pods int64, extra corev1.ResourceList, offerings []instancetypes.Offering) instancetypes.InstanceType {
	l := map[string]string{corev1.LabelInstanceTypeStable: name, corev1.LabelOSStable: "linux"}
	for k, v := range labels {
		l[k] = v
	}
	if _, ok := l[corev1.LabelArchStable]; !ok {
		l[corev1.LabelArchStable] = "amd64"
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(memMiB<<20, resource.BinarySI),
		corev1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
	for k, v := range extra {
		capacity[k] = v
	}
	return instancetypes.InstanceType{
		Name: name, Labels: l, Capacity: capacity,
		Overhead: instancetypes.Overhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("10Mi")}},
		Offerings: offerings,
	}
}

// offers returns an offering per zone for each capacity type, priced
// price × factor(capacity type).
func offers(zones []string, od, spot float64, spotZones []string) []instancetypes.Offering {
	var out []instancetypes.Offering
	for _, z := range zones {
		out = append(out, instancetypes.Offering{Zone: z, CapacityType: "on-demand", Price: round(od)})
	}
	for _, z := range spotZones {
		out = append(out, instancetypes.Offering{Zone: z, CapacityType: "spot", Price: round(spot)})
	}
	return out
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// fakePrice is Karpenter's fake.PriceFromResources: 0.1 per vCPU, 0.1 per
// GB (10^9 bytes) of memory.
func fakePrice(cpu, memMiB int64) float64 {
	return 0.1*float64(cpu) + 0.1*float64(memMiB<<20)/1e9
}

// fake400 is Karpenter's fake.InstanceTypes(n) for n 400 (the benchmark's
// catalog) or its first 40 or 120 types: type i has i+1 vCPU, 2(i+1) GiB,
// 10(i+1) pods, spot in two zones and on-demand in three at one price.
func fake400(g *rng) ([]instancetypes.InstanceType, error) {
	n := pick(g, []int{400, 400, 120, 40})
	types := make([]instancetypes.InstanceType, 0, n)
	for i := range n {
		cpu, mem := int64(i+1), int64(2*(i+1))*1024
		labels := map[string]string{"integer": strconv.Itoa(i + 1), "size": "small"}
		if cpu > 4 && mem > 8*1024 {
			labels["size"], labels["special"] = "large", "optional"
		}
		p := fakePrice(cpu, mem)
		types = append(types, itype(fmt.Sprintf("fake-it-%d", i), labels, cpu, mem, int64(10*(i+1)), nil,
			offers(testZones, p, p, testZones[:2])))
	}
	return types, nil
}

// catalogK is Karpenter's test catalog: default, small, gpu-a, gpu-b, arm
// and single-pod, five pods per node (one for single-pod), spot in two zones
// at 0.6 times on-demand.
func catalogK(*rng) ([]instancetypes.InstanceType, error) {
	type spec struct {
		name      string
		cpu, mem  int64
		pods      int64
		arch      string
		gpu       corev1.ResourceName
		tieBreak  float64
		sizeLarge bool
	}
	specs := []spec{
		{"default", 4, 4096, 5, "amd64", "", 0, false},
		{"small", 2, 2048, 5, "amd64", "", 0, false},
		{"gpu-a", 4, 4096, 5, "amd64", "fake.com/vendor-a", 0, false},
		{"gpu-b", 4, 4096, 5, "amd64", "fake.com/vendor-b", 0, false},
		{"arm", 16, 128 * 1024, 5, "arm64", "", 0, true},
		{"single-pod", 4, 4096, 1, "amd64", "", 0.001, false},
	}
	var types []instancetypes.InstanceType
	for _, s := range specs {
		labels := map[string]string{"integer": strconv.FormatInt(s.cpu, 10), "size": "small", corev1.LabelArchStable: s.arch}
		if s.sizeLarge {
			labels["size"], labels["special"] = "large", "optional"
		}
		var extra corev1.ResourceList
		p := fakePrice(s.cpu, s.mem) + s.tieBreak
		if s.gpu != "" {
			extra = corev1.ResourceList{s.gpu: resource.MustParse("2")}
			p++
		}
		types = append(types, itype(s.name, labels, s.cpu, s.mem, s.pods, extra, offers(testZones, p, 0.6*p, testZones[:2])))
	}
	return types, nil
}

// tiny is two to four types c<N> where one larger type may be cheaper than
// several small ones (or dearer), in one to three zones.
func tiny(g *rng) ([]instancetypes.InstanceType, error) {
	cpus := subset(g, []int64{2, 4, 8, 16, 32, 48}, 4)
	if len(cpus) == 1 {
		cpus = append(cpus, cpus[0]*2)
	}
	zones := subset(g, []string{"zone-a", "zone-b", "zone-c"}, 3)
	exp := pick(g, []float64{0.85, 1.0, 1.0, 1.1})
	perCPU := pick(g, []float64{0.02, 0.03, 0.045})
	memPerCPU := pick(g, []int64{2048, 4096, 8192})
	spot := g.chance(0.4)
	var types []instancetypes.InstanceType
	for _, c := range cpus {
		od := perCPU * math.Pow(float64(c), exp)
		var spotZones []string
		if spot {
			spotZones = zones
		}
		pods := pick(g, []int64{110, 110, 8, 16})
		types = append(types, itype(fmt.Sprintf("c%d", c), map[string]string{"integer": strconv.FormatInt(c, 10)}, c, c*memPerCPU, pods, nil,
			offers(zones, od, od*0.45, spotZones)))
	}
	return types, nil
}

// custom is a synthetic provider with custom labels family and size, spot
// only in some zones and some offerings unavailable.
func custom(g *rng) ([]instancetypes.InstanceType, error) {
	zones := []string{"rz-1a", "rz-1b", "rz-1c"}
	spotZones := subset(g, zones, 2)
	fams := subset(g, []string{"fa3", "fb3", "fd3", "fe3"}, 3)
	sizes := []struct {
		name     string
		cpu, mem int64
	}{{"1x4", 1, 4096}, {"2x8", 2, 8192}, {"4x16", 4, 16384}, {"8x32", 8, 32768}, {"16x64", 16, 65536}, {"48x8", 48, 8192}}
	var types []instancetypes.InstanceType
	for fi, fam := range fams {
		for _, s := range subset(g, sizes, 4) {
			od := (0.035*float64(s.cpu) + 0.004*float64(s.mem)/1024) * (1 + 0.15*float64(fi))
			size := "small"
			if s.cpu >= 8 {
				size = "large"
			}
			labels := map[string]string{"family": fam, "size": size, "integer": strconv.FormatInt(s.cpu, 10)}
			of := offers(zones, od, od*pick(g, []float64{0.3, 0.45, 0.6}), spotZones)
			for i := range of {
				of[i].Unavailable = g.chance(0.12)
			}
			types = append(types, itype(fam+"."+s.name, labels, s.cpu, s.mem, pick(g, []int64{4, 8, 16, 58, 110}), nil, of))
		}
	}
	return types, nil
}

// gpuCatalog has CPU types and GPU types with nvidia.com/gpu or
// fake.com/vendor-a, labelled with the GPU count and name.
func gpuCatalog(g *rng) ([]instancetypes.InstanceType, error) {
	zones := subset(g, testZones, 3)
	var types []instancetypes.InstanceType
	for _, c := range []int64{2, 4, 8, 16} {
		od := 0.04*float64(c) + 0.005*float64(c*4)
		types = append(types, itype(fmt.Sprintf("cpu-%d", c), map[string]string{"gpu-count": "0"}, c, c*4096, 58, nil, offers(zones, od, od*0.5, zones[:1])))
	}
	for _, gp := range []struct {
		name     string
		res      corev1.ResourceName
		count    int64
		cpu      int64
		gpuPrice float64
	}{{"g1", "nvidia.com/gpu", 1, 4, 0.5}, {"g2", "nvidia.com/gpu", 2, 8, 0.5}, {"g4", "nvidia.com/gpu", 4, 16, 0.5}, {"g8", "nvidia.com/gpu", 8, 32, 0.45}, {"v1", "fake.com/vendor-a", 1, 4, 0.8}, {"v2", "fake.com/vendor-a", 2, 8, 0.8}} {
		if g.chance(0.25) {
			continue
		}
		od := 0.04*float64(gp.cpu) + gp.gpuPrice*float64(gp.count)
		labels := map[string]string{"gpu-count": strconv.FormatInt(gp.count, 10), "gpu-name": string(gp.res)[:4]}
		extra := corev1.ResourceList{gp.res: *resource.NewQuantity(gp.count, resource.DecimalSI)}
		types = append(types, itype(gp.name, labels, gp.cpu, gp.cpu*8192, 58, extra, offers(zones, od, od*0.6, zones)))
	}
	return types, nil
}

// armCatalog pairs amd64 and cheaper arm64 types with pod caps.
func armCatalog(g *rng) ([]instancetypes.InstanceType, error) {
	zones := []string{"az-1", "az-2", "az-3"}
	var types []instancetypes.InstanceType
	for _, c := range subset(g, []int64{1, 2, 4, 8, 16, 32}, 5) {
		pods := pick(g, []int64{10, 20, 29, 58, 110})
		od := 0.048 * float64(c)
		types = append(types,
			itype(fmt.Sprintf("x86.%d", c), map[string]string{"family": "x86", "integer": strconv.FormatInt(c, 10)}, c, c*4096, pods, nil, offers(zones, od, od*0.35, zones[1:])),
			itype(fmt.Sprintf("arm.%d", c), map[string]string{"family": "arm", "integer": strconv.FormatInt(c, 10), corev1.LabelArchStable: "arm64"}, c, c*4096, pods, nil, offers(zones, od*0.8, od*0.3, zones[:2])))
	}
	return types, nil
}

// reservedCatalog adds capacity reservations (one to three instances, in
// one zone, cheap) to a few on-demand/spot types.
func reservedCatalog(g *rng) ([]instancetypes.InstanceType, error) {
	zones := []string{"zone-a", "zone-b", "zone-c"}
	var types []instancetypes.InstanceType
	for i, c := range []int64{2, 4, 8, 16} {
		od := 0.05 * float64(c)
		of := offers(zones, od, od*0.4, zones[:2])
		if g.chance(0.6) {
			of = append(of, instancetypes.Offering{Zone: pick(g, zones), CapacityType: "reserved", Price: round(od * 0.1),
				ReservationID: fmt.Sprintf("cr-%02d", i), ReservationCapacity: g.between(1, 3)})
		}
		types = append(types, itype(fmt.Sprintf("r%d", c), map[string]string{"integer": strconv.FormatInt(c, 10)}, c, c*8192, 58, nil, of))
	}
	return types, nil
}

var awsTypes = sync.OnceValues(func() ([]*instancetypes.InstanceType, error) {
	cat, err := aws.Catalog(aws.WithZones("us-east-1a", "us-east-1b", "us-east-1c"))
	if err != nil {
		return nil, err
	}
	return cat.Types(), nil
})

// awsSlice is 20 to 80 random types of the built-in us-east-1 catalog,
// zones a to c.
func awsSlice(g *rng) ([]instancetypes.InstanceType, error) {
	all, err := awsTypes()
	if err != nil {
		return nil, err
	}
	n := g.between(20, 80)
	idx := g.r.Perm(len(all))[:n]
	slices.Sort(idx)
	out := make([]instancetypes.InstanceType, 0, n)
	for _, i := range idx {
		out = append(out, copyType(all[i]))
	}
	return out, nil
}

// awsFamilies is every type of three to six families of the built-in
// us-east-1 catalog (GPU families among them), zones a to c.
func awsFamilies(g *rng) ([]instancetypes.InstanceType, error) {
	all, err := awsTypes()
	if err != nil {
		return nil, err
	}
	fams := subset(g, []string{"c5", "m5", "r5", "t3", "t4g", "m6g", "c6g", "r6g", "g4dn", "p3", "m5a", "c6i", "m6i"}, 6)
	var out []instancetypes.InstanceType
	for _, it := range all {
		if slices.Contains(fams, it.Labels[aws.LabelInstanceFamily]) {
			out = append(out, copyType(it))
		}
	}
	if len(out) == 0 {
		return awsSlice(g)
	}
	return out, nil
}

func copyType(it *instancetypes.InstanceType) instancetypes.InstanceType {
	return instancetypes.InstanceType{Name: it.Name, Labels: it.Labels, Capacity: it.Capacity, Overhead: it.Overhead, Offerings: slices.Clone(it.Offerings)}
}
