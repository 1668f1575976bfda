package scheduler_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// poolP is NodePool P of docs/BEHAVIOURS.md under another name: capacity
// type In [spot, on-demand, reserved] and nothing else.
func poolP(name string) *testutil.NodePoolBuilder {
	return testutil.NodePool(name).Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot", "on-demand", "reserved")
}

// TestBehaviourB041InvalidNodePoolNotUsed: a NodePool that Karpenter's
// admission rejects (B-041) is never used. nodeplan reads it as invalid
// input: nodepool.Validate reports it and Solve returns a
// *nodepool.InvalidError naming it, with no plan, so not one NodeClaim
// comes from it. The valid neighbours of each rule (minValues equal to the
// In values, 50, exactly 100 requirements, one taint key with two effects)
// are accepted and used.
func TestBehaviourB041InvalidNodePoolNotUsed(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	gt := func(op string, values ...string) *testutil.NodePoolBuilder {
		return poolP("np").Requirement("integer", corev1.NodeSelectorOperator(op), values...)
	}
	requirementsN := func(n int) *testutil.NodePoolBuilder {
		b := poolP("np") // one requirement already
		for i := 1; i < n; i++ {
			b.Requirement(fmt.Sprintf("example.com/k%d", i), corev1.NodeSelectorOpDoesNotExist)
		}
		return b
	}
	tests := []struct {
		name    string
		np      *testutil.NodePoolBuilder
		invalid bool
		// unplacedBy: a valid pool that cannot take the pod, for this reason.
		unplacedBy scheduler.ReasonCode
	}{
		{name: "B-041 label karpenter.sh/nodepool", np: poolP("np").Label("karpenter.sh/nodepool", "np"), invalid: true},
		{name: "B-041 requirement karpenter.sh/nodepool", np: poolP("np").Requirement("karpenter.sh/nodepool", corev1.NodeSelectorOpIn, "np"), invalid: true},
		{name: "B-041 label in the restricted karpenter.sh domain", np: poolP("np").Label("karpenter.sh/custom", "x"), invalid: true},
		{name: "B-041 requirement in the restricted karpenter.sh domain", np: poolP("np").Requirement("karpenter.sh/custom", corev1.NodeSelectorOpExists), invalid: true},
		{name: "B-041 requirement in a subdomain of karpenter.sh", np: poolP("np").Requirement("sub.karpenter.sh/custom", corev1.NodeSelectorOpIn, "x"), invalid: true},
		{name: "B-041 label in the restricted AWS domain karpenter.k8s.aws", np: poolP("np").Label("karpenter.k8s.aws/custom", "x"), invalid: true},
		{name: "B-041 requirement on kubernetes.io/hostname", np: poolP("np").Requirement("kubernetes.io/hostname", corev1.NodeSelectorOpIn, "h"), invalid: true},
		{name: "B-041 In with no values", np: poolP("np").Requirement("team", corev1.NodeSelectorOpIn), invalid: true},
		{name: "B-041 minValues above the In values", np: poolP("np").Requirement("team", corev1.NodeSelectorOpIn, "a", "b").MinValues(3), invalid: true},
		{name: "B-041 minValues equal to the In values is valid", np: poolP("np").Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "small", "default").MinValues(2)},
		{name: "B-041 minValues 0", np: poolP("np").Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists).MinValues(0), invalid: true},
		{name: "B-041 minValues 51", np: poolP("np").Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists).MinValues(51), invalid: true},
		{
			// Valid, and used: it is the pool's minValues (Catalog K has six
			// types) that leaves the pod unplaced, not admission.
			name: "B-041 minValues 50 is valid", np: poolP("np").Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists).MinValues(50),
			unplacedBy: scheduler.ReasonMinValues,
		},
		{name: "B-041 101 requirements", np: requirementsN(101), invalid: true},
		{name: "B-041 100 requirements are valid", np: requirementsN(100)},
		{name: "B-041 100 requirements and a template label", np: requirementsN(100).Label("team", "a"), invalid: true},
		{name: "B-041 Gt not an integer", np: gt("Gt", "a"), invalid: true},
		{name: "B-041 Gt negative", np: gt("Gt", "-1"), invalid: true},
		{name: "B-041 Gt with two values", np: gt("Gt", "1", "2"), invalid: true},
		{name: "B-041 Lt with no value", np: gt("Lt"), invalid: true},
		{name: "B-041 Gte not an integer", np: gt("Gte", "1.5"), invalid: true},
		{name: "B-041 Lte negative", np: gt("Lte", "-2"), invalid: true},
		{name: "B-041 Gt 1 is valid", np: gt("Gt", "1")},
		{name: "B-041 Lte 4 is valid", np: gt("Lte", "4")},
		{
			name:    "B-041 duplicate taint key and effect",
			np:      poolP("np").Taint("dedicated", "a", corev1.TaintEffectNoSchedule).Taint("dedicated", "b", corev1.TaintEffectNoSchedule),
			invalid: true,
		},
		{
			name: "B-041 duplicate startup taint key and effect",
			np: poolP("np").StartupTaint("agent", "", corev1.TaintEffectNoSchedule).
				StartupTaint("agent", "starting", corev1.TaintEffectNoSchedule),
			invalid: true,
		},
		{name: "B-041 one taint key with two effects is valid", np: poolP("np").Taint("dedicated", "a", corev1.TaintEffectNoSchedule).Taint("dedicated", "a", corev1.TaintEffectNoExecute)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			np := tc.np.Obj()
			errs := nodepool.Validate(np, cat.Schema())
			if got := len(errs) > 0; got != tc.invalid {
				t.Fatalf("Validate: invalid = %v (%v), want %v", got, errs, tc.invalid)
			}
			pod := testutil.Pod("app").CPU("100m").
				Toleration("", corev1.TolerationOpExists, "", "").Obj() // tolerates any taint of the pool
			res, err := scheduler.Solve([]*corev1.Pod{pod}, []nodepool.NodePool{np}, cat)
			if tc.invalid {
				var ie *nodepool.InvalidError
				if !errors.As(err, &ie) || ie.Name != "np" {
					t.Fatalf("Solve: error %v (plan %+v), want a *nodepool.InvalidError naming np", err, res.NodeClaims)
				}
				return
			}
			require.NoError(t, err)
			if tc.unplacedBy != "" {
				require.Empty(t, res.NodeClaims)
				require.Len(t, res.PodErrors, 1)
				require.Equal(t, tc.unplacedBy, res.PodErrors[0].Code, res.PodErrors[0].Reason)
				return
			}
			require.Empty(t, res.PodErrors)
			require.Len(t, res.NodeClaims, 1)
			require.Equal(t, "np", res.NodeClaims[0].NodePool)
		})
	}
}

