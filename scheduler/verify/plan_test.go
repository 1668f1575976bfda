package verify_test

import (
	"encoding/json"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// kCatalog decodes Catalog K (testdata/catalogs/k.json).
func kCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	data, err := os.ReadFile("../../testdata/catalogs/k.json")
	require.NoError(t, err)
	cat, err := instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)
	return cat
}

// TestVerifyAcceptsExamples solves every example of testdata/examples with
// the built-in AWS catalog and verifies the plan.
func TestVerifyAcceptsExamples(t *testing.T) {
	cat, err := aws.Catalog()
	require.NoError(t, err)
	dirs, err := filepath.Glob("../../testdata/examples/*")
	require.NoError(t, err)
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			require.NoError(t, err)
			var in []manifest.File
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				in = append(in, manifest.File{Name: f, Data: data})
			}
			input, err := manifest.Decode(in)
			require.NoError(t, err)
			res, err := scheduler.Solve(input.Pods, input.NodePools, cat, input.Options()...)
			require.NoError(t, err)
			if err := verify.Plan(input.Pods, input.NodePools, cat, res, input.Options()...); err != nil {
				t.Error(err)
			}
		})
	}
}

// planInput is the input of one Solve and Verify.
type planInput struct {
	pods  []*corev1.Pod
	pools []nodepool.NodePool
	cat   instancetypes.Catalog
	opts  []scheduler.Option
}

// solve solves the input and requires the plan to verify: corruption
// cases start from a valid plan.
func (in planInput) solve(t *testing.T) scheduler.Result {
	t.Helper()
	res, err := scheduler.Solve(in.pods, in.pools, in.cat, in.opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.pods, in.pools, in.cat, res, in.opts...), "precondition: Solve's plan verifies")
	return res
}

// web selects the app=web pods.
func web() map[string]string { return map[string]string{"app": "web"} }

// bases are the inputs corruption cases start from, all on Catalog K.
func spreadInput(t *testing.T) planInput {
	return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
		pods: testutil.Replicas(3, func(i int) *corev1.Pod {
			return testutil.Pod(testutil.ReplicaName("web", i)).Label("app", "web").CPU("1").
				Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, web()).
				PodAntiAffinity(requirements.LabelHostname, web()).Obj()
		})}
}

// everyKeyInput is testdata/scenarios/bind-spread-needs-every-key on the
// built-in catalog, its existing node labelled team=a when labelled.
func everyKeyInput(t *testing.T, labelled bool) planInput {
	t.Helper()
	data, err := os.ReadFile("../../testdata/scenarios/bind-spread-needs-every-key/manifests.yaml")
	require.NoError(t, err)
	if labelled {
		text := strings.Replace(string(data), "    kubernetes.io/hostname: old\n", "    kubernetes.io/hostname: old\n    team: a\n", 1)
		require.NotEqual(t, string(data), text, "precondition: the node's labels are where the test expects them")
		data = []byte(text)
	}
	input, err := manifest.Decode([]manifest.File{{Name: "manifests.yaml", Data: data}})
	require.NoError(t, err)
	cat, err := aws.Catalog()
	require.NoError(t, err)
	return planInput{pods: input.Pods, pools: input.NodePools, cat: cat, opts: input.Options()}
}

// affinityToOwnerInput is testdata/scenarios/never-worse-affinity-to-spread-owner.
func affinityToOwnerInput(t *testing.T) planInput {
	t.Helper()
	dir := "../../testdata/scenarios/never-worse-affinity-to-spread-owner/"
	data, err := os.ReadFile(dir + "manifests.yaml")
	require.NoError(t, err)
	input, err := manifest.Decode([]manifest.File{{Name: "manifests.yaml", Data: data}})
	require.NoError(t, err)
	cat, err := manifest.LoadCatalog(dir + "catalog.json")
	require.NoError(t, err)
	return planInput{pods: input.Pods, pools: input.NodePools, cat: cat, opts: input.Options()}
}

func packedInput(t *testing.T) planInput {
	return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
		pods: testutil.Replicas(4, func(i int) *corev1.Pod { return testutil.Pod(testutil.ReplicaName("api", i)).CPU("1500m").Obj() })}
}

func onePodInput(t *testing.T, b *testutil.PodBuilder, pools ...nodepool.NodePool) planInput {
	if len(pools) == 0 {
		pools = []nodepool.NodePool{testutil.NodePool("default").Obj()}
	}
	return planInput{cat: kCatalog(t), pools: pools, pods: []*corev1.Pod{b.Obj()}}
}

