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

// offerRank prices a claim by the cheapest (zone, capacity type) offering
// its pins and the ranked domain allow: spot only in zone a.
func offerRank(pins []requirements.Requirement, key, value string) float64 {
	offers := map[[2]string]float64{
		{zoneA, requirements.CapacityTypeSpot}:     1,
		{zoneA, requirements.CapacityTypeOnDemand}: 2,
		{zoneB, requirements.CapacityTypeOnDemand}: 2,
		{zoneC, requirements.CapacityTypeOnDemand}: 2,
	}
	all := requirements.NewRequirements(pins...).Add(requirements.In(key, value))
	best := math.Inf(1)
	for o, price := range offers {
		if all.Get(zoneKey).Has(o[0]) && all.Get(ctKey).Has(o[1]) {
			best = min(best, price)
		}
	}
	return best
}

// A check pins a claim key by key: the capacity type first (spot, the
// cheaper), which leaves no zone the web pod's anti-affinity allows (cache
// runs in zone a, the only zone with spot). With LookAhead, and the
// capacity type pinned only because the pod's relaxed spread counts it
// there, the check chooses again with the zones the anti-affinity allows
// in view: on-demand in zone b.
func TestCheckLookAhead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		lookAhead bool
		active    topology.Active
		// rack adds a required spread on a custom key (sorted after the
		// zone) that the claim will not carry.
		rack bool
		// required makes the capacity-type spread DoNotSchedule.
		required bool
		want     outcome
	}{
		{name: "greedy", active: requiredOnly, want: refused(topology.AntiAffinity, zoneKey, "", false)},
		{name: "look ahead", lookAhead: true, active: requiredOnly,
			want: ok(pin(ctKey, requirements.CapacityTypeOnDemand), pin(zoneKey, zoneB))},
		// The spread enforced chose the capacity type: not this check's to change.
		{name: "own rule chose", lookAhead: true, active: allTerms, want: refused(topology.AntiAffinity, zoneKey, "", false)},
		// A required spread of its own allows both capacity types: the
		// greedy pass chose spot by price, and the check may choose again.
		{name: "own required rule allows both", lookAhead: true, active: requiredOnly, required: true,
			want: ok(pin(ctKey, requirements.CapacityTypeOnDemand), pin(zoneKey, zoneB))},
		{name: "own required rule, greedy", active: requiredOnly, required: true, want: refused(topology.AntiAffinity, zoneKey, "", false)},
		// The key the greedy pass never reached is still checked.
		{name: "missing key after", lookAhead: true, active: requiredOnly, rack: true, want: refused(topology.AntiAffinity, zoneKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			when := corev1.ScheduleAnyway
			if tc.required {
				when = corev1.DoNotSchedule
			}
			web := testutil.Pod("web").Label("tier", "web").PodAntiAffinity(zoneKey, cache).
				Spread(ctKey, 1, when, map[string]string{"tier": "web"})
			if tc.rack {
				web = web.Spread("zone.example.com/rack", 1, corev1.DoNotSchedule, map[string]string{"tier": "web"})
			}
			pods := register(t, tr, specOf(testutil.Pod("cache").Label("app", "cache").Obj()), specOf(web.Obj()))
			tr.Record(pods[0], allTerms, zonalClaim("c1", zoneA))
			host := openClaim("c2")
			host.LookAhead = tc.lookAhead
			if diff := gocmp.Diff(tc.want, check(tr, pods[1], tc.active, host, offerRank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// A key where the pod enforces nothing and only preferred terms count it
// is left open under LookAhead when no domain has an instance type for the
// pod; a required spread of another pod that counts it keeps it pinned.
func TestCheckLookAheadSoftCountedKey(t *testing.T) {
	t.Parallel()
	none := func([]requirements.Requirement, string, string) float64 { return math.Inf(1) }
	racks := poolSource("default", map[string][]string{rackKey: {"r1", "r2"}})
	tests := []struct {
		name      string
		lookAhead bool
		required  bool
		want      outcome
	}{
		{name: "greedy", want: refused(topology.Spread, rackKey, "", false)},
		{name: "look ahead", lookAhead: true, want: ok()},
		{name: "counted by a required spread", lookAhead: true, required: true, want: refused(topology.Spread, rackKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{racks}, nil, nil)
			other := testutil.Pod("other").Label("app", "other")
			if tc.required {
				other = other.Spread(rackKey, 1, corev1.DoNotSchedule, map[string]string{"tier": "batch"})
			}
			pods := register(t, tr,
				specOf(other.Obj()),
				specOf(testutil.Pod("batch").Label("tier", "batch").
					Spread(rackKey, 1, corev1.ScheduleAnyway, map[string]string{"tier": "batch"}).Obj()))
			host := &topology.Host{Hostname: "c1", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r1", "r2")),
				Domains: domainList{rackKey: {"r1", "r2"}}, LookAhead: tc.lookAhead}
			if diff := gocmp.Diff(tc.want, check(tr, pods[1], requiredOnly, host, none)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
