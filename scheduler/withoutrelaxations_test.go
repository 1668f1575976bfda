package scheduler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler"
)

// TestWithoutRelaxationsSamePlan solves generated inputs (preferences,
// topology, existing nodes) with and without WithoutRelaxations and
// requires the same plan byte for byte once the relaxations are left out
// of the plan made without it, and none listed with it.
func TestWithoutRelaxationsSamePlan(t *testing.T) {
	cats := propertyCatalogs(t)
	cases := 40
	if testing.Short() {
		cases = 10
	}
	relaxed := 0
	for i := range cases {
		in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
		want, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, in.options()...)
		require.NoError(t, err)
		if len(want.Relaxations) > 0 {
			relaxed++
		}
		want.Relaxations = nil
		got, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, append(in.options(), scheduler.WithoutRelaxations())...)
		require.NoError(t, err)
		w, err := json.Marshal(want)
		require.NoError(t, err)
		g, err := json.Marshal(got)
		require.NoError(t, err)
		if diff := gocmp.Diff(string(w), string(g)); diff != "" {
			t.Errorf("case %d: plan without relaxations differs (-without the option +with it):\n%s", i, diff)
		}
	}
	require.Positive(t, relaxed, fmt.Sprintf("none of the %d inputs relaxes a preference: the test checks nothing", cases))
}
