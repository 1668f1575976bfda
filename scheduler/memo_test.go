package scheduler_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// TestWithMemoSamePlan solves generated inputs (existing nodes and their
// pods, topology, DaemonSets, volumes) with one Memo shared by every case,
// which run in parallel, each twice (the second solve reads what the
// first remembered), and requires the plan Solve makes without a Memo,
// byte for byte.
func TestWithMemoSamePlan(t *testing.T) {
	cats := propertyCatalogs(t)
	memo := scheduler.NewMemo()
	cases := 40
	if testing.Short() {
		cases = 10
	}
	for i := range cases {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
			want := planJSON(t, in)
			for run := range 2 {
				if diff := gocmp.Diff(want, planJSON(t, in, scheduler.WithMemo(memo))); diff != "" {
					t.Errorf("run %d: plan with a Memo differs (-without +with):\n%s", run, diff)
				}
			}
		})
	}
	t.Cleanup(func() { // after every case
		if memo.Len() == 0 {
			t.Error("the Memo holds nothing after solves with existing nodes")
		}
	})
}

// TestWithMemoKeepsErrors solves twice with a node the API server would
// reject and one it accepts, sharing a Memo: both solves report the bad
// node, and the good node alone takes the pod.
func TestWithMemoKeepsErrors(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	pods := []*corev1.Pod{testutil.Pod("a").CPU("1").Obj()}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	good := testutil.Node("good").Size("4", "8Gi", "10").Obj()
	bad := testutil.Node("bad").Size("4", "8Gi", "10").Obj()
	bad.Labels = map[string]string{"bad key!": "x"}
	memo := scheduler.NewMemo()
	for run := range 2 {
		_, err := scheduler.Solve(pods, pools, cat, scheduler.WithMemo(memo), scheduler.WithExistingNodes([]*corev1.Node{good, bad}, nil))
		if err == nil {
			t.Fatalf("run %d: a node with label key %q is no error", run, "bad key!")
		}
		res, err := scheduler.Solve(pods, pools, cat, scheduler.WithMemo(memo), scheduler.WithExistingNodes([]*corev1.Node{good}, nil))
		require.NoError(t, err)
		want := []scheduler.NodePlacement{{Name: "good", Pods: []string{"default/a"}}}
		if diff := gocmp.Diff(want, res.ExistingNodes); diff != "" {
			t.Errorf("run %d: existing nodes (-want +got):\n%s", run, diff)
		}
	}
}

// TestWithMemoKeepsInvalidPods solves twice with a pending pod the API
// server would reject and one it accepts, sharing a Memo: both solves
// leave the bad pod out as invalid and place the good one.
func TestWithMemoKeepsInvalidPods(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	bad := testutil.Pod("bad").CPU("1").Obj()
	bad.Labels = map[string]string{"bad key!": "x"}
	pods := []*corev1.Pod{testutil.Pod("good").CPU("1").Obj(), bad}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	memo := scheduler.NewMemo()
	for run := range 2 {
		res, err := scheduler.Solve(pods, pools, cat, scheduler.WithMemo(memo))
		require.NoError(t, err)
		var got []string
		for _, e := range res.PodErrors {
			got = append(got, e.Pod+" "+string(e.Code))
		}
		if diff := gocmp.Diff([]string{"default/bad " + string(scheduler.ReasonInvalidPod)}, got); diff != "" {
			t.Errorf("run %d: pod errors (-want +got):\n%s", run, diff)
		}
		if res.Summary.Scheduled != 1 {
			t.Errorf("run %d: %d pods scheduled, want 1", run, res.Summary.Scheduled)
		}
	}
}

// TestWithMemoAndPreparedSamePlan is TestWithMemoSamePlan with each
// catalog prepared once (WithPrepared), so that the Memo keeps each
// NodePool's types and DaemonSet overhead (by catalog, DaemonSets and
// template) for cases with other NodePools and DaemonSets.
func TestWithMemoAndPreparedSamePlan(t *testing.T) {
	cats := propertyCatalogs(t)
	prepared := preparedCatalogs(t, cats)
	memo := scheduler.NewMemo()
	cases := 40
	if testing.Short() {
		cases = 10
	}
	for i := range cases {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
			want := planJSON(t, in)
			for run := range 2 {
				got := planJSON(t, in, scheduler.WithMemo(memo), scheduler.WithPrepared(prepared[in.catalog.name]))
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("run %d: plan with a Memo and a prepared catalog differs (-without +with):\n%s", run, diff)
				}
			}
		})
	}
}

