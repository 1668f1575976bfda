package verify

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
)

// TestTrimmedLeavesOutWhatWouldNotBind: Solve's last resort. The seven
// replicas of reslot's input, handed to the NodeClaims in the orders that
// leave some pending in kube-scheduler's queue order (their spread counts
// hold at the end), are taken off by trimmed until the plan passes Plan:
// every pod left binds, every pod taken off is an unplaced pod with the
// violation as its reason, a NodeClaim left empty is gone, the summary
// adds up, and the lower bound is the one the solver gives for the pods
// left (scheduler.PriceLowerBound), no more than the price.
func TestTrimmedLeavesOutWhatWouldNotBind(t *testing.T) {
	c := loadReslot(t)
	in, cat, opts, res := c.in, c.cat, c.opts, c.res
	pending := pendingPods(in.Pods)
	lb, err := scheduler.PriceLowerBound(in.Pods, in.NodePools, cat, res, opts...)
	require.NoError(t, err)
	require.Equal(t, res.Summary.PriceLowerBound, lb, "the seam gives Solve's own bound for Solve's plan")
	require.Equal(t, res, trimmed(in.Pods, pending, in.NodePools, cat, res, opts), "a plan that passes is returned as it is")

	trims := 0
	for perm := slices.Clone(c.names); trims < 12; {
		plan := c.handedOut(perm)
		var verr *Error
		if errors.As(Plan(in.Pods, in.NodePools, cat, plan, opts...), &verr) {
			got := trimmed(in.Pods, pending, in.NodePools, cat, plan, opts)
			require.NoError(t, Plan(in.Pods, in.NodePools, cat, got, opts...), "%v", perm)
			require.Less(t, got.Summary.Scheduled, plan.Summary.Scheduled, "%v", perm)
			require.Equal(t, plan.Summary.Pods, got.Summary.Pods)
			require.Len(t, got.PodErrors, plan.Summary.Scheduled-got.Summary.Scheduled)
			price := 0.0
			for _, nc := range got.NodeClaims {
				require.NotEmpty(t, nc.Pods)
				price += nc.Price
			}
			require.InDelta(t, price, got.Summary.PricePerHour, 1e-9)
			require.Equal(t, len(got.NodeClaims), got.Summary.NodeClaims)
			for _, pe := range got.PodErrors {
				require.Equal(t, scheduler.ReasonTopologySpread, pe.Code, pe.Reason)
				require.True(t, strings.HasPrefix(pe.Reason, "planned, kube-scheduler would leave it pending there"), pe.Reason)
				require.True(t, slices.ContainsFunc(verr.Violations, func(v Violation) bool { return v.Pod == pe.Pod }), "%s was not named by a violation", pe.Pod)
			}
			want, err := scheduler.PriceLowerBound(in.Pods, in.NodePools, cat, got, opts...)
			require.NoError(t, err)
			require.Equal(t, want, got.Summary.PriceLowerBound)
			require.LessOrEqual(t, got.Summary.PriceLowerBound, got.Summary.PricePerHour+1e-9)
			trims++
		}
		if !nextPerm(perm) {
			break
		}
	}
	require.Equal(t, 12, trims, "orders that leave pods pending")
}
