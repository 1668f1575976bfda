package disruption_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// Two m5.2xlarge nodes each run one small pod: multi-node consolidation
// replaces both with one m5.large, which stays (no cheaper m5 holds the
// two pods).
func ExamplePlan() {
	catalog, err := aws.Catalog()
	if err != nil {
		panic(err)
	}
	pool := nodepool.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	pool.Spec.Template.Spec.Requirements = []nodepool.NodeSelectorRequirementWithMinValues{
		{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
		{Key: "karpenter.k8s.aws/instance-family", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5"}},
	}
	pool.Spec.Disruption = &nodepool.Disruption{Budgets: []nodepool.Budget{{Nodes: "100%"}}}
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	var cluster disruption.Cluster
	for _, name := range []string{"ip-10-0-0-1", "ip-10-0-0-2"} {
		cluster.Nodes = append(cluster.Nodes, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour)), Labels: map[string]string{
				"karpenter.sh/nodepool": "default", "karpenter.sh/initialized": "true",
				"node.kubernetes.io/instance-type": "m5.2xlarge", "topology.kubernetes.io/zone": "us-east-1a",
				"karpenter.sh/capacity-type": "on-demand"}}})
		cluster.Pods = append(cluster.Pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web-" + name[len(name)-1:], Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: name, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	res, err := disruption.Plan(cluster, []nodepool.NodePool{pool}, catalog, now, disruption.WithoutRepack())
	if err != nil {
		panic(err)
	}
	for _, c := range res.Commands {
		var nodes, repl []string
		for _, n := range c.Nodes {
			nodes = append(nodes, n.Name)
		}
		for _, r := range c.Replacements {
			repl = append(repl, r.InstanceType)
		}
		fmt.Printf("%s %s %v -> %v saves $%.3f/h\n", c.Method, c.Decision, nodes, repl, c.SavingsPerHour)
	}
	for _, n := range res.Nodes {
		if !n.Disrupted {
			fmt.Printf("%s stays: %s\n", n.Name, n.Reason)
		}
	}
	fmt.Printf("$%.3f/h -> $%.3f/h\n", res.Summary.PricePerHour, res.Summary.PricePerHourAfter)
	// Output:
	// MultiNodeConsolidation replace [ip-10-0-0-1 ip-10-0-0-2] -> [m5.large] saves $0.672/h
	// default-1 stays: NoCheaperReplacement
	// $0.768/h -> $0.096/h
}
