package topology_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// openZones is a DomainLister: the zones a new NodeClaim could still land in.
type openZones []string

func (z openZones) DomainValues(key string) []string {
	if key == requirements.LabelTopologyZone {
		return z
	}
	return nil
}

// A pod spread over zones (maxSkew 1) while two of its replicas already run
// in us-east-1a: a new NodeClaim that could land in any zone is pinned to
// the least loaded one, and one that can only land in us-east-1a is refused.
func ExampleTracker_Check() {
	schema := requirements.DefaultSchema()
	pool := topology.Source{Name: "default", Values: func(key string, reqs requirements.Requirements) []string {
		var out []string
		for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
			if key == requirements.LabelTopologyZone && reqs.Get(key).Has(z) {
				out = append(out, z)
			}
		}
		return out
	}}
	node := &topology.Node{Name: "node-1", Labels: map[string]string{
		requirements.LabelHostname: "node-1", requirements.LabelTopologyZone: "us-east-1a"}}
	web := map[string]string{"app": "web"}
	running := []topology.ExistingPod{
		{Namespace: "default", Labels: web, Node: node},
		{Namespace: "default", Labels: web, Node: node},
	}
	tr := topology.New(schema, []topology.Source{pool}, nil, running)
	spec := topology.PodSpec{Namespace: "default", Labels: web, Spread: []corev1.TopologySpreadConstraint{{
		MaxSkew: 1, TopologyKey: requirements.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: web}}}}
	pod, err := tr.Register(spec)
	if err != nil {
		panic(err)
	}
	tr.Finish([]*topology.Pod{pod}, []topology.PodSpec{spec})
	all := func(int) bool { return true }

	open := &topology.Host{Hostname: "claim-1", Domains: openZones{"us-east-1a", "us-east-1b", "us-east-1c"}}
	pins, violation := tr.Check(pod, all, open, nil)
	fmt.Println("open claim:", pins, violation)

	inA := &topology.Host{Hostname: "claim-2", Requirements: requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, "us-east-1a"))}
	_, violation = tr.Check(pod, all, inA, nil)
	fmt.Println("claim in us-east-1a:", violation.Message())
	// Output:
	// open claim: [topology.kubernetes.io/zone In [us-east-1b]] <nil>
	// claim in us-east-1a: topology spread on topology.kubernetes.io/zone (app=web): maxSkew 1 would be exceeded (global minimum 0); domains us-east-1a=2 us-east-1b=0 us-east-1c=0
}

// A pod's claims become zone requirements: a claim bound to a zonal volume
// pins the pod to the volume's zone (one alternative per way the volumes
// allow).
func ExampleVolumes_For() {
	pvc := testutil.PVC("data", "pv-1", "")
	pv := testutil.ZonalPV("pv-1", "us-east-1b")
	vols := topology.NewVolumes(requirements.DefaultSchema(), []*corev1.PersistentVolumeClaim{pvc}, []*corev1.PersistentVolume{pv}, nil)
	pod := testutil.Pod("db").PVC("data").Obj()
	reqs, err := vols.For(pod)
	if err != nil {
		panic(err)
	}
	fmt.Println(reqs)
	// Output:
	// [topology.kubernetes.io/zone In [us-east-1b]]
}
