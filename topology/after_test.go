package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestBindsAfterOwner: a pod counted by another pod's DoNotSchedule zone
// spread is kept out of a domain where that owner, placed there, would
// exceed its skew by binding after it; unless the pod requires a pod
// affinity that selects the owner alone and the owner is one pod: then it
// binds after the owner whatever the order, and the spread never counts
// it. Two db pods, or a cache whose affinity also selects another pod,
// keep the protection.
func TestBindsAfterOwner(t *testing.T) {
	t.Parallel()
	tier := map[string]string{"tier": "web"}
	dbPod := testutil.Pod("db").Label("app", "db").Label("tier", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, tier).Obj()
	cachePod := testutil.Pod("cache").Label("app", "cache").Label("tier", "web").PodAffinity(hostKey, db).Obj()
	wideCache := testutil.Pod("cache").Label("app", "cache").Label("tier", "web").PodAffinity(hostKey, map[string]string{"tier": "web"}).Obj()
	tests := []struct {
		name  string
		dbs   int
		cache *corev1.Pod
		want  outcome
	}{
		{name: "one db: the cache pods join its node", dbs: 1, cache: cachePod, want: ok()},
		{name: "two db pods: the second may bind after the cache pods", dbs: 2, cache: cachePod,
			want: refused(topology.Spread, zoneKey, "", false)},
		{name: "an affinity that selects the cache pods too", dbs: 1, cache: wideCache,
			want: refused(topology.Spread, zoneKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			dbSpec, cacheSpec := specOf(dbPod), specOf(tc.cache)
			dbSpec.Count, cacheSpec.Count = tc.dbs, 2
			pods := register(t, tr, dbSpec, cacheSpec)
			host := zonalClaim("n1", zoneA)
			tr.Record(pods[0], allTerms, host)
			tr.Record(pods[1], allTerms, host) // the first cache pod
			got := check(tr, pods[1], allTerms, host, rankBy(nil))
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check of the second cache pod (-want +got):\n%s", diff)
			}
		})
	}
}
