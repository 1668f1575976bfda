package topology_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestNewSharingCounts: trackers that share a Matches over the same
// existing pods (the second one reads what the first remembered) count
// them as a tracker of their own does: the same zone pins and the same
// refusal, for a spread and an anti-affinity term over pods of two apps in
// two namespaces.
func TestNewSharingCounts(t *testing.T) {
	t.Parallel()
	schema := requirements.DefaultSchema()
	zones := []string{"z1", "z2", "z3"}
	pool := topology.Source{Name: "default", Values: func(key string, reqs requirements.Requirements) []string {
		var out []string
		for _, z := range zones {
			if key == requirements.LabelTopologyZone && reqs.Get(key).Has(z) {
				out = append(out, z)
			}
		}
		return out
	}}
	web, db := map[string]string{"app": "web"}, map[string]string{"app": "db"}
	var running []topology.ExistingPod
	for i, z := range []string{"z1", "z1", "z2", "z3", "z3", "z3"} {
		node := &topology.Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{requirements.LabelHostname: fmt.Sprintf("n%d", i), requirements.LabelTopologyZone: z}}
		running = append(running, topology.ExistingPod{Namespace: "default", Labels: web, Node: node})
		if i%2 == 0 {
			running = append(running, topology.ExistingPod{Namespace: "other", Labels: web, Node: node})
			running = append(running, topology.ExistingPod{Namespace: "default", Labels: db, Node: node})
		}
	}
	spec := topology.PodSpec{Namespace: "default", Labels: web,
		Spread: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: requirements.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: web}}},
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: requirements.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: db}}}}}}
	outcome := func(tr *topology.Tracker) string {
		pod, err := tr.Register(spec)
		if err != nil {
			t.Fatal(err)
		}
		tr.Finish([]*topology.Pod{pod}, []topology.PodSpec{spec})
		all := func(int) bool { return true }
		pins, v := tr.Check(pod, all, &topology.Host{Hostname: "claim-1", Domains: openZones(zones)}, nil)
		_, refused := tr.Check(pod, all, &topology.Host{Hostname: "claim-2", Requirements: requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, "z3"))}, nil)
		return fmt.Sprint(pins, v, " / ", refused.Message())
	}
	want := outcome(topology.New(schema, []topology.Source{pool}, nil, running))
	matches := topology.NewMatches()
	for i := range 2 {
		got := outcome(topology.NewSharing(schema, []topology.Source{pool}, nil, running, matches))
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("tracker %d sharing matches (-own +sharing):\n%s", i, diff)
		}
	}
}
