package instancetypes_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

func ExampleDecode() {
	c, err := instancetypes.Decode([]byte(document(m5Large)))
	if err != nil {
		fmt.Println(err)
		return
	}
	it, _ := c.Get("m5.large")
	alloc := it.Allocatable()
	fmt.Println(alloc.Cpu(), alloc.Memory())
	o, _ := it.CheapestOffering(requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, "on-demand")))
	fmt.Println(o.Zone, o.Price)
	// Output:
	// 1930m 6903Mi
	// us-east-1a 0.096
}

func ExampleDecode_errors() {
	_, err := instancetypes.Decode([]byte(`{"instanceTypes":[
{"name":"m5.large","capacity":{"cpu":"2x","memory":"8Gi"},"offerings":[{"zone":"us-east-1a","capacityType":"ondemand","price":-1}]}]}`))
	fmt.Println(err)
	// Output:
	// [instanceTypes[m5.large].capacity[cpu]: Invalid value: "2x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', instanceTypes[m5.large].offerings[0].capacityType: Unsupported value: "ondemand": supported values: "on-demand", "spot", "reserved", instanceTypes[m5.large].offerings[0].price: Invalid value: -1: price must be a non-negative number]
}

// Build a catalog in Go: zero values mean the common case (an offering is
// available unless Unavailable is set; a type without pods capacity holds
// 110 pods), and what cannot work is refused, naming the type.
func ExampleNewCatalog() {
	gib := func(n int64) resource.Quantity { return *resource.NewQuantity(n<<30, resource.BinarySI) }
	types := []instancetypes.InstanceType{{
		Name:     "c.large",
		Labels:   map[string]string{"kubernetes.io/arch": "amd64", "example.com/family": "c"},
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: gib(4)},
		Offerings: []instancetypes.Offering{
			{Zone: "zone-a", CapacityType: "on-demand", Price: 0.085},
			{Zone: "zone-a", CapacityType: "spot", Price: 0.031, Unavailable: true}, // an exhausted spot pool
			{Zone: "zone-b", CapacityType: "spot", Price: 0.034},
		},
	}}
	catalog, err := instancetypes.NewCatalog(types, instancetypes.WithRegion("example-1"))
	if err != nil {
		panic(err)
	}
	it, _ := catalog.Get("c.large")
	cheapest, _ := it.CheapestOffering(requirements.Requirements{})
	pods := it.Allocatable()[corev1.ResourcePods]
	fmt.Println(cheapest.Zone, cheapest.CapacityType, cheapest.Price, "pods:", pods.String())

	_, err = instancetypes.NewCatalog([]instancetypes.InstanceType{{Name: "empty"}})
	fmt.Println(err)
	// Output:
	// zone-b spot 0.034 pods: 110
	// [instanceTypes[empty].capacity[cpu]: Required value: an instance type needs cpu and memory capacity, instanceTypes[empty].capacity[memory]: Required value: an instance type needs cpu and memory capacity, instanceTypes[empty].offerings: Required value: an instance type needs at least one offering (zone, capacity type, price)]
}
