package topology_test

import (
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestCheckSoftOwnerOpen: with LeaveSoftTargetsOpen, a pod whose only rule
// on a key is a preferred anti-affinity (and that only loose groups count
// there) leaves its NodeClaim open on every domain the preference allows
// against the pods placed so far and an instance type can hold it in, as
// Karpenter does; without the switch, or with any other rule on the key, it
// is pinned to one domain as before.
func TestCheckSoftOwnerOpen(t *testing.T) {
	t.Parallel()
	rank := rankBy(map[string]float64{zoneB: 1, zoneC: 2, zoneA: 3})
	noC := func(_ []requirements.Requirement, _, value string) float64 {
		if value == zoneC {
			return math.Inf(1)
		}
		return rank(nil, "", value)
	}
	soft := testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(5, zoneKey, db)
	tests := []struct {
		name    string
		pinAll  bool // the tracker is made without LeaveSoftTargetsOpen
		web     *corev1.Pod
		dbZones []string // zones of db pods placed before the check
		rank    topology.Ranker
		want    outcome
	}{
		{name: "no db placed: every zone", web: soft.Obj(), rank: rank,
			want: ok(requirements.In(zoneKey, zoneA, zoneB, zoneC).String())},
		{name: "a db in zone a: the other zones", web: soft.Obj(), dbZones: []string{zoneA}, rank: rank,
			want: ok(requirements.In(zoneKey, zoneB, zoneC).String())},
		{name: "no type holds it in zone c: left out", web: soft.Obj(), dbZones: []string{zoneA}, rank: noC,
			want: ok(pin(zoneKey, zoneB))},
		{name: "without the switch: pinned to the best zone", pinAll: true, web: soft.Obj(), dbZones: []string{zoneA}, rank: rank,
			want: ok(pin(zoneKey, zoneB))},
		{name: "a required anti-affinity on the key too: pinned",
			web:  testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(5, zoneKey, db).PodAntiAffinity(zoneKey, cache).Obj(),
			rank: rank, want: ok(pin(zoneKey, zoneB))},
		{name: "its own zone spread: pinned",
			web:  testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(5, zoneKey, db).Spread(zoneKey, 1, corev1.ScheduleAnyway, web).Obj(),
			rank: rank, want: ok(pin(zoneKey, zoneB))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			if !tc.pinAll {
				tr.LeaveSoftTargetsOpen()
			}
			pods := register(t, tr, specOf(tc.web), specOf(testutil.Pod("db").Label("app", "db").Obj()))
			for i, z := range tc.dbZones {
				tr.Record(pods[1], allTerms, zonalClaim("db"+string(rune('0'+i)), z))
			}
			if diff := gocmp.Diff(tc.want, check(tr, pods[0], allTerms, openClaim("c"), tc.rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
