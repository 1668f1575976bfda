package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestCheckSpreadNeedsEveryKey: kube-scheduler's PodTopologySpread counts
// a node for a pod's DoNotSchedule constraints, and takes it for a domain,
// only when the node has a label for every key of them. The web pod on the
// node without a rack label is then not counted in its zone when the pod
// also spreads on racks, and is counted when it spreads on zones alone.
func TestCheckSpreadNeedsEveryKey(t *testing.T) {
	t.Parallel()
	racked := zoneNode("racked", zoneA)
	racked.Labels[rackKey] = "r1"
	bare := zoneNode("bare", zoneB)
	pool := topology.Source{Name: "racks", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r1")),
		Values: func(key string, reqs requirements.Requirements) []string {
			var out []string
			for _, v := range map[string][]string{zoneKey: {zoneA, zoneB}, rackKey: {"r1"}}[key] {
				if reqs.Get(key).Has(v) {
					out = append(out, v)
				}
			}
			return out
		}}
	claimIn := func(zone string) *topology.Host {
		return &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(zoneKey, zone), requirements.In(rackKey, "r1"))}
	}
	zoneOnly := testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web)
	both := testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Spread(rackKey, 1, corev1.DoNotSchedule, web)
	softRack := testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Spread(rackKey, 1, corev1.ScheduleAnyway, web)
	tests := []struct {
		name string
		pod  *testutil.PodBuilder
		host *topology.Host
		want outcome
	}{
		// zone counts a=1 b=1: either zone takes one more.
		{name: "zone alone: the bare node's pod counts", pod: zoneOnly, host: claimIn(zoneA), want: ok()},
		// zone counts a=1, b=0 (the bare node is left out): a is full.
		{name: "zone and rack: the bare node's pod does not count", pod: both, host: claimIn(zoneA), want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		{name: "zone and rack: the empty zone takes it", pod: both, host: claimIn(zoneB), want: ok()},
		// A ScheduleAnyway constraint is of the other set: the DoNotSchedule
		// zone spread counts the bare node.
		{name: "zone and a soft rack spread: the bare node's pod counts", pod: softRack, host: claimIn(zoneA), want: ok()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool, nodeSource(racked), nodeSource(bare)}, nil,
				[]topology.ExistingPod{bound(racked, web), bound(bare, web)})
			p := register(t, tr, specOf(tc.pod.Obj()))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
