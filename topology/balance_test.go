package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// A pod that a zone spread counts, but that carries no constraint itself,
// is pinned to a zone when its claim is planned. With no carrier placed
// yet, only the price and then the value choose the zone; under
// BalanceAhead a tie in price goes to the zone the spread counts least in.
func TestBalanceAhead(t *testing.T) {
	t.Parallel()
	even := rankBy(map[string]float64{zoneA: 1, zoneB: 1, zoneC: 1})
	tests := []struct {
		name    string
		balance bool
		rank    topology.Ranker
		want    outcome
	}{
		{name: "by value", rank: even, want: ok(pin(zoneKey, zoneA))},
		{name: "balanced", balance: true, rank: even, want: ok(pin(zoneKey, zoneB))},
		{name: "price first", balance: true, rank: rankBy(map[string]float64{zoneA: 1, zoneB: 2, zoneC: 2}), want: ok(pin(zoneKey, zoneA))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			if tc.balance {
				tr.BalanceAhead()
			}
			pods := register(t, tr,
				specOf(testutil.Pod("db").Label("app", "db").Label("tier", "web").Obj()),
				specOf(testutil.Pod("web").Label("app", "web").Label("tier", "web").
					Spread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"tier": "web"}).Obj()))
			db := pods[0]
			tr.Record(db, allTerms, zonalClaim("c1", zoneA))
			host := &topology.Host{Hostname: "c2", Domains: domainList{zoneKey: {zoneA, zoneB, zoneC}}}
			if diff := gocmp.Diff(tc.want, check(tr, db, allTerms, host, tc.rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
