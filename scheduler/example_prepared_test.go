package scheduler_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// An autoscaler solves every few seconds on the same catalog: it prepares
// the catalog once, when it loads it, and passes the prepared catalog to
// every Solve. The plans are those Solve makes on its own; only the work of
// indexing the catalog is saved.
func ExamplePrepare() {
	quantities := func(cpu, memory string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
	catalog, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		{Name: "small", Capacity: quantities("2", "4Gi"), Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.10}}},
		{Name: "large", Capacity: quantities("8", "16Gi"), Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.36}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	prepared, err := scheduler.Prepare(catalog) // once
	if err != nil {
		fmt.Println(err)
		return
	}
	pools := []nodepool.NodePool{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	pod := func(i int) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: quantities("3", "4Gi")}}}},
		}
	}
	var pending []*corev1.Pod
	for tick := 1; tick <= 3; tick++ { // each tick, two more pods are pending
		pending = append(pending, pod(2*tick-1), pod(2*tick))
		plan, err := scheduler.Solve(pending, pools, catalog, scheduler.WithPrepared(prepared))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("tick %d: %d pods on", tick, plan.Summary.Scheduled)
		for _, nc := range plan.NodeClaims {
			fmt.Printf(" %s", nc.InstanceType)
		}
		fmt.Printf(", $%.2f/h\n", plan.Summary.PricePerHour)
	}
	// Output:
	// tick 1: 2 pods on large, $0.36/h
	// tick 2: 4 pods on large large, $0.72/h
	// tick 3: 6 pods on large large large, $1.08/h
}
