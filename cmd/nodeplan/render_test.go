package main

import (
	"bytes"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

func renderCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("m5.large").CPU("2").Memory("8Gi").Pods("29").
			KubeReserved(corev1.ResourceCPU, "70m").KubeReserved(corev1.ResourceMemory, "1Gi").
			Offering("us-east-1a", "spot", 0.035).Obj(),
		testutil.InstanceType("c5.xlarge").CPU("4").Memory("8Gi").Pods("58").Offering("us-east-1b", "on-demand", 0.17).Obj(),
	})
	require.NoError(t, err)
	return cat
}

func resources(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func samplePlan() scheduler.Result {
	return scheduler.Result{
		NodeClaims: []scheduler.NodeClaim{
			{Name: "default-1", NodePool: "default", InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", Price: 0.035,
				InstanceTypeOptions: []string{"m5.large", "c5.xlarge"}, Labels: map[string]string{"karpenter.sh/nodepool": "default"},
				Requirements: []requirements.Expression{{Key: "kubernetes.io/arch", Operator: requirements.OpIn, Values: []string{"amd64"}}},
				Requests:     resources("cpu", "1500m", "memory", "3Gi", "pods", "2"), Pods: []string{"default/web-0", "default/web-1"}},
			{Name: "gpu-1", NodePool: "gpu", InstanceType: "c5.xlarge", Zone: "us-east-1b", CapacityType: "on-demand", Price: 0.17,
				Requests: resources("cpu", "250m", "pods", "1"), Pods: []string{"default/x-0"}},
			{Name: "odd-1", NodePool: "odd", InstanceType: "gone.large", Zone: "us-east-1c", CapacityType: "spot", Price: 0.01,
				Requests: resources("cpu", "100m", "memory", "100Mi"), Pods: []string{"default/y"}},
		},
		ExistingNodes: []scheduler.NodePlacement{{Name: "node-a", Pods: []string{"default/api-0", "default/api-1", "default/api-2", "default/api-3"}}},
		PodErrors: []scheduler.PodError{
			{Pod: "default/big-0", Reason: "no instance type has 200 cpu (largest allocatable: 191450m)"},
			{Pod: "default/sel-0", Reason: `label "team" does not have known values`},
			{Pod: "default/sel-1", Reason: `label "team" does not have known values`},
		},
		Summary: scheduler.Summary{Pods: 10, Scheduled: 8, NodeClaims: 3, PricePerHour: 0.215, PriceLowerBound: 0.2},
	}
}

func TestRenderTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  scheduler.Result
		want string
	}{
		{
			name: "every section",
			res:  samplePlan(),
			want: `NAME       NODEPOOL  INSTANCE TYPE  ZONE        CAPACITY   $/HOUR   PODS  CPU             MEMORY
default-1  default   m5.large       us-east-1a  spot       $0.0350  2     1.5/1.93 (78%)  3Gi/7Gi (43%)
gpu-1      gpu       c5.xlarge      us-east-1b  on-demand  $0.1700  1     0.25/4 (6%)     0/8Gi (0%)
odd-1      odd       gone.large     us-east-1c  spot       $0.0100  1     0.1/?           100Mi/?

EXISTING NODE  PODS  NAMES
node-a         4     default/api-0, default/api-1, default/api-2 (+1 more)

UNPLACED PODS                 REASON
default/sel-0, default/sel-1  label "team" does not have known values
default/big-0                 no instance type has 200 cpu (largest allocatable: 191450m)

Pods:   8 of 10 scheduled (4 on existing nodes, 3 unplaced)
Nodes:  3 new
Price:  $0.2150/hour, $156.95/month (730 hours)
Bound:  no valid plan for these pods costs less than $0.2000/hour (this plan costs 1.075 times that)
`,
		},
		{
			name: "nothing to do",
			res:  scheduler.Result{},
			want: `No new nodes.

Pods:   0 of 0 scheduled (0 on existing nodes, 0 unplaced)
Nodes:  0 new
Price:  $0.0000/hour, $0.00/month (730 hours)
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			require.NoError(t, renderTable(&b, tt.res, renderCatalog(t)))
			if diff := gocmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("renderTable() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderJSON(t *testing.T) {
	t.Parallel()
	res := scheduler.Result{
		NodeClaims:  []scheduler.NodeClaim{{Name: "a-1", NodePool: "a", InstanceType: "m5.large", Zone: "z", CapacityType: "spot", Price: 0.5}},
		Relaxations: []scheduler.Relaxation{{Pod: "default/p", Dropped: []string{"x"}}},
		PodErrors: []scheduler.PodError{
			{Pod: "default/q", Reason: "cpu < 2 & memory > 1Gi", Code: scheduler.ReasonInsufficient,
				Details: []scheduler.Cause{{Code: scheduler.ReasonInsufficient, NodePool: "a", Key: "cpu", Asked: "2", Offered: "1", Message: "cpu < 2 & memory > 1Gi"}}},
			{Pod: "default/r", Reason: "invalid", Code: scheduler.ReasonInvalidPod},
		},
		// Go-only detail never reaches the plan.
		Preferences: &scheduler.PreferenceCost{ExtraNodeClaims: 1},
	}
	var b bytes.Buffer
	require.NoError(t, renderJSON(&b, res))
	want := `{
  "nodeClaims": [
    {
      "name": "a-1",
      "nodePool": "a",
      "instanceType": "m5.large",
      "zone": "z",
      "capacityType": "spot",
      "price": 0.5,
      "instanceTypeOptions": [],
      "labels": {},
      "requirements": [],
      "requests": {},
      "pods": []
    }
  ],
  "existingNodes": [],
  "podErrors": [
    {
      "pod": "default/q",
      "reason": "cpu < 2 & memory > 1Gi",
      "code": "InsufficientResources",
      "causes": [
        {
          "code": "InsufficientResources",
          "nodePool": "a",
          "key": "cpu",
          "asked": "2",
          "offered": "1",
          "message": "cpu < 2 & memory > 1Gi"
        }
      ]
    },
    {
      "pod": "default/r",
      "reason": "invalid",
      "code": "InvalidPod",
      "causes": []
    }
  ],
  "summary": {
    "pods": 0,
    "scheduled": 0,
    "nodeClaims": 0,
    "pricePerHour": 0,
    "priceLowerBound": 0
  },
  "relaxations": [
    {
      "pod": "default/p",
      "dropped": [
        "x"
      ]
    }
  ]
}
`
	if diff := gocmp.Diff(want, b.String()); diff != "" {
		t.Errorf("renderJSON() mismatch (-want +got):\n%s", diff)
	}
	if res.NodeClaims[0].Pods != nil {
		t.Error("renderJSON modified the Result")
	}

	var y bytes.Buffer
	require.NoError(t, renderYAML(&y, scheduler.Result{}))
	wantYAML := `existingNodes: []
nodeClaims: []
podErrors: []
relaxations: []
summary:
  nodeClaims: 0
  pods: 0
  priceLowerBound: 0
  pricePerHour: 0
  scheduled: 0
`
	if diff := gocmp.Diff(wantYAML, y.String()); diff != "" {
		t.Errorf("renderYAML() mismatch (-want +got):\n%s", diff)
	}
}

func TestStatsLine(t *testing.T) {
	t.Parallel()
	res := scheduler.Result{NodeClaims: make([]scheduler.NodeClaim, 2), Summary: scheduler.Summary{PricePerHour: 0.25, PriceLowerBound: 0.2}}
	got := statsLine(100, 1500*time.Millisecond, 250*time.Millisecond, res)
	want := `{"pods":100,"loadSeconds":1.5,"solveSeconds":0.25,"podsPerSecond":400,"nodeClaims":2,"pricePerHour":0.25,"priceLowerBound":0.2}` + "\n"
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("statsLine() mismatch (-want +got):\n%s", diff)
	}
	if got := statsLine(0, 0, 0, scheduler.Result{}); got != `{"pods":0,"loadSeconds":0,"solveSeconds":0,"podsPerSecond":0,"nodeClaims":0,"pricePerHour":0,"priceLowerBound":0}`+"\n" {
		t.Errorf("statsLine() of nothing = %q", got)
	}
}
