package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestLeftOut pins which classes a plan leaves out entirely and may leave
// out from the start: type a (generation 1), type b (generation 2). The
// ghost pods (tier=web) require type a with generation 2 and carry a
// required spread over tier=web; the odd pods require generation 7; the
// web pods fit anywhere.
func TestLeftOut(t *testing.T) {
	t.Parallel()
	typ := func(name, gen string) instancetypes.InstanceType {
		return testutil.InstanceType(name).Label("generation", gen).CPU("4").Memory("16Gi").Pods("110").Offering("z1", "on-demand", 0.1).Obj()
	}
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{typ("a", "1"), typ("b", "2")})
	require.NoError(t, err)
	web := map[string]string{"tier": "web"}
	ghost := testutil.Pod("ghost").Label("tier", "web").CPU("1").NodeSelector(requirements.LabelInstanceType, "a").
		NodeSelector("generation", "2").Spread(requirements.LabelHostname, 1, corev1.DoNotSchedule, web).Obj()
	odd := testutil.Pod("odd").CPU("1").NodeSelector("generation", "7")
	fits := testutil.Pod("web").Label("tier", "web").CPU("1").Obj()
	soft := testutil.Pod("ghost").Label("tier", "web").CPU("1").NodeSelector(requirements.LabelInstanceType, "a").
		NodeSelector("generation", "2").Spread(requirements.LabelHostname, 1, corev1.ScheduleAnyway, web).Obj()
	tests := []struct {
		name string
		pods []*corev1.Pod
		want []string
	}{
		{name: "its spread counts a pod left unplaced", pods: []*corev1.Pod{ghost, odd.Label("tier", "web").Obj(), fits}, want: []string{"default/ghost"}},
		{name: "its spread counts no pod left unplaced", pods: []*corev1.Pod{ghost, odd.Label("tier", "batch").Obj(), fits}},
		{name: "every other pod placed", pods: []*corev1.Pod{ghost, fits}},
		{name: "a preferred spread pins too", pods: []*corev1.Pod{soft, odd.Label("tier", "web").Obj(), fits}, want: []string{"default/ghost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := resolveFor(cat, nil)
			require.NoError(t, err)
			s, err := newSolver(tt.pods, []nodepool.NodePool{testutil.NodePool("default").Obj()}, cat, cfg)
			require.NoError(t, err)
			s.run()
			var got []string
			for name, f := range s.leftOut() {
				require.NotNil(t, f, "a reason for %s", name)
				got = append(got, name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("leftOut (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithoutTopologyTerms checks that a class left out keeps its node
// affinity only.
func TestWithoutTopologyTerms(t *testing.T) {
	t.Parallel()
	web := map[string]string{"tier": "web"}
	full := testutil.Pod("p").NodeSelector("team", "a").Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, web).
		Spread(requirements.LabelHostname, 1, corev1.ScheduleAnyway, web).
		PodAffinity(requirements.LabelHostname, web).PodAntiAffinity(requirements.LabelTopologyZone, web).
		PreferredPodAntiAffinity(10, requirements.LabelHostname, web).
		RequiredTerm(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z1"}}).Obj()
	spec := topology.PodSpec{Spread: full.Spec.TopologySpreadConstraints, Affinity: full.Spec.Affinity}
	got := withoutTopologyTerms(spec)
	want := topology.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: full.Spec.Affinity.NodeAffinity}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withoutTopologyTerms (-want +got):\n%s", diff)
	}
	require.Len(t, full.Spec.TopologySpreadConstraints, 2, "the input's slices are left alone")
	require.NotNil(t, full.Spec.Affinity.PodAffinity, "the input's affinity is left alone")
}