// existingInput has one existing node in z1 with 2 cpu, 1 of them taken.
func existingInput(t *testing.T, pods ...*corev1.Pod) planInput {
	node := testutil.Node("node-a").Label(requirements.LabelTopologyZone, "z1").Label(requirements.LabelArch, "amd64").
		Size("2", "4Gi", "10").Obj()
	bound := testutil.Pod("running").NodeName("node-a").CPU("1").Obj()
	return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()}, pods: pods,
		opts: []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{bound})}}
}

// claimOf returns the NodeClaim holding pod.
func claimOf(t *testing.T, res *scheduler.Result, pod string) *scheduler.NodeClaim {
	t.Helper()
	for i := range res.NodeClaims {
		if slices.Contains(res.NodeClaims[i].Pods, pod) {
			return &res.NodeClaims[i]
		}
	}
	t.Fatalf("precondition: pod %s is on no NodeClaim", pod)
	return nil
}

// claimWith returns the first NodeClaim f accepts.
func claimWith(t *testing.T, res *scheduler.Result, f func(nc *scheduler.NodeClaim) bool) *scheduler.NodeClaim {
	t.Helper()
	for i := range res.NodeClaims {
		if f(&res.NodeClaims[i]) {
			return &res.NodeClaims[i]
		}
	}
	t.Fatal("precondition: no such NodeClaim")
	return nil
}

// addRequests adds to a NodeClaim's requests (negative quantities remove).
func addRequests(nc *scheduler.NodeClaim, cpu string, pods int64) {
	q := nc.Requests[corev1.ResourceCPU]
	q.Add(resource.MustParse(cpu))
	nc.Requests[corev1.ResourceCPU] = q
	n := nc.Requests[corev1.ResourcePods]
	n.Add(*resource.NewQuantity(pods, resource.DecimalSI))
	nc.Requests[corev1.ResourcePods] = n
}

// removeClaim deletes a NodeClaim and keeps the summary consistent.
func removeClaim(res *scheduler.Result, name string) {
	for i, nc := range res.NodeClaims {
		if nc.Name == name {
			res.Summary.PricePerHour -= nc.Price
			res.NodeClaims = slices.Delete(res.NodeClaims, i, i+1)
			res.Summary.NodeClaims--
			res.Summary.PriceLowerBound = min(res.Summary.PriceLowerBound, res.Summary.PricePerHour)
			return
		}
	}
}

// moveToNode takes a pod off its NodeClaim (which it must hold alone) and
// places it on an existing node.
func moveToNode(t *testing.T, res *scheduler.Result, pod, node string) {
	t.Helper()
	nc := claimOf(t, res, pod)
	require.Len(t, nc.Pods, 1, "precondition: the pod is alone on its NodeClaim")
	removeClaim(res, nc.Name)
	for i := range res.ExistingNodes {
		if res.ExistingNodes[i].Name == node {
			res.ExistingNodes[i].Pods = append(res.ExistingNodes[i].Pods, pod)
			return
		}
	}
	res.ExistingNodes = append(res.ExistingNodes, scheduler.NodePlacement{Name: node, Pods: []string{pod}})
}

// mergeClaims moves the pods of the second of two NodeClaims of 100m pods
// onto the first, keeping its requests, options and the summary consistent.
func mergeClaims(t *testing.T, res *scheduler.Result) {
	t.Helper()
	require.Len(t, res.NodeClaims, 2, "precondition")
	a, b := &res.NodeClaims[0], res.NodeClaims[1]
	a.Pods = append(a.Pods, b.Pods...)
	addRequests(a, "100m", 1)
	a.InstanceTypeOptions = slices.DeleteFunc(a.InstanceTypeOptions, func(o string) bool { return o == "single-pod" })
	setExpr(a, requirements.LabelInstanceType, a.InstanceTypeOptions...)
	removeClaim(res, b.Name)
}

// setExpr replaces the values of a NodeClaim's requirement on key.
func setExpr(nc *scheduler.NodeClaim, key string, values ...string) {
	for i, e := range nc.Requirements {
		if e.Key == key {
			nc.Requirements[i].Operator, nc.Requirements[i].Values = requirements.OpIn, values
			return
		}
	}
	nc.Requirements = append(nc.Requirements, requirements.Expression{Key: key, Operator: requirements.OpIn, Values: values})
}

