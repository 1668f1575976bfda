package verify_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// Plan checks any plan against its input: here a plan from Solve, then
// the same plan with a pod moved onto a node too small for it.
func ExamplePlan() {
	catalog, _ := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("small").CPU("2").Memory("4Gi").Pods("10").Offering("z1", "on-demand", 0.05).Obj(),
	})
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	pods := []*corev1.Pod{testutil.Pod("a").CPU("1500m").Obj(), testutil.Pod("b").CPU("1500m").Obj()}

	plan, _ := scheduler.Solve(pods, pools, catalog)
	fmt.Println("plan from Solve:", verify.Plan(pods, pools, catalog, plan))

	plan.NodeClaims[0].Pods = append(plan.NodeClaims[0].Pods, plan.NodeClaims[1].Pods...)
	plan.NodeClaims[1].Pods = nil
	var ve *verify.Error
	if errors.As(verify.Plan(pods, pools, catalog, plan), &ve) {
		for _, v := range ve.Violations {
			fmt.Println(v)
		}
	}
	// Output:
	// plan from Solve: <nil>
	// Accounting nodeclaim default-2: NodeClaim has no pods
	// InsufficientResources nodeclaim default-1: 1 option(s) too small for the NodeClaim's pods next to the DaemonSets that run there: small (small: the pods need cpu 3, it has cpu 2)
	// NodeClaimRequests nodeclaim default-1: requests {cpu 1500m, pods 1}, want the pods' {cpu 3, pods 2}
	// NodeClaimRequests nodeclaim default-2: requests {cpu 1500m, pods 1}, want the pods' {}
}
