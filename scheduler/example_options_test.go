package scheduler_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// exampleCatalog has two types in one zone: small (2 cpu, $0.10/h) and
// large (8 cpu, $0.40/h).
func exampleCatalog() instancetypes.Catalog {
	typ := func(name, cpu, memory string, price float64) instancetypes.InstanceType {
		return instancetypes.InstanceType{
			Name:      name,
			Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)},
			Offerings: []instancetypes.Offering{{Zone: "zone-a", CapacityType: "on-demand", Price: price}},
		}
	}
	c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{typ("small", "2", "8Gi", 0.10), typ("large", "8", "32Gi", 0.40)})
	if err != nil {
		panic(err)
	}
	return c
}

func examplePod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
	}
}

func examplePool() []nodepool.NodePool {
	return []nodepool.NodePool{{ObjectMeta: metav1.ObjectMeta{Name: "default"}}}
}

// Existing nodes are tried before new NodeClaims: the pods already bound to
// a node count against its allocatable, and what is left takes pending pods
// first.
func ExampleWithExistingNodes() {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"topology.kubernetes.io/zone": "zone-a"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}},
	}
	running := examplePod("db-0", "2")
	running.Spec.NodeName = "node-a" // bound: it uses 2 of node-a's 4 cpu

	pending := []*corev1.Pod{examplePod("web-0", "1"), examplePod("web-1", "1"), examplePod("web-2", "1")}
	res, err := scheduler.Solve(pending, examplePool(), exampleCatalog(),
		scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{running}))
	if err != nil {
		panic(err)
	}
	for _, n := range res.ExistingNodes {
		fmt.Println("existing", n.Name, n.Pods)
	}
	for _, nc := range res.NodeClaims {
		fmt.Println("new", nc.Name, nc.InstanceType, nc.Pods)
	}
	// Output:
	// existing node-a [default/web-0 default/web-1]
	// new default-1 small [default/web-2]
}

// A DaemonSet runs a pod on every new node whose labels and taints it
// accepts, so its requests are overhead on each NodeClaim: with a 1.5-cpu
// agent, a 1-cpu pod no longer fits the 2-cpu type.
func ExampleWithDaemonSets() {
	agent := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "log-agent", Namespace: "kube-system"},
		Spec:       appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: examplePod("agent", "1500m").Spec}},
	}
	pods := []*corev1.Pod{examplePod("web-0", "1")}
	for _, opts := range [][]scheduler.Option{nil, {scheduler.WithDaemonSets([]*appsv1.DaemonSet{agent})}} {
		res, err := scheduler.Solve(pods, examplePool(), exampleCatalog(), opts...)
		if err != nil {
			panic(err)
		}
		nc := res.NodeClaims[0]
		cpu := nc.Requests[corev1.ResourceCPU]
		fmt.Printf("%d DaemonSets: %s, requests %s cpu\n", len(opts), nc.InstanceType, cpu.String())
	}
	// Output:
	// 0 DaemonSets: small, requests 1 cpu
	// 1 DaemonSets: large, requests 2500m cpu
}

// Resolve reads what options say, defaults filled in and validated as
// Solve validates them: code that must see the input as Solve sees it (the
// plan checker in scheduler/verify) reads options this way.
func ExampleResolve() {
	settings, err := scheduler.Resolve(
		scheduler.WithPreferencePolicy(scheduler.PreferenceIgnore),
		scheduler.WithPreferencePolicyFor(scheduler.PreferTopologySpread, scheduler.PreferenceRespect),
	)
	if err != nil {
		panic(err)
	}
	for _, k := range scheduler.PreferenceKinds() {
		fmt.Println(k, settings.Preferences[k])
	}
	fmt.Println("minValues", settings.MinValues, "options", settings.MaxInstanceTypeOptions)

	_, err = scheduler.Resolve(scheduler.WithMaxInstanceTypeOptions(0))
	fmt.Println(err)
	// Output:
	// PodAffinity Ignore
	// PodAntiAffinity Ignore
	// NodeAffinity Ignore
	// TopologySpread Respect
	// PreferNoSchedule Ignore
	// minValues Strict options 100
	// WithMaxInstanceTypeOptions: 0: must be at least 1
}
