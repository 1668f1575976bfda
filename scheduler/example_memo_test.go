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

// A planner that asks "what if this node went?" for each node in turn
// solves over the same node and pod objects again and again: it passes one
// Memo to every Solve, and Solve derives what it reads of each node and pod
// once. The plans are those Solve makes without it.
func ExampleWithMemo() {
	quantities := func(cpu, memory string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	}
	catalog, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		{Name: "small", Capacity: quantities("2", "4Gi"), Offerings: []instancetypes.Offering{{Zone: "z1", CapacityType: "on-demand", Price: 0.10}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	pools := []nodepool.NodePool{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := range 3 {
		name := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"topology.kubernetes.io/zone": "z1"}},
			Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}},
		})
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: name,
				Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: quantities("500m", "1Gi")}}}},
		})
	}
	memo := scheduler.NewMemo()
	for gone := range nodes { // what if node `gone` went?
		var rest []*corev1.Node
		var bound, moved []*corev1.Pod
		for i, n := range nodes {
			if i != gone {
				rest = append(rest, n)
				bound = append(bound, pods[i])
				continue
			}
			p := pods[i].DeepCopy()
			p.Spec.NodeName = ""
			moved = append(moved, p)
		}
		plan, err := scheduler.Solve(moved, pools, catalog, scheduler.WithExistingNodes(rest, bound), scheduler.WithMemo(memo))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("without %s: %d new nodes, %v\n", nodes[gone].Name, len(plan.NodeClaims), plan.ExistingNodes)
	}
	// Output:
	// without node-0: 0 new nodes, [{node-1 [default/web-0]}]
	// without node-1: 0 new nodes, [{node-0 [default/web-1]}]
	// without node-2: 0 new nodes, [{node-0 [default/web-2]}]
}
