package verify

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// TestReslotBindsEveryReachableOrder: seven replicas spread with maxSkew 1
// over zone and capacity type, one per NodeClaim (zones 3, 2, 2; spot 4,
// on-demand 3). Which replica takes which NodeClaim does not change the
// final counts, but it decides the order in which kube-scheduler's queue
// meets the places; of the 5,040 ways to hand them out, some leave
// replicas pending although the counts hold. For each such plan, reslotted
// finds an exchange of the alike replicas that binds them all, and the
// plan it returns differs only in the names on each NodeClaim.
func TestReslotBindsEveryReachableOrder(t *testing.T) {
	c := loadReslot(t)
	in, cat, opts := c.in, c.cat, c.opts
	checked := 0
	for perm := slices.Clone(c.names); checked < 40; {
		plan := c.handedOut(perm)
		err := Plan(in.Pods, in.NodePools, cat, plan, opts...)
		var verr *Error
		if errors.As(err, &verr) {
			require.True(t, verr.Has(scheduler.ReasonTopologySpread), "%v: %v", perm, err)
			fixed, ok := reslotted(in.Pods, in.NodePools, cat, plan, opts)
			require.True(t, ok, "%v: no exchange found", perm)
			require.NoError(t, Plan(in.Pods, in.NodePools, cat, fixed, opts...), "%v", perm)
			for i, nc := range fixed.NodeClaims {
				require.Len(t, nc.Pods, 1)
				require.Equal(t, plan.NodeClaims[i].Name, nc.Name)
			}
			checked++
		} else {
			require.NoError(t, err)
			_, ok := reslotted(in.Pods, in.NodePools, cat, plan, opts)
			require.False(t, ok, "%v binds as it is: nothing to exchange", perm)
		}
		if !nextPerm(perm) {
			break
		}
	}
	require.Equal(t, 40, checked, "plans that bind only once exchanged")
}

// reslotCase is testdata/verify/reslot solved: seven replicas spread over
// zone and capacity type, one per NodeClaim, and their names sorted.
type reslotCase struct {
	in    manifest.Input
	cat   instancetypes.Catalog
	opts  []scheduler.Option
	res   scheduler.Result
	names []string
}

func loadReslot(t *testing.T) reslotCase {
	t.Helper()
	in, err := manifest.Load("../../testdata/verify/reslot/manifests.yaml")
	require.NoError(t, err)
	cat, err := manifest.LoadCatalog("../../testdata/verify/reslot/catalog.json")
	require.NoError(t, err)
	opts := in.Options()
	res, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, Plan(in.Pods, in.NodePools, cat, res, opts...))
	require.Len(t, res.NodeClaims, 7)
	var names []string
	for _, nc := range res.NodeClaims {
		require.Len(t, nc.Pods, 1)
		names = append(names, nc.Pods[0])
	}
	slices.Sort(names)
	return reslotCase{in: in, cat: cat, opts: opts, res: res, names: names}
}

// handedOut is the solved plan with its NodeClaims given the pods of perm,
// one each, in order.
func (c reslotCase) handedOut(perm []string) scheduler.Result {
	plan := c.res
	plan.NodeClaims = slices.Clone(c.res.NodeClaims)
	for i := range plan.NodeClaims {
		plan.NodeClaims[i].Pods = []string{perm[i]}
	}
	return plan
}

// nextPerm rearranges p into its next permutation in lexical order, and
// reports whether there was one.
func nextPerm(p []string) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}
