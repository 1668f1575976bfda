package scheduler_test

import (
	"errors"
	"math"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// fuzzBytes hands out the fuzzer's bytes as small choices (0 once used up).
type fuzzBytes []byte

func (b *fuzzBytes) pick(n int) int {
	if len(*b) == 0 || n <= 0 {
		return 0
	}
	v := int((*b)[0]) % n
	*b = (*b)[1:]
	return v
}

// mutate returns a copy of list with nils, duplicates and removals chosen
// by the fuzzer (a nil entry stands for a caller's nil pointer).
func mutate[T any](b *fuzzBytes, list []T) []T {
	out := append([]T(nil), list...)
	for range b.pick(4) {
		var zero T
		switch i := b.pick(len(out) + 1); b.pick(3) {
		case 0:
			out = append(out[:i], append([]T{zero}, out[i:]...)...)
		case 1:
			if i < len(out) {
				out = append(out, out[i])
			}
		case 2:
			if i < len(out) {
				out = append(out[:i], out[i+1:]...)
			}
		}
	}
	return out
}

// optionsInput is a small cluster that uses every option: existing nodes
// with bound pods, a DaemonSet, volumes of each kind and a namespace.
type optionsInput struct {
	pods       []*corev1.Pod
	nodes      []*corev1.Node
	bound      []*corev1.Pod
	daemonSets []*appsv1.DaemonSet
	pvcs       []*corev1.PersistentVolumeClaim
	pvs        []*corev1.PersistentVolume
	classes    []*storagev1.StorageClass
	namespaces []*corev1.Namespace
}

func newOptionsInput() optionsInput {
	return optionsInput{
		pods: []*corev1.Pod{
			testutil.Pod("web-0").Label("app", "web").CPU("1").Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).Obj(),
			testutil.Pod("web-1").Label("app", "web").CPU("1").Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app": "web"}).Obj(),
			testutil.Pod("db").CPU("2").PVC("data").Obj(),
			testutil.Pod("cache").CPU("500m").PVC("scratch").PodAffinity(requirements.LabelHostname, map[string]string{"app": "web"}).Obj(),
			testutil.Pod("team").Namespace("team").CPU("1").Obj(),
		},
		nodes: []*corev1.Node{
			testutil.Node("n1").Label(requirements.LabelTopologyZone, "z1").Size("4", "16Gi", "20").Obj(),
			testutil.Node("n2").Label(requirements.LabelTopologyZone, "z2").Size("2", "8Gi", "20").Taint("dedicated", "x", corev1.TaintEffectNoSchedule).Obj(),
		},
		bound:      []*corev1.Pod{testutil.Pod("old-0").Label("app", "web").NodeName("n1").CPU("1").Obj(), testutil.Pod("old-1").NodeName("n2").CPU("1").Obj()},
		daemonSets: []*appsv1.DaemonSet{testutil.DaemonSet("agent", testutil.Pod("agent").CPU("100m").Obj())},
		pvcs:       []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv1", ""), testutil.PVC("scratch", "", "standard")},
		pvs:        []*corev1.PersistentVolume{testutil.ZonalPV("pv1", "z1")},
		classes:    []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("standard")},
		namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "team", Labels: map[string]string{"tier": "a"}}}},
	}
}

// options draws the option values from the fuzzer: the lists mutated, and
// scalars among valid and invalid values.
func (in optionsInput) options(b *fuzzBytes) []scheduler.Option {
	costs := []float64{0, 0.05, -1, math.NaN(), math.Inf(1), math.Inf(-1)}
	policies := []scheduler.PreferencePolicy{scheduler.PreferenceRespect, scheduler.PreferenceIgnore, scheduler.PreferenceWhileFree, "", "Bogus"}
	kinds := append(scheduler.PreferenceKinds(), "Bogus")
	opts := []scheduler.Option{
		scheduler.WithExistingNodes(mutate(b, in.nodes), mutate(b, in.bound)),
		scheduler.WithDaemonSets(mutate(b, in.daemonSets)),
		scheduler.WithVolumes(mutate(b, in.pvcs), mutate(b, in.pvs), mutate(b, in.classes)),
		scheduler.WithNamespaces(mutate(b, in.namespaces)),
		scheduler.WithNodeCost(costs[b.pick(len(costs))]),
		scheduler.WithPreferencePolicy(policies[b.pick(len(policies))]),
		scheduler.WithPreferencePolicyFor(kinds[b.pick(len(kinds))], policies[b.pick(len(policies))]),
		scheduler.WithMinValuesPolicy([]scheduler.MinValuesPolicy{scheduler.MinValuesStrict, scheduler.MinValuesBestEffort, "Lax"}[b.pick(3)]),
		scheduler.WithImprovementBudget([]int{0, 10, -1, 1000}[b.pick(4)]),
		scheduler.WithMaxInstanceTypeOptions([]int{100, 1, 0, -1}[b.pick(4)]),
	}
	if b.pick(4) == 0 {
		opts = append(opts, nil)
	}
	return mutate(b, opts)
}

// FuzzSolveOptions drives the options with the fuzzer (nil entries,
// duplicates, removals, NaN and infinite costs, negative budgets, unknown
// policies): Solve and Verify never panic; an error is an *InputError;
// otherwise every pending pod is accounted for exactly once and the plan
// verifies.
func FuzzSolveOptions(f *testing.F) {
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("small").CPU("2").Memory("4Gi").Pods("20").Offering("z1", "on-demand", 0.1).Offering("z2", "spot", 0.04).Obj(),
		testutil.InstanceType("large").CPU("8").Memory("32Gi").Pods("50").Offering("z1", "spot", 0.2).Offering("z2", "on-demand", 0.4).Obj(),
	})
	if err != nil {
		f.Fatal(err)
	}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	for _, seed := range [][]byte{nil, {1, 1, 0}, {2, 0, 0, 1, 1, 3}, {3, 2, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 1, 2}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fuzzBytes(data)
		in := newOptionsInput()
		pods := mutate(&b, in.pods)
		opts := in.options(&b)
		res, err := scheduler.Solve(pods, pools, cat, opts...)
		if err != nil {
			var ie *scheduler.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Solve: %v is not an *InputError", err)
			}
			if verr := verify.Plan(pods, pools, cat, res, opts...); verr == nil {
				t.Fatalf("Solve refused the input (%v) but Verify accepts it", err)
			}
			return
		}
		seen := map[string]int{}
		for _, nc := range res.NodeClaims {
			for _, p := range nc.Pods {
				seen[p]++
			}
		}
		for _, n := range res.ExistingNodes {
			for _, p := range n.Pods {
				seen[p]++
			}
		}
		for _, e := range res.PodErrors {
			seen[e.Pod]++
		}
		for _, p := range pods {
			if n := seen[p.Namespace+"/"+p.Name]; n != 1 {
				t.Errorf("pod %s/%s accounted for %d times", p.Namespace, p.Name, n)
			}
		}
		if len(seen) != len(pods) {
			t.Errorf("the plan holds %d pods, the input %d", len(seen), len(pods))
		}
		if err := verify.Plan(pods, pools, cat, res, opts...); err != nil {
			t.Errorf("Verify: %v", err)
		}
	})
}
