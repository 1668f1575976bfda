package scheduler_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
)

// TestPreferencesDroppedUnderLimits: when keeping preferences spends a
// NodePool's limits on nodes that hold few pods, the plan with them
// dropped from the start places more and wins, and its relaxations name
// every pod whose preference it does not honour; Honor keeps them.
func TestPreferencesDroppedUnderLimits(t *testing.T) {
	sc := loadScenario(t, filepath.Join("..", "testdata", "scenarios", "never-worse-limit-preference-dropped"))
	cases := []struct {
		policy        scheduler.PreferencePolicy
		wantScheduled int
		wantRelaxed   []string
	}{
		{scheduler.PreferenceRespect, 6, []string{"default/app-1", "default/app-2", "default/app-3", "default/app-4", "default/app-5"}},
		{scheduler.PreferenceWhileFree, 6, []string{"default/app-1", "default/app-2", "default/app-3", "default/app-4", "default/app-5"}},
		{scheduler.PreferenceHonor, 2, nil},
	}
	for _, tc := range cases {
		t.Run(string(tc.policy), func(t *testing.T) {
			res, err := scheduler.Solve(pendingPods(sc.in), sc.in.NodePools, sc.catalog, append(sc.opts, scheduler.WithPreferencePolicy(tc.policy))...)
			require.NoError(t, err)
			if res.Summary.Scheduled != tc.wantScheduled {
				t.Errorf("scheduled %d, want %d", res.Summary.Scheduled, tc.wantScheduled)
			}
			var relaxed []string
			for _, r := range res.Relaxations {
				relaxed = append(relaxed, r.Pod)
				want := []string{"preferred node affinity (weight 10): node.kubernetes.io/instance-type In [small]"}
				if diff := cmp.Diff(want, r.Dropped); diff != "" {
					t.Errorf("pod %s: dropped (-want +got):\n%s", r.Pod, diff)
				}
			}
			slices.Sort(relaxed)
			if diff := cmp.Diff(tc.wantRelaxed, relaxed); diff != "" {
				t.Errorf("relaxed pods (-want +got):\n%s", diff)
			}
		})
	}
}