// TestBehaviourB097NodeClaimRequestsExact: a NodeClaim made for one pod
// requesting 1 cpu, 1Mi memory and one GPU requests exactly that plus
// `pods: 1`, nothing else (B-097; scenario b097-nodeclaim-requests).
func TestBehaviourB097NodeClaimRequestsExact(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	const gpu = corev1.ResourceName("vendor-a.com/gpu")
	pod := testutil.Pod("gpu-app").CPU("1").Memory("1Mi").Request(gpu, "1").Limit(gpu, "1").Obj()
	res, err := scheduler.Solve([]*corev1.Pod{pod}, []nodepool.NodePool{poolP("default").Obj()}, cat)
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NodeClaims, 1, "B-097: one NodeClaim")
	want := map[corev1.ResourceName]string{corev1.ResourceCPU: "1", corev1.ResourceMemory: "1Mi", gpu: "1", corev1.ResourcePods: "1"}
	got := map[corev1.ResourceName]string{}
	for name, q := range res.NodeClaims[0].Requests {
		got[name] = q.String()
		if w, ok := want[name]; ok && q.Cmp(resource.MustParse(w)) == 0 {
			got[name] = w // the same quantity, whatever its text
		}
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("B-097: NodeClaim requests (-want +got):\n%s", diff)
	}
}

// TestBehaviourB118MinValuesAfterTruncation: minValues 2 on the instance
// type is met while planning (Catalog K has six types), but with the
// NodeClaim's instance-type options capped at 1 it no longer is: the
// NodeClaim is dropped and its pods fail with a MinValues reason (B-118).
// Capped at 2 it is met again.
func TestBehaviourB118MinValuesAfterTruncation(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	pool := poolP("default").Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists).MinValues(2).Obj()
	pods := []*corev1.Pod{testutil.Pod("app-0").CPU("100m").Obj(), testutil.Pod("app-1").CPU("100m").Obj()}
	for _, tc := range []struct {
		name       string
		maxOptions int
		unplaced   bool
	}{
		{name: "B-118 options capped at 1: minValues 2 not met after truncation", maxOptions: 1, unplaced: true},
		{name: "B-118 options capped at 2: minValues 2 met", maxOptions: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := []scheduler.Option{scheduler.WithMaxInstanceTypeOptions(tc.maxOptions)}
			res, err := scheduler.Solve(pods, []nodepool.NodePool{pool}, cat, opts...)
			require.NoError(t, err)
			if err := verify.Plan(pods, []nodepool.NodePool{pool}, cat, res, opts...); err != nil {
				t.Errorf("verify.Plan: %v", err)
			}
			if !tc.unplaced {
				require.Empty(t, res.PodErrors)
				for _, nc := range res.NodeClaims {
					require.Len(t, nc.InstanceTypeOptions, 2, "NodeClaim %s", nc.Name)
				}
				return
			}
			require.Empty(t, res.NodeClaims, "B-118: the NodeClaim is dropped after truncation")
			require.Len(t, res.PodErrors, len(pods))
			for _, pe := range res.PodErrors {
				require.Equal(t, scheduler.ReasonMinValues, pe.Code, "pod %s: %s", pe.Pod, pe.Reason)
				require.True(t, strings.Contains(pe.Reason, "minValues") && strings.Contains(pe.Reason, "node.kubernetes.io/instance-type"),
					"pod %s: reason %q should name minValues and the key", pe.Pod, pe.Reason)
			}
		})
	}
}
