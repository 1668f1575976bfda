package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
)

// classOf is a class as the selection rules below read it: namespace,
// labels and the sample pod's spec.
func classOf(p *corev1.Pod) *class {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	return &class{sample: p, namespace: ns, labels: p.Labels}
}

// TestSpreadOwnerCounts pins which pods a spread's owner counts for the
// owners-last plan: a DoNotSchedule constraint's selector, in the owner's
// namespace; ScheduleAnyway and nil selectors count nobody.
func TestSpreadOwnerCounts(t *testing.T) {
	t.Parallel()
	web := map[string]string{"tier": "web"}
	tests := []struct {
		name  string
		owner *corev1.Pod
		other *corev1.Pod
		want  bool
	}{
		{"required spread selects the other", testutil.Pod("o").Spread("zone", 1, corev1.DoNotSchedule, web).Obj(), testutil.Pod("x").Label("tier", "web").Obj(), true},
		{"selector does not match", testutil.Pod("o").Spread("zone", 1, corev1.DoNotSchedule, web).Obj(), testutil.Pod("x").Label("tier", "batch").Obj(), false},
		{"ScheduleAnyway is a preference", testutil.Pod("o").Spread("zone", 1, corev1.ScheduleAnyway, web).Obj(), testutil.Pod("x").Label("tier", "web").Obj(), false},
		{"other namespace", testutil.Pod("o").Spread("zone", 1, corev1.DoNotSchedule, web).Obj(), testutil.Pod("x").Namespace("other").Label("tier", "web").Obj(), false},
		{"no spread", testutil.Pod("o").Obj(), testutil.Pod("x").Label("tier", "web").Obj(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			owners := spreadOwners([]*class{classOf(tt.owner)})
			got := len(owners) > 0 && owners[0].counts(classOf(tt.other))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}