// rehome moves a NodeClaim to another zone consistently: zone, zone
// requirement and label.
func rehome(nc *scheduler.NodeClaim, zone string) {
	nc.Zone = zone
	setExpr(nc, requirements.LabelTopologyZone, zone)
	nc.Labels[requirements.LabelTopologyZone] = zone
}

func TestVerifyCatchesCorruption(t *testing.T) {
	tests := []struct {
		name    string
		input   func(t *testing.T) planInput
		corrupt func(t *testing.T, in *planInput, res *scheduler.Result)
		want    []scheduler.ReasonCode
	}{
		{
			name:  "pod moved to a NodeClaim it does not fit",
			input: packedInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				from, to := &res.NodeClaims[0], &res.NodeClaims[1]
				pod := from.Pods[0]
				from.Pods = from.Pods[1:]
				to.Pods = append(to.Pods, pod)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonInsufficient, scheduler.ReasonNodeClaimRequests},
		},
		{
			name:  "pod dropped",
			input: packedInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				res.NodeClaims[0].Pods = res.NodeClaims[0].Pods[1:]
			},
			want: []scheduler.ReasonCode{scheduler.ReasonAccounting, scheduler.ReasonNodeClaimRequests, scheduler.ReasonSummary},
		},
		{
			name:  "pod twice",
			input: packedInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				res.NodeClaims[1].Pods = append(res.NodeClaims[1].Pods, res.NodeClaims[0].Pods[0])
			},
			want: []scheduler.ReasonCode{scheduler.ReasonAccounting},
		},
		{
			name:  "pod that is not an input",
			input: packedInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				res.PodErrors = append(res.PodErrors, scheduler.PodError{Pod: "default/ghost"})
			},
			want: []scheduler.ReasonCode{scheduler.ReasonAccounting},
		},
		{
			// The cache pods require the node of the one db pod, whose
			// zone spread counts them: they bind after it, so the plan
			// holds; once their affinity selects themselves too, they may
			// bind first, and the db pod would find its zone at 2 against
			// 0.
			name:  "pods that bound after a spread's only owner may bind before it",
			input: affinityToOwnerInput,
			corrupt: func(t *testing.T, in *planInput, _ *scheduler.Result) {
				for _, p := range in.pods {
					if strings.HasPrefix(p.Name, "cache-") {
						sel := p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector
						sel.MatchLabels = map[string]string{"tier": "web"}
					}
				}
			},
			want: []scheduler.ReasonCode{scheduler.ReasonTopologySpread},
		},
		{
			name: "zone changed",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("pinned").NodeSelector(requirements.LabelTopologyZone, "z1"))
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { res.NodeClaims[0].Zone = "z2" },
			want:    []scheduler.ReasonCode{scheduler.ReasonNoOffering, scheduler.ReasonNodeClaimLabels},
		},
		{
			name:  "untolerated taint",
			input: func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("plain")) },
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				res.NodeClaims[0].Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			},
			want: []scheduler.ReasonCode{scheduler.ReasonNodeClaimTaints, scheduler.ReasonTaint},
		},
		{
			// Four pods on four nodes in three zones (2, 1, 1 or 1, 1, 2):
			// the z2 node moved to the zone with two leaves 3 and 1. z2,
			// where no node of the plan is left, is no domain
			// (kube-scheduler counts the domains of nodes only): with three
			// pods, moving one node would break nothing.
			name: "spread skew broken",
			input: func(t *testing.T) planInput {
				in := spreadInput(t)
				in.pods = append(in.pods, testutil.Pod(testutil.ReplicaName("web", 3)).Label("app", "web").CPU("1").
					Spread(requirements.LabelTopologyZone, 1, corev1.DoNotSchedule, web()).
					PodAntiAffinity(requirements.LabelHostname, web()).Obj())
				return in
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				perZone := map[string]int{}
				for _, nc := range res.NodeClaims {
					perZone[nc.Zone]++
				}
				require.Len(t, perZone, 3, "precondition: pods in three zones")
				require.Equal(t, 1, perZone["z2"], "precondition: one pod in z2")
				to := "z1" // the zone with two pods
				if perZone["z1"] == 1 {
					to = "z3"
				}
				rehome(claimWith(t, res, func(nc *scheduler.NodeClaim) bool { return nc.Zone == "z2" }), to)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonTopologySpread},
		},
		{
			name:  "zone left open under a zone spread",
			input: spreadInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := claimWith(t, res, func(nc *scheduler.NodeClaim) bool { return nc.Zone == "z1" })
				setExpr(nc, requirements.LabelTopologyZone, "z1", "z2")
			},
			want: []scheduler.ReasonCode{scheduler.ReasonTopologyDomain},
		},
		{
			// kube-scheduler counts a node for a pod's spread constraints only
			// when it has every DoNotSchedule key: the plan was made with the
			// old node carrying the team label; without it, its pod no longer
			// counts in us-east-1c and two zones hold two api pods each.
			name:  "spread counted on a node without the pod's other key",
			input: func(t *testing.T) planInput { return everyKeyInput(t, true) },
			corrupt: func(t *testing.T, in *planInput, _ *scheduler.Result) {
				*in = everyKeyInput(t, false)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonTopologySpread},
		},
		{
			name: "limit exceeded",
			input: func(t *testing.T) planInput {
				in := packedInput(t)
				in.pools = []nodepool.NodePool{testutil.NodePool("default").Limit(corev1.ResourceCPU, "100").Obj()}
				return in
			},
			corrupt: func(t *testing.T, in *planInput, _ *scheduler.Result) {
				in.pools = []nodepool.NodePool{testutil.NodePool("default").Limit(corev1.ResourceCPU, "6").Obj()}
			},
			want: []scheduler.ReasonCode{scheduler.ReasonLimits},
		},
		{
			name:  "instance type that is not the cheapest",
			input: func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("small").CPU("100m")) },
			corrupt: func(t *testing.T, in *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				require.Greater(t, len(nc.InstanceTypeOptions), 1, "precondition")
				it, _ := in.cat.Get(nc.InstanceTypeOptions[1])
				nc.InstanceType, nc.Price = it.Name, it.Offerings[0].Price
				nc.Zone, nc.CapacityType = it.Offerings[0].Zone, it.Offerings[0].CapacityType
				maps.Copy(nc.Labels, it.Labels) // the labels follow, so only the price is wrong
				nc.Labels[requirements.LabelInstanceType] = it.Name
				nc.Labels[requirements.LabelTopologyZone], nc.Labels[requirements.LabelCapacityType] = nc.Zone, nc.CapacityType
				res.Summary.PricePerHour = nc.Price
			},
			want: []scheduler.ReasonCode{scheduler.ReasonNoOffering},
		},
		{
			name:  "option too small",
			input: func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("big").CPU("3")) },
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				require.NotContains(t, nc.InstanceTypeOptions, "small", "precondition")
				nc.InstanceTypeOptions = append([]string{"small"}, nc.InstanceTypeOptions...)
				setExpr(nc, requirements.LabelInstanceType, nc.InstanceTypeOptions...)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonInsufficient},
		},
		{
			name:  "options not sorted",
			input: func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("small").CPU("100m")) },
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				o := res.NodeClaims[0].InstanceTypeOptions
				require.Equal(t, "small", o[0], "precondition")
				i := slices.Index(o, "default")
				o[0], o[i] = o[i], o[0]
			},
			want: []scheduler.ReasonCode{scheduler.ReasonInstanceTypeOptions},
		},
		{
			name:    "unknown NodePool",
			input:   func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("plain")) },
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { res.NodeClaims[0].NodePool = "nope" },
			want:    []scheduler.ReasonCode{scheduler.ReasonNoNodePool},
		},
		{
			name: "static NodePool",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("plain"), testutil.NodePool("default").Obj(), testutil.NodePool("fixed").Replicas(2).Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				res.NodeClaims[0].NodePool = "fixed"
				res.NodeClaims[0].Labels[requirements.LabelNodePool] = "fixed"
				setExpr(&res.NodeClaims[0], requirements.LabelNodePool, "fixed")
			},
			want: []scheduler.ReasonCode{scheduler.ReasonNoNodePool},
		},
		{
			name: "pod's node selector not implied",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("team-a").NodeSelector("team", "a"),
					testutil.NodePool("default").Requirement("team", corev1.NodeSelectorOpIn, "a", "b").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				setExpr(nc, "team", "b")
				nc.Labels["team"] = "b"
			},
			want: []scheduler.ReasonCode{scheduler.ReasonIncompatible},
		},
		{
			name: "custom label the NodePool does not declare",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("team-a").NodeSelector("team", "a"),
					testutil.NodePool("teams").Requirement("team", corev1.NodeSelectorOpIn, "a").Obj(), testutil.NodePool("plain").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				nc.NodePool = "plain"
				nc.Labels[requirements.LabelNodePool] = "plain"
				setExpr(nc, requirements.LabelNodePool, "plain")
			},
			want: []scheduler.ReasonCode{scheduler.ReasonUndefinedLabel},
		},
		{
			name: "requirements outside the NodePool's",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("plain"),
					testutil.NodePool("default").Requirement(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, "z1").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { rehome(&res.NodeClaims[0], "z2") },
			want:    []scheduler.ReasonCode{scheduler.ReasonNodeClaimRequirements},
		},
		{
			name:    "requests inconsistent",
			input:   func(t *testing.T) planInput { return onePodInput(t, testutil.Pod("small").CPU("100m")) },
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { addRequests(&res.NodeClaims[0], "1", 0) },
			want:    []scheduler.ReasonCode{scheduler.ReasonNodeClaimRequests},
		},
		{
			name:    "summary inconsistent",
			input:   packedInput,
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { res.Summary.PricePerHour++ },
			want:    []scheduler.ReasonCode{scheduler.ReasonSummary},
		},
		{
			name: "minValues unmet",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("small").CPU("100m"),
					testutil.NodePool("default").Requirement(requirements.LabelInstanceType, corev1.NodeSelectorOpExists).MinValues(2).Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				nc.InstanceTypeOptions = nc.InstanceTypeOptions[:1]
				setExpr(nc, requirements.LabelInstanceType, nc.InstanceType)
				for i := range nc.Requirements {
					if nc.Requirements[i].Key == requirements.LabelInstanceType {
						nc.Requirements[i].MinValues = 2
					}
				}
				nc.Labels[requirements.LabelInstanceType] = nc.InstanceType
			},
			want: []scheduler.ReasonCode{scheduler.ReasonMinValues},
		},
		{
			// No instance type carries team, so the options offer none of its
			// values: a NodePool asking minValues 2 of it can never launch.
			name: "minValues on a key no instance type carries",
			input: func(t *testing.T) planInput {
				return onePodInput(t, testutil.Pod("small").CPU("100m"),
					testutil.NodePool("default").Requirement("team", corev1.NodeSelectorOpIn, "a", "b").Obj())
			},
			corrupt: func(t *testing.T, in *planInput, res *scheduler.Result) {
				reqs := in.pools[0].Spec.Template.Spec.Requirements
				i := slices.IndexFunc(reqs, func(r nodepool.NodeSelectorRequirementWithMinValues) bool { return r.Key == "team" })
				require.GreaterOrEqual(t, i, 0, "precondition")
				two := 2
				reqs[i].MinValues = &two
			},
			want: []scheduler.ReasonCode{scheduler.ReasonMinValues},
		},
		{
			name: "existing node overcommitted",
			input: func(t *testing.T) planInput {
				return existingInput(t, testutil.Pod("fits").CPU("500m").Obj(), testutil.Pod("big").CPU("1500m").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { moveToNode(t, res, "default/big", "node-a") },
			want:    []scheduler.ReasonCode{scheduler.ReasonInsufficient},
		},
		{
			name: "existing node's labels do not satisfy the pod",
			input: func(t *testing.T) planInput {
				return existingInput(t, testutil.Pod("z2").CPU("100m").NodeSelector(requirements.LabelTopologyZone, "z2").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { moveToNode(t, res, "default/z2", "node-a") },
			want:    []scheduler.ReasonCode{scheduler.ReasonIncompatible},
		},
		{
			name: "existing node unknown",
			input: func(t *testing.T) planInput {
				return existingInput(t, testutil.Pod("big").CPU("1500m").Obj())
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { moveToNode(t, res, "default/big", "node-x") },
			want:    []scheduler.ReasonCode{scheduler.ReasonExistingNode, scheduler.ReasonSummary},
		},
		{
			name: "inverse anti-affinity of a bound pod",
			input: func(t *testing.T) planInput {
				in := existingInput(t, testutil.Pod("web").Label("app", "web").CPU("100m").Obj())
				node := testutil.Node("node-a").Label(requirements.LabelTopologyZone, "z1").Size("2", "4Gi", "10").Obj()
				guard := testutil.Pod("guard").NodeName("node-a").PodAntiAffinity(requirements.LabelHostname, web()).Obj()
				in.opts = []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{guard})}
				return in
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { moveToNode(t, res, "default/web", "node-a") },
			want:    []scheduler.ReasonCode{scheduler.ReasonPodAntiAffinity},
		},
		{
			// The guard's zonal anti-affinity leaves the web pod's claim
			// open on the zones other than z1 (valid: it never lands in
			// z1); opened to z1 too, where it launches matters.
			name: "zone left open into a bound pod's anti-affinity",
			input: func(t *testing.T) planInput {
				in := existingInput(t, testutil.Pod("web").Label("app", "web").CPU("100m").Obj())
				node := testutil.Node("node-a").Label(requirements.LabelTopologyZone, "z1").Size("2", "4Gi", "10").Obj()
				guard := testutil.Pod("guard").NodeName("node-a").CPU("1900m").PodAntiAffinity(requirements.LabelTopologyZone, web()).Obj()
				in.opts = []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, []*corev1.Pod{guard})}
				return in
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				require.Len(t, res.NodeClaims, 1, "precondition")
				nc := &res.NodeClaims[0]
				require.NotEqual(t, "z1", nc.Zone, "precondition")
				setExpr(nc, requirements.LabelTopologyZone, "z1", nc.Zone)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonTopologyDomain},
		},
		{
			name: "host ports clash",
			input: func(t *testing.T) planInput {
				return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
					pods: testutil.Replicas(2, func(i int) *corev1.Pod {
						return testutil.Pod(testutil.ReplicaName("exporter", i)).CPU("100m").HostPort(9100, corev1.ProtocolTCP).Obj()
					})}
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { mergeClaims(t, res) },
			want:    []scheduler.ReasonCode{scheduler.ReasonHostPort},
		},
		{
			name: "hostname anti-affinity violated",
			input: func(t *testing.T) planInput {
				return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
					pods: testutil.Replicas(2, func(i int) *corev1.Pod {
						return testutil.Pod(testutil.ReplicaName("web", i)).Label("app", "web").CPU("100m").
							PodAntiAffinity(requirements.LabelHostname, web()).Obj()
					})}
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) { mergeClaims(t, res) },
			want:    []scheduler.ReasonCode{scheduler.ReasonPodAntiAffinity},
		},
		{
			name: "pod affinity broken",
			input: func(t *testing.T) planInput {
				return planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
					pods: []*corev1.Pod{
						testutil.Pod("db").Label("app", "db").CPU("100m").Obj(),
						testutil.Pod("cache").CPU("100m").PodAffinity(requirements.LabelHostname, map[string]string{"app": "db"}).Obj(),
					}}
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				require.Len(t, res.NodeClaims, 1, "precondition")
				split := res.NodeClaims[0]
				split.Name, split.Pods = "default-99", []string{"default/cache"}
				split.Labels = cloneMap(split.Labels)
				split.Requests = split.Requests.DeepCopy()
				addRequests(&split, "-100m", -1)
				res.NodeClaims[0].Pods = []string{"default/db"}
				addRequests(&res.NodeClaims[0], "-100m", -1)
				res.NodeClaims = append(res.NodeClaims, split)
				res.Summary.NodeClaims++
				res.Summary.PricePerHour += split.Price
			},
			want: []scheduler.ReasonCode{scheduler.ReasonPodAffinity},
		},
		{
			name: "volume zone not honoured",
			input: func(t *testing.T) planInput {
				in := onePodInput(t, testutil.Pod("db").PVC("data"))
				in.opts = []scheduler.Option{scheduler.WithVolumes(
					[]*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-data", "")},
					[]*corev1.PersistentVolume{testutil.ZonalPV("pv-data", "z2")}, nil)}
				return in
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				require.Equal(t, "z2", res.NodeClaims[0].Zone, "precondition")
				rehome(&res.NodeClaims[0], "z1")
			},
			want: []scheduler.ReasonCode{scheduler.ReasonVolumeTopology},
		},
		{
			name: "DaemonSet host port on an option",
			input: func(t *testing.T) planInput {
				in := onePodInput(t, testutil.Pod("exporter").CPU("100m").HostPort(9100, corev1.ProtocolTCP))
				ds := testutil.DaemonSet("node-exporter", testutil.Pod("agent").HostPort(9100, corev1.ProtocolTCP).
					NodeSelector(requirements.LabelArch, "amd64").Obj())
				in.opts = []scheduler.Option{scheduler.WithDaemonSets([]*appsv1.DaemonSet{ds})}
				return in
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				nc := &res.NodeClaims[0]
				require.Equal(t, []string{"arm"}, nc.InstanceTypeOptions, "precondition")
				nc.InstanceTypeOptions = []string{"small", "arm"}
				setExpr(nc, requirements.LabelInstanceType, nc.InstanceTypeOptions...)
				delete(nc.Labels, requirements.LabelInstanceType)
				for i := range nc.Requirements {
					if nc.Requirements[i].Key == requirements.LabelArch {
						nc.Requirements = slices.Delete(nc.Requirements, i, i+1)
						break
					}
				}
				delete(nc.Labels, requirements.LabelArch)
			},
			want: []scheduler.ReasonCode{scheduler.ReasonHostPort},
		},
		{
			name: "reservation used twice",
			input: func(t *testing.T) planInput {
				return planInput{cat: reservedCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
					pods: testutil.Replicas(2, func(i int) *corev1.Pod {
						return testutil.Pod(testutil.ReplicaName("web", i)).Label("app", "web").CPU("100m").
							PodAntiAffinity(requirements.LabelHostname, web()).Obj()
					})}
			},
			corrupt: func(t *testing.T, _ *planInput, res *scheduler.Result) {
				reserved := claimWith(t, res, func(nc *scheduler.NodeClaim) bool { return nc.CapacityType == requirements.CapacityTypeReserved })
				other := claimWith(t, res, func(nc *scheduler.NodeClaim) bool { return nc.CapacityType != requirements.CapacityTypeReserved })
				res.Summary.PricePerHour += reserved.Price - other.Price
				copied := *reserved
				copied.Name, copied.Pods = other.Name, other.Pods
				*other = copied
			},
			want: []scheduler.ReasonCode{scheduler.ReasonReservation},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.input(t)
			res := in.solve(t)
			tt.corrupt(t, &in, &res)
			err := verify.Plan(in.pods, in.pools, in.cat, res, in.opts...)
			var got []scheduler.ReasonCode
			var ve *verify.Error
			if errors.As(err, &ve) {
				got = ve.Codes()
			} else if err != nil {
				t.Fatalf("Verify: want a *Error, got %v", err)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violated codes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// reservedCatalog is testutil.ReservedTypes: a reserved offering of
// capacity 1, cheaper than everything else.
func reservedCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	cat, err := instancetypes.NewCatalog(testutil.ReservedTypes(), instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)
	return cat
}

// TestVerifyDeterministic checks that the violations of a broken plan come
// out in the same order, whatever the order of pods and NodePools, and that
// Verify leaves its inputs alone.
func TestVerifyDeterministic(t *testing.T) {
	const shuffleSeed = 20261130 // fixed: the shuffles are the same on every run
	in := spreadInput(t)
	in.pools = append(in.pools, testutil.NodePool("other").Weight(10).Obj())
	res := in.solve(t)
	for i := range res.NodeClaims {
		rehome(&res.NodeClaims[i], "z1")
		res.NodeClaims[i].Taints = []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoExecute}}
	}
	res.Summary.Pods++
	pods, pools, plan := clonePods(in.pods), slices.Clone(in.pools), cloneResult(t, res)
	first := verify.Plan(in.pods, in.pools, in.cat, res, in.opts...)
	require.Error(t, first)
	rng := rand.New(rand.NewPCG(shuffleSeed, 7))
	for range 5 {
		rng.Shuffle(len(in.pods), func(a, b int) { in.pods[a], in.pods[b] = in.pods[b], in.pods[a] })
		rng.Shuffle(len(in.pools), func(a, b int) { in.pools[a], in.pools[b] = in.pools[b], in.pools[a] })
		got := verify.Plan(in.pods, in.pools, in.cat, res, in.opts...)
		if diff := gocmp.Diff(first.Error(), got.Error()); diff != "" {
			t.Errorf("violations differ on shuffled input (-first +shuffled):\n%s", diff)
		}
	}
	slices.SortFunc(in.pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(in.pools, func(a, b nodepool.NodePool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(pools, func(a, b nodepool.NodePool) int { return strings.Compare(a.Name, b.Name) })
	if diff := gocmp.Diff(pods, in.pods); diff != "" {
		t.Errorf("Verify modified the pods (-before +after):\n%s", diff)
	}
	if diff := gocmp.Diff(pools, in.pools); diff != "" {
		t.Errorf("Verify modified the NodePools (-before +after):\n%s", diff)
	}
	if diff := gocmp.Diff(plan, res); diff != "" {
		t.Errorf("Verify modified the plan (-before +after):\n%s", diff)
	}
	var ve *verify.Error
	require.ErrorAs(t, first, &ve)
	if !slices.IsSortedFunc(ve.Violations, func(a, b verify.Violation) int {
		return strings.Compare(string(a.Code)+"\x00"+a.NodeClaim+"\x00"+a.Pod, string(b.Code)+"\x00"+b.NodeClaim+"\x00"+b.Pod)
	}) {
		t.Errorf("violations are not sorted by code, NodeClaim and pod:\n%v", first)
	}
}

func clonePods(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		out[i] = p.DeepCopy()
	}
	return out
}

// cloneResult deep-copies a plan through its JSON form plus the Go-only
// fields Verify reads.
func cloneResult(t *testing.T, res scheduler.Result) scheduler.Result {
	t.Helper()
	data, err := json.Marshal(res)
	require.NoError(t, err)
	var out scheduler.Result
	require.NoError(t, json.Unmarshal(data, &out))
	for i := range out.NodeClaims {
		out.NodeClaims[i].ZoneID = res.NodeClaims[i].ZoneID
		out.NodeClaims[i].ReservationID = res.NodeClaims[i].ReservationID
		out.NodeClaims[i].MinValuesRelaxed = res.NodeClaims[i].MinValuesRelaxed
	}
	for i := range out.PodErrors {
		out.PodErrors[i].Code, out.PodErrors[i].Details = res.PodErrors[i].Code, res.PodErrors[i].Details
	}
	out.Relaxations, out.Preferences = res.Relaxations, res.Preferences
	return out
}

// TestVerifyPlanFromJSON verifies a plan that went through its JSON form
// (as a plan read from a file would), which drops the Go-only fields.
func TestVerifyPlanFromJSON(t *testing.T) {
	for _, input := range []func(*testing.T) planInput{spreadInput, packedInput, func(t *testing.T) planInput {
		return planInput{cat: reservedCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
			pods: []*corev1.Pod{testutil.Pod("one").CPU("100m").Obj()}}
	}} {
		in := input(t)
		res := in.solve(t)
		data, err := json.Marshal(res)
		require.NoError(t, err)
		var plan scheduler.Result
		require.NoError(t, json.Unmarshal(data, &plan))
		if err := verify.Plan(in.pods, in.pools, in.cat, plan, in.opts...); err != nil {
			t.Errorf("plan read back from JSON: %v", err)
		}
	}
}

// TestVerifyInputErrors checks that invalid input is an error, not a list
// of violations.
func TestVerifyInputErrors(t *testing.T) {
	cat := kCatalog(t)
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	tests := []struct {
		name  string
		pods  []*corev1.Pod
		pools []nodepool.NodePool
		opts  []scheduler.Option
	}{
		{name: "nil pod", pods: []*corev1.Pod{nil}, pools: pools},
		{name: "pod twice", pods: []*corev1.Pod{testutil.Pod("a").Obj(), testutil.Pod("a").Obj()}, pools: pools},
		{name: "invalid NodePool", pools: []nodepool.NodePool{testutil.NodePool("bad").Requirement("zone", "Near", "x").Obj()}},
		{name: "invalid option", pools: pools, opts: []scheduler.Option{scheduler.WithMaxInstanceTypeOptions(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verify.Plan(tt.pods, tt.pools, cat, scheduler.Result{}, tt.opts...)
			if err == nil {
				t.Fatal("Verify: want an input error, got nil")
			}
			var ve *verify.Error
			if errors.As(err, &ve) {
				t.Errorf("want an input error, got violations: %v", err)
			}
		})
	}
}

// TestVerifySpreadDomainsAreNodes: a spread's global minimum runs over the
// domains of the plan's eligible nodes, as kube-scheduler's does; a zone a
// NodePool offers but no node of the plan is in is no domain.
func TestVerifySpreadDomainsAreNodes(t *testing.T) {
	tests := []struct {
		name string
		to   map[string]string // zone → zone its NodeClaims move to
	}{
		{name: "z2 emptied: z1=2 z3=1", to: map[string]string{"z2": "z1"}},
		{name: "one zone left: z1=3", to: map[string]string{"z2": "z1", "z3": "z1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := spreadInput(t)
			res := in.solve(t)
			for i := range res.NodeClaims {
				if to, ok := tc.to[res.NodeClaims[i].Zone]; ok {
					rehome(&res.NodeClaims[i], to)
				}
			}
			if err := verify.Plan(in.pods, in.pools, in.cat, res, in.opts...); err != nil {
				t.Errorf("verify.Plan: %v", err)
			}
		})
	}
}
