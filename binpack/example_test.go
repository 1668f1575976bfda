package binpack_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Requests become fixed-size vectors (cpu in millicores, the rest in base
// units), so that a fit check is a loop over integers.
func ExampleDims_Vector() {
	dims, err := binpack.NewDims("nvidia.com/gpu")
	if err != nil {
		panic(err)
	}
	pod, _ := dims.Vector(corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1500m"),
		corev1.ResourceMemory: resource.MustParse("2Gi"),
		corev1.ResourcePods:   resource.MustParse("1"),
	})
	node, _ := dims.Vector(corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("4Gi"),
		corev1.ResourcePods:   resource.MustParse("29"),
	})
	two := pod.Add(pod)
	fmt.Println("one fits:", pod.Fits(node), "two fit:", two.Fits(node))
	short := two.FirstShort(node)
	fmt.Println("short of", dims.Name(short), dims.Format(short, two[short]), ">", dims.Format(short, node[short]))
	// Output:
	// one fits: true two fit: false
	// short of cpu 3 > 2
}

// Tables are built once per catalog and dimensions and read by any number
// of Indexes; an Index answers, for a requirement set, which instance types
// qualify (a bitset) and in which price order, with the cheapest allowed
// offering of each.
func ExampleNewIndex() {
	types := []instancetypes.InstanceType{
		{Name: "small", Labels: map[string]string{"kubernetes.io/arch": "amd64"},
			Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.10}, {Zone: "z2", CapacityType: "spot", Price: 0.04}}},
		{Name: "arm", Labels: map[string]string{"kubernetes.io/arch": "arm64"},
			Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
			Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.08}}},
		{Name: "large", Labels: map[string]string{"kubernetes.io/arch": "amd64"},
			Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("16Gi")},
			Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.40}}},
	}
	catalog, err := instancetypes.NewCatalog(types)
	if err != nil {
		panic(err)
	}
	dims, err := binpack.NewDims(binpack.ResourceNames(catalog)...)
	if err != nil {
		panic(err)
	}
	x := binpack.NewIndex(binpack.NewTables(catalog, dims))
	reqs := requirements.NewRequirements(
		requirements.In("kubernetes.io/arch", "amd64"),
		requirements.In(requirements.LabelCapacityType, "on-demand"))
	set := x.Filter(reqs)
	offers := binpack.NewOfferFilter(x, reqs)
	for _, t := range x.PriceOrder(offers) {
		if !set.Has(int(t)) {
			continue
		}
		_, i, _ := x.Cheapest(int(t), offers, nil)
		zone, ct, price, _ := x.Offering(int(t), i)
		fmt.Printf("%s %s %s $%.2f/h, allocatable cpu %s\n", x.Type(int(t)).Name, zone, ct, price, dims.Format(0, x.Allocatable(int(t))[0]))
	}
	// Output:
	// small z1 on-demand $0.10/h, allocatable cpu 2
	// large z1 on-demand $0.40/h, allocatable cpu 8
}
