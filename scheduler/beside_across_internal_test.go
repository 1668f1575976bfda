package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
)

// TestBesideOnly pins which targets a pod must run beside, for the move
// of a target to another domain: a required pod affinity on hostname that
// selects them; a zone affinity or a preferred one does not tie the pod to
// a target's node.
func TestBesideOnly(t *testing.T) {
	t.Parallel()
	db := map[string]string{"app": "db"}
	target := testutil.Pod("db-0").Label("app", "db").Obj()
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"required hostname affinity", testutil.Pod("side").PodAffinity(corev1.LabelHostname, db).Obj(), true},
		{"required zone affinity", testutil.Pod("side").PodAffinity(corev1.LabelTopologyZone, db).Obj(), false},
		{"preferred hostname affinity", testutil.Pod("side").PreferredPodAffinity(10, corev1.LabelHostname, db).Obj(), false},
		{"selects another app", testutil.Pod("side").PodAffinity(corev1.LabelHostname, map[string]string{"app": "cache"}).Obj(), false},
		{"target in another namespace", testutil.Pod("side").Namespace("other").PodAffinity(corev1.LabelHostname, db).Obj(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := besideOnly(classOf(tt.pod), classOf(target))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("besideOnly (-want +got):\n%s", diff)
			}
		})
	}
}
