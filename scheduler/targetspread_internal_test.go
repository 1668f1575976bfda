package scheduler

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
)

// TestFollowerSpreadKey: the key a follower needs its targets spread over
// is one where it has both a required pod-affinity term and a
// DoNotSchedule spread of its own, never hostname.
func TestFollowerSpreadKey(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	const host = "kubernetes.io/hostname"
	db := map[string]string{"app": "db"}
	web := map[string]string{"app": "web"}
	cases := []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"affinity and spread on the zone", testutil.Pod("w").PodAffinity(zone, db).Spread(zone, 1, corev1.DoNotSchedule, web).Obj(), zone},
		{"the spread is soft", testutil.Pod("w").PodAffinity(zone, db).Spread(zone, 1, corev1.ScheduleAnyway, web).Obj(), ""},
		{"the affinity is preferred", testutil.Pod("w").PreferredPodAffinity(10, zone, db).Spread(zone, 1, corev1.DoNotSchedule, web).Obj(), ""},
		{"spread on another key", testutil.Pod("w").PodAffinity(zone, db).Spread(host, 1, corev1.DoNotSchedule, web).Obj(), ""},
		{"both on hostname", testutil.Pod("w").PodAffinity(host, db).Spread(host, 1, corev1.DoNotSchedule, web).Obj(), ""},
		{"no rule", testutil.Pod("w").Obj(), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := gocmp.Diff(tc.want, followerSpreadKey(tc.pod)); diff != "" {
				t.Errorf("followerSpreadKey (-want +got):\n%s", diff)
			}
		})
	}
}
