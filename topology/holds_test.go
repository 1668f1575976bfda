package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestHolds: on a plan's final nodes (domains closed), each preferred term
// of a pod is judged alone against the pods recorded, the pod itself taken
// out: anti-affinity holds with no other match in its domain, affinity
// with one (or as the first of a self-selecting group), a spread within
// maxSkew of the minimum over the plan's domains; a node without the key
// breaks affinity and spread, never anti-affinity.
func TestHolds(t *testing.T) {
	t.Parallel()
	a1, a2, b1 := zoneNode("a1", zoneA), zoneNode("a2", zoneA), zoneNode("b1", zoneB)
	bare := zoneNode("bare", "")
	nodes := []*topology.Node{a1, a2, b1, bare}
	tests := []struct {
		name  string
		pod   *testutil.PodBuilder
		bound []topology.ExistingPod
		on    *topology.Node
		want  []bool // per term, in the pod's order
	}{
		{
			name:  "anti-affinity: a web pod in the zone breaks it, one in another zone does not",
			pod:   testutil.Pod("probe").Label("app", "probe").PreferredPodAntiAffinity(50, zoneKey, web).PreferredPodAntiAffinity(10, hostKey, web),
			bound: []topology.ExistingPod{bound(a2, web)}, on: a1,
			want: []bool{false, true},
		},
		{
			name: "anti-affinity to itself: the pod alone does not break it",
			pod:  testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(50, zoneKey, web),
			on:   b1,
			want: []bool{true},
		},
		{
			name:  "anti-affinity: a node without the key holds it",
			pod:   testutil.Pod("probe").Label("app", "probe").PreferredPodAntiAffinity(50, zoneKey, web),
			bound: []topology.ExistingPod{bound(bare, web)}, on: bare,
			want: []bool{true},
		},
		{
			name:  "affinity: needs a match in the pod's zone",
			pod:   testutil.Pod("api").Label("app", "api").PreferredPodAffinity(50, zoneKey, db).PreferredPodAffinity(10, zoneKey, cache),
			bound: []topology.ExistingPod{bound(a2, db), bound(b1, cache)}, on: a1,
			want: []bool{true, false},
		},
		{
			name: "affinity to itself: the first of its group holds it",
			pod:  testutil.Pod("web").Label("app", "web").PreferredPodAffinity(50, zoneKey, web),
			on:   a1,
			want: []bool{true},
		},
		{
			name:  "affinity: a node without the key breaks it",
			pod:   testutil.Pod("api").Label("app", "api").PreferredPodAffinity(50, zoneKey, db),
			bound: []topology.ExistingPod{bound(a2, db)}, on: bare,
			want: []bool{false},
		},
		{
			name:  "spread: zone a holds two web pods, zone b none, so another web pod in a breaks maxSkew 1",
			pod:   testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.ScheduleAnyway, web),
			bound: []topology.ExistingPod{bound(a2, web)}, on: a1,
			want: []bool{false},
		},
		{
			name:  "spread: in the emptier zone it holds",
			pod:   testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.ScheduleAnyway, web),
			bound: []topology.ExistingPod{bound(a2, web)}, on: b1,
			want: []bool{true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sources []topology.Source
			for _, n := range nodes {
				sources = append(sources, nodeSource(n))
			}
			tr := topology.New(requirements.DefaultSchema(), sources, nil, tc.bound)
			p := register(t, tr, specOf(tc.pod.Obj()))[0]
			tr.CloseDomains(nodes)
			var got []bool
			for i := range p.Terms {
				got = append(got, tr.Holds(p, i, onNode(tc.on)))
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Holds per term (-want +got):\n%s", diff)
			}
		})
	}
}
