package verify_test

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TestVerifyCordonedNodeSpread checks that a cordoned node carries the
// unschedulable taint for a spread's node filter even when the node as
// given has no such taint (the node lifecycle controller adds it): under
// nodeTaintsPolicy Honor its pods count in no domain, under Ignore they do.
// Zone z1 has a cordoned node with two web pods and an empty node; z2 an
// empty node too small for the pending web pod, which goes to z1's empty
// node: z1=1 z2=0 when the cordoned node is no domain, z1=3 z2=0 when it
// is.
func TestVerifyCordonedNodeSpread(t *testing.T) {
	node := func(name, zone, cpu string) *testutil.NodeBuilder {
		return testutil.Node(name).Label(requirements.LabelTopologyZone, zone).Label(requirements.LabelArch, "amd64").
			Size(cpu, "4Gi", "10")
	}
	nodes := []*corev1.Node{node("cordoned", "z1", "4").Unschedulable().Obj(), node("open", "z1", "4").Obj(), node("small", "z2", "100m").Obj()}
	var bound []*corev1.Pod
	for _, name := range []string{"running-0", "running-1"} {
		bound = append(bound, testutil.Pod(name).Label("app", "web").NodeName("cordoned").CPU("1").
			Toleration("", corev1.TolerationOpExists, "", "").Obj())
	}
	pending := func(policy corev1.NodeInclusionPolicy) []*corev1.Pod {
		return []*corev1.Pod{testutil.Pod("web").Label("app", "web").CPU("1").SpreadConstraint(corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: requirements.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: web()}, NodeTaintsPolicy: &policy,
		}).Obj()}
	}
	in := planInput{cat: kCatalog(t), pools: []nodepool.NodePool{testutil.NodePool("default").Obj()},
		pods: pending(corev1.NodeInclusionPolicyHonor), opts: []scheduler.Option{scheduler.WithExistingNodes(nodes, bound)}}
	res := in.solve(t)
	require.Equal(t, []scheduler.NodePlacement{{Name: "open", Pods: []string{"default/web"}}}, res.ExistingNodes, "precondition: the pod is on z1's open node")
	tests := []struct {
		policy corev1.NodeInclusionPolicy
		want   []scheduler.ReasonCode
	}{
		{policy: corev1.NodeInclusionPolicyHonor},
		{policy: corev1.NodeInclusionPolicyIgnore, want: []scheduler.ReasonCode{scheduler.ReasonTopologySpread}},
	}
	for _, tt := range tests {
		t.Run(string(tt.policy), func(t *testing.T) {
			err := verify.Plan(pending(tt.policy), in.pools, in.cat, res, in.opts...)
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
