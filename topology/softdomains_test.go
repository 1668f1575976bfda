package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestKarpenterPick: under SoftSpreadPoolDomains a soft spread gives a
// NodeClaim Karpenter's pick, a domain of least count among those the pool
// offers (zones a, b and c; on-demand and spot), and fails where most of
// them are domains the claim's instance types are not in.
func TestKarpenterPick(t *testing.T) {
	t.Parallel()
	web := map[string]string{"app": "web"}
	tests := []struct {
		name string
		key  string
		// placed: replicas already on an on-demand NodeClaim in zone a.
		placed int
		// claim: the values the NodeClaim's instance types can take.
		claim []string
		pool  bool
		// required: a DoNotSchedule spread, with PickRequiredDomains on
		// (pick) or off.
		required, pick bool
		want           outcome
	}{
		{name: "capacity type: least-count tie, one of two reachable", key: ctKey, claim: []string{requirements.CapacityTypeOnDemand},
			pool: true, want: ok("karpenter.sh/capacity-type In [on-demand]")},
		{name: "capacity type: spot is the least, on-demand only reachable", key: ctKey, placed: 1, claim: []string{requirements.CapacityTypeOnDemand},
			pool: true, want: refused(topology.Spread, ctKey, "", false)},
		{name: "zone: one of three least-count zones reachable", key: zoneKey, claim: []string{zoneA}, pool: true,
			want: refused(topology.Spread, zoneKey, "", false)},
		{name: "zone: one of three reachable, nodeplan's own plan", key: zoneKey, claim: []string{zoneA},
			want: ok("topology.kubernetes.io/zone In [" + zoneA + "]")},
		{name: "zone: two of three reachable", key: zoneKey, claim: []string{zoneA, zoneB}, pool: true,
			want: ok("topology.kubernetes.io/zone In [" + zoneA + "]")},
		{name: "required zone: two of three reachable, picked", key: zoneKey, claim: []string{zoneA, zoneB}, pool: true,
			required: true, pick: true, want: refused(topology.Spread, zoneKey, "", false)},
		{name: "required zone: two of three reachable, not picked", key: zoneKey, claim: []string{zoneA, zoneB}, pool: true,
			required: true, want: ok("topology.kubernetes.io/zone In [" + zoneA + "]")},
		{name: "required zone: one least-count zone, reachable, picked", key: zoneKey, placed: 1, claim: []string{zoneB, zoneC}, pool: true,
			required: true, pick: true, want: ok("topology.kubernetes.io/zone In [" + zoneB + "]")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			if tc.pool {
				tr.SoftSpreadPoolDomains()
			}
			tr.PickRequiredDomains(tc.pick)
			when := corev1.ScheduleAnyway
			if tc.required {
				when = corev1.DoNotSchedule
			}
			pod := testutil.Pod("web").Label("app", "web").Spread(tc.key, 1, when, web).Obj()
			pods := register(t, tr, specOf(pod))
			placed := &topology.Host{Hostname: "placed", Requirements: requirements.NewRequirements(
				requirements.In(zoneKey, zoneA), requirements.In(ctKey, requirements.CapacityTypeOnDemand))}
			for range tc.placed {
				tr.Record(pods[0], allTerms, placed)
			}
			claim := &topology.Host{Hostname: "new", Domains: domainList{tc.key: tc.claim}}
			got := check(tr, pods[0], allTerms, claim, rankBy(nil))
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check on a new NodeClaim (-want +got):\n%s", diff)
			}
		})
	}
}
