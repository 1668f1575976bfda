package plantest_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/plantest"
)

// printT reports failures on stdout, so that the example shows them; in a
// test, pass the *testing.T.
type printT struct{}

func (printT) Helper()                           {}
func (printT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (printT) Fatalf(format string, args ...any) { fmt.Printf("FATAL: "+format+"\n", args...) }

// A platform team's table test of its NodePools (testdata/nodepools: an
// on-demand amd64 default pool, a tainted GPU pool and a tainted arm64 spot
// pool for batch): the workloads of each case land where the team means
// them to, and a pod that asks for an instance family that does not exist
// gets its reason code. The last case is wrong on purpose, to show the
// failure message.
func ExamplePlan_Expect() {
	t := printT{} // in a test: func TestNodePools(t *testing.T)
	plan := plantest.Load(t, "testdata/nodepools", plantest.WithYAML(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, resources: {requests: {cpu: "1", memory: 2Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: train}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists}]
  containers: [{name: train, resources: {requests: {cpu: "4", nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: report}
spec:
  parallelism: 3
  template:
    spec:
      nodeSelector: {kubernetes.io/arch: arm64}
      tolerations: [{key: batch, operator: Exists}]
      containers: [{name: report, resources: {requests: {cpu: "2", memory: 4Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: legacy}
spec:
  nodeSelector: {karpenter.k8s.aws/instance-family: m99}
  containers: [{name: legacy}]
`))
	tests := []struct {
		pod  string
		want plantest.Want
	}{
		{"web-0", plantest.Want{NodePool: "default", Arch: "amd64", CapacityType: "on-demand"}},
		{"train", plantest.Want{NodePool: "gpu"}},
		{"report-0", plantest.Want{NodePool: "batch", Arch: "arm64", CapacityType: "spot"}},
		{"legacy", plantest.Want{Code: scheduler.ReasonNoInstanceType}},
		{"web-1", plantest.Want{CapacityType: "spot"}}, // wrong on purpose
	}
	for _, tt := range tests {
		plan.Expect(t, tt.pod, tt.want)
	}
	fmt.Println(plan.Pod(t, "train"))
	// Output:
	// FAIL: pod default/web-1: want capacity type spot
	// 	got: NodeClaim default-1 (NodePool default, c6a.xlarge, family c6a, amd64, us-east-1a, on-demand, $0.1530/h)
	// NodeClaim gpu-1 (NodePool gpu, g6.2xlarge, family g6, amd64, us-east-1a, spot, $0.4212/h)
}
