package plantest_test

import (
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/plantest"
)

// recorder is a TB that records what the helpers report.
type recorder struct{ lines []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.lines = append(r.lines, "error: "+fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.lines = append(r.lines, "fatal: "+fmt.Sprintf(format, args...))
}

// scenarioK: Catalog K (testdata/catalogs/k.json), one NodePool "a" for
// spot in z1, a tainted pool "b", an existing node, and four pods.
const scenarioK = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: a}
spec:
  template:
    spec:
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [z1]}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: b}
spec:
  template:
    spec:
      taints: [{key: team, value: b, effect: NoSchedule}]
---
apiVersion: v1
kind: Node
metadata:
  name: node-x
  labels: {node.kubernetes.io/instance-type: default, topology.kubernetes.io/zone: z3, karpenter.sh/capacity-type: on-demand, kubernetes.io/arch: amd64}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: tiny, namespace: shop}
spec:
  containers: [{name: c, resources: {requests: {cpu: 500m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: team-b}
spec:
  nodeSelector: {karpenter.sh/nodepool: b}
  tolerations: [{key: team, operator: Exists}]
  containers: [{name: c, resources: {requests: {cpu: "3"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: arm}
spec:
  nodeSelector: {kubernetes.io/arch: arm64}
  containers: [{name: c, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  tolerations: [{key: team, operator: Exists}]
  containers: [{name: c, resources: {requests: {cpu: "100"}}}]
`

func planK(t testing.TB, r plantest.TB) *plantest.Plan {
	cat, err := manifest.LoadCatalog("../../testdata/catalogs/k.json")
	require.NoError(t, err)
	return plantest.FromYAML(r, scenarioK, plantest.WithCatalog(cat))
}

func TestPod(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	plan := planK(t, r)
	tests := []struct {
		pod  string
		want plantest.Placement
	}{
		{"shop/tiny", plantest.Placement{Pod: "shop/tiny", Node: "node-x", InstanceType: "default", Family: "default", Arch: "amd64", Zone: "z3", CapacityType: "on-demand"}},
		{"team-b", plantest.Placement{Pod: "default/team-b", NodeClaim: "b-1", NodePool: "b", InstanceType: "default", Family: "default", Arch: "amd64", Zone: "z1", CapacityType: "on-demand", Price: 0.8}},
		{"default/arm", plantest.Placement{Pod: "default/arm", NodeClaim: "a-1", NodePool: "a", InstanceType: "arm", Family: "arm", Arch: "arm64", Zone: "z1", CapacityType: "spot", Price: 14.4}},
	}
	for _, tt := range tests {
		if diff := gocmp.Diff(tt.want, plan.Pod(r, tt.pod)); diff != "" {
			t.Errorf("Pod(%s) (-want +got):\n%s", tt.pod, diff)
		}
	}
	huge := plan.Pod(r, "huge")
	if huge.Placed() || huge.Code != scheduler.ReasonInsufficient || huge.Reason == "" {
		t.Errorf("Pod(huge) = %+v; want unplaced with %s and a reason", huge, scheduler.ReasonInsufficient)
	}
	if len(r.lines) > 0 {
		t.Errorf("unexpected reports:\n%s", strings.Join(r.lines, "\n"))
	}
}

func TestExpectMessages(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	plan := planK(t, r)
	tests := []struct {
		name string
		pod  string
		want plantest.Want
		msg  string // "" when the pod meets want
	}{
		{name: "zero Want: placed", pod: "arm"},
		{name: "every field", pod: "arm", want: plantest.Want{NodePool: "a", NodeClaim: "a-1", InstanceType: "arm", Family: "arm", Arch: "arm64", Zone: "z1", CapacityType: "spot"}},
		{name: "existing node", pod: "shop/tiny", want: plantest.Want{Node: "node-x", Zone: "z3"}},
		{name: "code", pod: "huge", want: plantest.Want{Code: scheduler.ReasonInsufficient}},
		{name: "unplaced", pod: "huge", want: plantest.Want{Unplaced: true}},
		{
			name: "two fields wrong", pod: "arm", want: plantest.Want{NodePool: "b", Arch: "arm64", Zone: "z2"},
			msg: "error: pod default/arm: want NodePool b, zone z2\n\tgot: NodeClaim a-1 (NodePool a, arm, family arm, arm64, z1, spot, $14.4000/h)",
		},
		{
			name: "placed, want unplaced", pod: "team-b", want: plantest.Want{Code: scheduler.ReasonTaint},
			msg: "error: pod default/team-b: want unplaced with reason UntoleratedTaint\n\tgot: NodeClaim b-1 (NodePool b, default, family default, amd64, z1, on-demand, $0.8000/h)",
		},
		{
			name: "another code", pod: "huge", want: plantest.Want{Code: scheduler.ReasonTaint},
			msg: "error: pod default/huge: want reason UntoleratedTaint\n\tgot: unplaced, " + string(scheduler.ReasonInsufficient),
		},
		{
			name: "unplaced, want placed", pod: "huge", want: plantest.Want{},
			msg: "error: pod default/huge: want placed\n\tgot: unplaced, " + string(scheduler.ReasonInsufficient),
		},
		{
			name: "unplaced, want a NodePool", pod: "huge", want: plantest.Want{NodePool: "a"},
			msg: "error: pod default/huge: want NodePool a\n\tgot: unplaced, " + string(scheduler.ReasonInsufficient),
		},
		{
			name: "another namespace", pod: "tiny",
			msg: "error: pod default/tiny is not a pending pod of the scenario (4 pending pods); did you mean shop/tiny?",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			ok := plan.Expect(r, tt.pod, tt.want)
			if ok != (tt.msg == "") {
				t.Errorf("Expect = %v, want %v", ok, tt.msg == "")
			}
			got := strings.Join(r.lines, "\n")
			// The reason of an unplaced pod is the solver's prose: compare up to the code.
			if tt.msg != "" && strings.HasPrefix(got, tt.msg) {
				got = tt.msg
			}
			if diff := gocmp.Diff(tt.msg, got); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownPodSuggestsWorkloadPods(t *testing.T) {
	t.Parallel()
	plan := plantest.FromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
`)
	r := &recorder{}
	plan.Pod(r, "web")
	want := []string{"fatal: pod default/web is not a pending pod of the scenario (2 pending pods); did you mean default/web-0, default/web-1?"}
	if diff := gocmp.Diff(want, r.lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFatalOnBrokenScenario(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		load func(r plantest.TB) *plantest.Plan
		want string
	}{
		{
			name: "missing folder",
			load: func(r plantest.TB) *plantest.Plan { return plantest.Load(r, "testdata/missing") },
			want: "fatal: plantest: reading the scenario:\n\ttestdata/missing: no such file or directory",
		},
		{
			name: "invalid manifest",
			load: func(r plantest.TB) *plantest.Plan {
				return plantest.FromYAML(r, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 1x}}}]}\n")
			},
			want: "fatal: plantest: the scenario's manifests are invalid:\n\tinline-1.yaml: document 1 (Pod default/p): spec.containers[0].resources.requests[cpu]: Invalid value: \"1x\"",
		},
		{
			name: "invalid option",
			load: func(r plantest.TB) *plantest.Plan {
				return plantest.FromYAML(r, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
					plantest.WithSolveOptions(scheduler.WithMaxInstanceTypeOptions(0)))
			},
			want: "fatal: plantest: Solve refused the input:\n\tWithMaxInstanceTypeOptions: 0: must be at least 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &recorder{}
			plan := tt.load(r)
			require.NotNil(t, plan, "a fatal helper still returns a Plan")
			got := strings.Join(r.lines, "\n")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("report:\n%s\nwant it to start with:\n%s", got, tt.want)
			}
		})
	}
}
