package scheduler_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// TestResolve checks what Resolve reads from options: the defaults, lists
// that add up across calls in order, and per-kind preference policies.
func TestResolve(t *testing.T) {
	t.Parallel()
	n1, n2 := testutil.Node("n1").Obj(), testutil.Node("n2").Obj()
	bound := testutil.Pod("b").NodeName("n1").Obj()
	ds := testutil.DaemonSet("agent", testutil.Pod("agent").CPU("100m").Obj())
	pvc, pv := testutil.PVC("data", "pv", "gp3"), testutil.ZonalPV("pv", "z1")
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "gp3"}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"tier": "a"}}}
	schema := requirements.DefaultSchema().WithWellKnown("example.com/team")
	all := func(p scheduler.PreferencePolicy) map[scheduler.PreferenceKind]scheduler.PreferencePolicy {
		out := map[scheduler.PreferenceKind]scheduler.PreferencePolicy{}
		for _, k := range scheduler.PreferenceKinds() {
			out[k] = p
		}
		return out
	}
	mixed := all(scheduler.PreferenceIgnore)
	mixed[scheduler.PreferTopologySpread] = scheduler.PreferenceWhileFree
	tests := []struct {
		name string
		opts []scheduler.Option
		want scheduler.Settings
	}{
		{name: "defaults", want: scheduler.Settings{Preferences: all(scheduler.PreferenceRespect),
			MinValues: scheduler.MinValuesStrict, MaxInstanceTypeOptions: 100}},
		{name: "every option", opts: []scheduler.Option{
			scheduler.WithExistingNodes([]*corev1.Node{n1}, []*corev1.Pod{bound}),
			scheduler.WithExistingNodes([]*corev1.Node{n2}, nil),
			scheduler.WithDaemonSets([]*appsv1.DaemonSet{ds}),
			scheduler.WithVolumes([]*corev1.PersistentVolumeClaim{pvc}, []*corev1.PersistentVolume{pv}, []*storagev1.StorageClass{class}),
			scheduler.WithNamespaces([]*corev1.Namespace{ns}),
			scheduler.WithPreferencePolicy(scheduler.PreferenceIgnore),
			scheduler.WithPreferencePolicyFor(scheduler.PreferTopologySpread, scheduler.PreferenceWhileFree),
			scheduler.WithMinValuesPolicy(scheduler.MinValuesBestEffort),
			scheduler.WithSchema(schema),
			scheduler.WithMaxInstanceTypeOptions(7),
			scheduler.WithSeed(1), scheduler.WithNodeCost(0.5), // steer the search only
		}, want: scheduler.Settings{
			Nodes: []*corev1.Node{n1, n2}, BoundPods: []*corev1.Pod{bound}, DaemonSets: []*appsv1.DaemonSet{ds},
			PVCs: []*corev1.PersistentVolumeClaim{pvc}, PVs: []*corev1.PersistentVolume{pv}, StorageClasses: []*storagev1.StorageClass{class},
			Namespaces: []*corev1.Namespace{ns}, Preferences: mixed, MinValues: scheduler.MinValuesBestEffort,
			Schema: &schema, MaxInstanceTypeOptions: 7,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := scheduler.Resolve(tt.opts...)
			require.NoError(t, err)
			// requirements.Schema has unexported fields: compare it by what it says.
			if diff := gocmp.Diff(tt.want, got, gocmp.Comparer(func(a, b requirements.Schema) bool {
				return gocmp.Equal(a.WellKnownKeys(), b.WellKnownKeys()) && gocmp.Equal(a.Aliases(), b.Aliases())
			})); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSettingsSchemaFor: WithSchema's vocabulary wins over the catalog's.
func TestSettingsSchemaFor(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("m").Label("example.com/size", "large").CPU("2").Memory("4Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	def, err := scheduler.Resolve()
	require.NoError(t, err)
	if !def.SchemaFor(cat).IsWellKnown("example.com/size") {
		t.Error("default settings: the catalog's label example.com/size is not well-known")
	}
	set, err := scheduler.Resolve(scheduler.WithSchema(requirements.DefaultSchema()))
	require.NoError(t, err)
	if set.SchemaFor(cat).IsWellKnown("example.com/size") {
		t.Error("WithSchema(DefaultSchema): the catalog's label example.com/size is well-known")
	}
}
