package scheduler_test

import (
	"errors"
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// Caller input that the solver cannot use is an *InputError naming the
// option and the index, from Solve, Resolve and verify.Plan alike, never a
// panic.
func TestOptionInputErrors(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	pods := []*corev1.Pod{testutil.Pod("a").CPU("1").Obj()}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	node := testutil.Node("n").Size("4", "8Gi", "10").Obj()
	tests := []struct {
		name string
		opts []scheduler.Option
		want []string
	}{
		{"nil node", []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node, nil}, nil)}, []string{"WithExistingNodes(nodes)[1]: nil node"}},
		{"node without name", []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{{}}, nil)}, []string{"WithExistingNodes(nodes)[0]: node without metadata.name"}},
		{"node twice, across calls", []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, nil), scheduler.WithExistingNodes([]*corev1.Node{node}, nil)},
			[]string{"WithExistingNodes(nodes)[1]: node n is given twice (also at 0)"}},
		{"node taint effect Never", []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{testutil.Node("n").Taint("gpu", "", "Never").Obj()}, nil)},
			[]string{`WithExistingNodes(nodes)[0]: spec.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{"nil bound pod", []scheduler.Option{scheduler.WithExistingNodes(nil, []*corev1.Pod{nil})}, []string{"WithExistingNodes(boundPods)[0]: nil pod"}},
		{"bound pod twice", []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{testutil.Pod("b").NodeName("n").Obj(), testutil.Pod("b").NodeName("n").Obj()})},
			[]string{"WithExistingNodes(boundPods)[1]: pod default/b is given twice (also at 0)"}},
		{"nil PVC", []scheduler.Option{scheduler.WithVolumes([]*corev1.PersistentVolumeClaim{nil}, nil, nil)}, []string{"WithVolumes(pvcs)[0]: nil PersistentVolumeClaim"}},
		{"nil PV", []scheduler.Option{scheduler.WithVolumes(nil, []*corev1.PersistentVolume{nil}, nil)}, []string{"WithVolumes(pvs)[0]: nil PersistentVolume"}},
		{"PV with Gt of two values", []scheduler.Option{scheduler.WithVolumes(nil, []*corev1.PersistentVolume{pvGt("pv", "1", "2")}, nil)},
			[]string{"WithVolumes(pvs)[0]: spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"}},
		{"nil StorageClass", []scheduler.Option{scheduler.WithVolumes(nil, nil, []*storagev1.StorageClass{nil})}, []string{"WithVolumes(classes)[0]: nil StorageClass"}},
		{"nil namespace", []scheduler.Option{scheduler.WithNamespaces([]*corev1.Namespace{nil})}, []string{"WithNamespaces[0]: nil Namespace"}},
		{"namespace twice", []scheduler.Option{scheduler.WithNamespaces([]*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, {ObjectMeta: metav1.ObjectMeta{Name: "x"}}})},
			[]string{"WithNamespaces[1]: Namespace x is given twice (also at 0)"}},
		{"nil DaemonSet", []scheduler.Option{scheduler.WithDaemonSets([]*appsv1.DaemonSet{nil})}, []string{"WithDaemonSets[0]: nil DaemonSet"}},
		{"DaemonSet with a negative request", []scheduler.Option{scheduler.WithDaemonSets([]*appsv1.DaemonSet{testutil.DaemonSet("agent", testutil.Pod("x").CPU("-1").Obj())})},
			[]string{`WithDaemonSets[0]: spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"NaN node cost", []scheduler.Option{scheduler.WithNodeCost(math.NaN())}, []string{"WithNodeCost: NaN: must be a finite number, not negative"}},
		{"infinite node cost", []scheduler.Option{scheduler.WithNodeCost(math.Inf(1))}, []string{"WithNodeCost: +Inf: must be a finite number, not negative"}},
		{"negative node cost", []scheduler.Option{scheduler.WithNodeCost(-1)}, []string{"WithNodeCost: -1: must be a finite number, not negative"}},
		{"negative budget", []scheduler.Option{scheduler.WithImprovementBudget(-1)}, []string{"WithImprovementBudget: -1: must not be negative"}},
		{"no options", []scheduler.Option{scheduler.WithMaxInstanceTypeOptions(0)}, []string{"WithMaxInstanceTypeOptions: 0: must be at least 1"}},
		{"policy", []scheduler.Option{scheduler.WithPreferencePolicy("Sometimes")}, []string{`WithPreferencePolicy: policy "Sometimes": want Respect, Honor, Ignore or WhileFree`}},
		{"unknown kind", []scheduler.Option{scheduler.WithPreferencePolicyFor("Colour", scheduler.PreferenceIgnore)},
			[]string{`WithPreferencePolicyFor(Colour): unknown preference kind "Colour" (kinds: PodAffinity, PodAntiAffinity, NodeAffinity, TopologySpread, PreferNoSchedule)`}},
		{"min values", []scheduler.Option{scheduler.WithMinValuesPolicy("Lax")}, []string{`WithMinValuesPolicy: policy "Lax": want Strict or BestEffort`}},
		{"every problem at once", []scheduler.Option{scheduler.WithNodeCost(math.NaN()), scheduler.WithNamespaces([]*corev1.Namespace{nil})},
			[]string{"WithNodeCost: NaN: must be a finite number, not negative", "WithNamespaces[0]: nil Namespace"}},
		{"a nil option is skipped", []scheduler.Option{nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, solveErr := scheduler.Solve(pods, pools, cat, tt.opts...)
			_, resolveErr := scheduler.Resolve(tt.opts...)
			verifyErr := verify.Plan(pods, pools, cat, scheduler.Result{}, tt.opts...)
			for _, err := range []error{solveErr, resolveErr, verifyErr} {
				if tt.want == nil {
					continue
				}
				var got []string
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var ie *scheduler.InputError
					require.True(t, errors.As(e, &ie), "%v is not an *InputError", e)
					got = append(got, ie.Error())
				}
				if diff := gocmp.Diff(tt.want, got); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			}
			if tt.want == nil && solveErr != nil {
				t.Errorf("Solve: %v", solveErr)
			}
		})
	}
}

func pvGt(name string, values ...string) *corev1.PersistentVolume {
	pv := testutil.ZonalPV(name, "z1")
	pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Operator = corev1.NodeSelectorOpGt
	pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values = values
	return pv
}
