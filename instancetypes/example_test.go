package instancetypes_test

import (
	"fmt"

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
