package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestCloseDomains: once the plan's nodes are known, a spread's global
// minimum runs over the domains of those that pass its node filter, as
// kube-scheduler's does; OpenDomains returns to the domains the pods could
// use (every zone the pool offers, an empty new node for hostname).
func TestCloseDomains(t *testing.T) {
	t.Parallel()
	n1, n2, n3 := zoneNode("n1", zoneA), zoneNode("n2", zoneA), zoneNode("n3", zoneB)
	claimA := &topology.Node{Name: "c", Labels: map[string]string{hostKey: "c", zoneKey: zoneA}}
	tests := []struct {
		name  string
		pod   *testutil.PodBuilder
		nodes []*topology.Node
		host  *topology.Host
		open  outcome
		want  outcome
	}{
		{
			name:  "zone: a zone no node is in is no domain",
			pod:   testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web),
			nodes: []*topology.Node{n1, n2, claimA}, host: onNode(n2),
			open: refused(topology.Spread, zoneKey, spreadZoneWeb, false), want: ok(),
		},
		{
			name:  "zone: an eligible node with no match keeps the minimum at 0",
			pod:   testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web),
			nodes: []*topology.Node{n1, n2, n3, claimA}, host: onNode(n2),
			open: refused(topology.Spread, zoneKey, spreadZoneWeb, false), want: refused(topology.Spread, zoneKey, spreadZoneWeb, false),
		},
		{
			name:  "hostname: every node holds a match, so the minimum is 1",
			pod:   testutil.Pod("web").Label("app", "web").Spread(hostKey, 1, corev1.DoNotSchedule, web),
			nodes: []*topology.Node{n1, n2}, host: onNode(n1),
			open: refused(topology.Spread, hostKey, spreadHostWeb, true), want: ok(),
		},
		{
			name:  "hostname: an empty node keeps the minimum at 0",
			pod:   testutil.Pod("web").Label("app", "web").Spread(hostKey, 1, corev1.DoNotSchedule, web),
			nodes: []*topology.Node{n1, n2, n3}, host: onNode(n1),
			open: refused(topology.Spread, hostKey, spreadHostWeb, true), want: refused(topology.Spread, hostKey, spreadHostWeb, false),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(),
				[]topology.Source{zonePool(), nodeSource(n1), nodeSource(n2), nodeSource(n3)}, nil,
				[]topology.ExistingPod{bound(n1, web), bound(n2, web)})
			pod := register(t, tr, specOf(tc.pod.Obj()))[0]
			if diff := gocmp.Diff(tc.open, check(tr, pod, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("open (-want +got):\n%s", diff)
			}
			tr.CloseDomains(tc.nodes)
			if diff := gocmp.Diff(tc.want, check(tr, pod, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("closed (-want +got):\n%s", diff)
			}
			tr.OpenDomains()
			if diff := gocmp.Diff(tc.open, check(tr, pod, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("open again (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCloseDomainsFrom: closing with the first nodes fixed gives what
// CloseDomains gives, whatever the split, and when a later call's first
// nodes are other nodes (the domains they give are found again, not
// kept): a hostname spread whose nodes all hold a match has a minimum of 1
// until a node without one is among the first nodes.
func TestCloseDomainsFrom(t *testing.T) {
	t.Parallel()
	n1, n2, n3 := zoneNode("n1", zoneA), zoneNode("n2", zoneA), zoneNode("n3", zoneB)
	claimA := &topology.Node{Name: "c", Labels: map[string]string{hostKey: "c", zoneKey: zoneA}}
	pod := testutil.Pod("web").Label("app", "web").Spread(hostKey, 1, corev1.DoNotSchedule, web)
	newTracker := func() (*topology.Tracker, *topology.Pod) {
		tr := topology.New(requirements.DefaultSchema(),
			[]topology.Source{zonePool(), nodeSource(n1), nodeSource(n2), nodeSource(n3)}, nil,
			[]topology.ExistingPod{bound(n1, web), bound(n2, web)})
		return tr, register(t, tr, specOf(pod.Obj()))[0]
	}
	calls := []struct {
		nodes []*topology.Node
		fixed int
		want  outcome
	}{
		{nodes: []*topology.Node{n1, n2, claimA}, fixed: 2, want: refused(topology.Spread, hostKey, spreadHostWeb, false)},
		{nodes: []*topology.Node{n1, n2}, fixed: 2, want: ok()},
		{nodes: []*topology.Node{n1, n3}, fixed: 2, want: refused(topology.Spread, hostKey, spreadHostWeb, false)},
		{nodes: []*topology.Node{n1, n2, n3}, fixed: 1, want: refused(topology.Spread, hostKey, spreadHostWeb, false)},
		{nodes: []*topology.Node{n1, n2}, fixed: 1, want: ok()},
		{nodes: []*topology.Node{n1, n2}, fixed: 0, want: ok()},
	}
	from, fromPod := newTracker()
	for i, c := range calls {
		whole, wholePod := newTracker()
		whole.CloseDomains(c.nodes)
		from.CloseDomainsFrom(c.nodes, c.fixed)
		if diff := gocmp.Diff(c.want, check(whole, wholePod, allTerms, onNode(n1), nil)); diff != "" {
			t.Errorf("call %d: CloseDomains (-want +got):\n%s", i, diff)
		}
		if diff := gocmp.Diff(c.want, check(from, fromPod, allTerms, onNode(n1), nil)); diff != "" {
			t.Errorf("call %d: CloseDomainsFrom (-want +got):\n%s", i, diff)
		}
	}
}

// TestSpreadReach: a pod's spreads reach the domains that hold a pod their
// group selects, per spread term in order; recording the pod in a new
// domain reaches one more, and undoing it one fewer.
func TestSpreadReach(t *testing.T) {
	t.Parallel()
	n1, n2, n3 := zoneNode("n1", zoneA), zoneNode("n2", zoneA), zoneNode("n3", zoneB)
	tr := topology.New(requirements.DefaultSchema(),
		[]topology.Source{zonePool(), nodeSource(n1), nodeSource(n2), nodeSource(n3)}, nil,
		[]topology.ExistingPod{bound(n1, web), bound(n2, web), bound(n3, map[string]string{"app": "db"})})
	pod := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").
		Spread(zoneKey, 1, corev1.DoNotSchedule, web).
		PodAntiAffinity(hostKey, map[string]string{"app": "db"}).
		Spread(hostKey, 1, corev1.ScheduleAnyway, web).Obj()))[0]
	if diff := gocmp.Diff([]int{1, 2}, tr.SpreadReach(pod)); diff != "" {
		t.Errorf("before (-want +got):\n%s", diff)
	}
	host := zonalClaim("c", zoneC)
	tr.Record(pod, allTerms, host)
	if diff := gocmp.Diff([]int{2, 3}, tr.SpreadReach(pod)); diff != "" {
		t.Errorf("recorded in zone c (-want +got):\n%s", diff)
	}
	tr.Unrecord(pod, allTerms, host)
	if diff := gocmp.Diff([]int{1, 2}, tr.SpreadReach(pod)); diff != "" {
		t.Errorf("unrecorded (-want +got):\n%s", diff)
	}
}

// TestFollowsPods: only a required pod affinity makes a pod follow others.
func TestFollowsPods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pod  *testutil.PodBuilder
		want bool
	}{
		{name: "spread only", pod: testutil.Pod("p").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web)},
		{name: "required anti-affinity", pod: testutil.Pod("p").Label("app", "web").PodAntiAffinity(hostKey, web)},
		{name: "preferred affinity", pod: testutil.Pod("p").Label("app", "web").PreferredPodAffinity(10, zoneKey, web)},
		{name: "required affinity", pod: testutil.Pod("p").Label("app", "web").PodAffinity(zoneKey, web), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			pod := register(t, tr, specOf(tc.pod.Obj()))[0]
			if got := pod.FollowsPods(); got != tc.want {
				t.Errorf("FollowsPods() = %v, want %v", got, tc.want)
			}
		})
	}
}
