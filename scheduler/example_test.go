package scheduler_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// Solve plans the nodes for three web pods spread over zones, on the
// built-in AWS catalog, with a NodePool that allows on-demand c and m
// instances, and explains the pod that fits no instance type.
func ExampleSolve() {
	catalog, err := aws.Catalog()
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := nodepool.Decode([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := func(name, cpu, memory string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
			},
		}
	}
	pods := []*corev1.Pod{pod("web-1", "1", "2Gi"), pod("web-2", "1", "2Gi"), pod("web-3", "1", "2Gi"), pod("huge", "1000", "1Ti")}

	plan, err := scheduler.Solve(pods, []nodepool.NodePool{pool}, catalog)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, nc := range plan.NodeClaims {
		fmt.Printf("%s: %s %s %s $%.4f/h %v (%d options)\n", nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, nc.Pods, len(nc.InstanceTypeOptions))
	}
	for _, pe := range plan.PodErrors {
		fmt.Printf("%s: %s\n", pe.Pod, pe.Reason)
	}
	fmt.Printf("$%.4f/h, no plan below $%.4f/h\n", plan.Summary.PricePerHour, plan.Summary.PriceLowerBound)
	// Output:
	// default-1: c6a.large us-east-1a on-demand $0.0765/h [default/web-1] (100 options)
	// default-2: c6a.large us-east-1b on-demand $0.0765/h [default/web-2] (100 options)
	// default-3: c6a.large us-east-1c on-demand $0.0765/h [default/web-3] (100 options)
	// default/huge: NodePool default: no instance type has 1000 cpu (largest allocatable: 382970m)
	// $0.2295/h, no plan below $0.1160/h
}