// TestWithMemoPoolsPerTemplate solves one pod on one prepared catalog with
// one Memo under a NodePool whose DaemonSet takes 3 of the type's 4 cpu,
// then under the same NodePool tainted (the DaemonSet does not tolerate
// it, the pod does), then with no DaemonSet: the pod fits no node only the
// first time, whatever the Memo kept of the pool before.
func TestWithMemoPoolsPerTemplate(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	prep, err := scheduler.Prepare(cat)
	require.NoError(t, err)
	memo := scheduler.NewMemo()
	pods := []*corev1.Pod{testutil.Pod("a").CPU("2").Toleration("dedicated", corev1.TolerationOpEqual, "x", corev1.TaintEffectNoSchedule).Obj()}
	ds := testutil.DaemonSet("agent", testutil.Pod("agent").CPU("3").Obj())
	plain := testutil.NodePool("default").Obj()
	tainted := testutil.NodePool("default").Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj()
	for _, c := range []struct {
		name   string
		pool   nodepool.NodePool
		ds     []*appsv1.DaemonSet
		placed int
	}{
		{"daemonset takes the room", plain, []*appsv1.DaemonSet{ds}, 0},
		{"taint keeps the daemonset off", tainted, []*appsv1.DaemonSet{ds}, 1},
		{"no daemonset", plain, nil, 1},
		{"daemonset again", plain, []*appsv1.DaemonSet{ds}, 0},
	} {
		res, err := scheduler.Solve(pods, []nodepool.NodePool{c.pool}, cat, scheduler.WithMemo(memo), scheduler.WithPrepared(prep),
			scheduler.WithDaemonSets(c.ds))
		require.NoError(t, err)
		if res.Summary.Scheduled != c.placed {
			t.Errorf("%s: %d pods scheduled, want %d", c.name, res.Summary.Scheduled, c.placed)
		}
	}
}

// TestWithMemoChecksChangedLists solves with one Memo and lists of
// DaemonSets, volumes and namespaces that pass, then with a PVC given
// twice, a DaemonSet given twice and a namespace without a name, then the
// good lists again: the Memo remembers only lists that passed, so each bad
// list is an error and the good ones are not.
func TestWithMemoChecksChangedLists(t *testing.T) {
	t.Parallel()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("m").CPU("4").Memory("16Gi").Offering("z1", "on-demand", 1).Obj()})
	require.NoError(t, err)
	pods := []*corev1.Pod{testutil.Pod("a").CPU("1").Obj()}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	ds := testutil.DaemonSet("agent", testutil.Pod("agent").CPU("100m").Obj())
	pvc := testutil.PVC("data", "", "zonal")
	class := testutil.WaitForFirstConsumerClass("zonal", "z1")
	ns := &corev1.Namespace{}
	ns.Name = "default"
	dss := scheduler.WithDaemonSets([]*appsv1.DaemonSet{ds})
	vols := scheduler.WithVolumes([]*corev1.PersistentVolumeClaim{pvc}, nil, []*storagev1.StorageClass{class})
	nss := scheduler.WithNamespaces([]*corev1.Namespace{ns})
	memo := scheduler.NewMemo()
	solve := func(opts ...scheduler.Option) error {
		_, err := scheduler.Solve(pods, pools, cat, append(opts, scheduler.WithMemo(memo))...)
		return err
	}
	for run := range 2 {
		require.NoError(t, solve(dss, vols, nss), "run %d: good lists", run)
		for name, opts := range map[string][]scheduler.Option{
			"pvc twice":         {dss, scheduler.WithVolumes([]*corev1.PersistentVolumeClaim{pvc, pvc}, nil, []*storagev1.StorageClass{class}), nss},
			"daemonset twice":   {scheduler.WithDaemonSets([]*appsv1.DaemonSet{ds, ds}), vols, nss},
			"unnamed namespace": {dss, vols, scheduler.WithNamespaces([]*corev1.Namespace{ns, {}})},
		} {
			if err := solve(opts...); err == nil {
				t.Errorf("run %d: %s is no error", run, name)
			}
		}
	}
}
