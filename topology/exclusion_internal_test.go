package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestExclusion: every requirement exclusions returns is met by no node
// that meets the one it is given, over every state a node's label can be in
// (absent, or one of the values below); for the forms one requirement can
// complement exactly it returns that complement alone, and for bounds (not
// among the exact forms) a value past either bound or no label. filterPins uses them to keep a
// NodeClaim out of a spread's node filter; a form it misses leaves the
// claim counted where kube-scheduler will not count its node (NotIn, once),
// or pins it to the values a NotIn names (Lt 2701 with NotIn [192], seed
// 10759: only 192-cpu types, 90 times Karpenter's price).
func TestExclusion(t *testing.T) {
	const key = "kubernetes.io/arch"
	mustNew := func(op requirements.Operator, values ...string) requirements.Requirement {
		r, err := requirements.New(key, op, values...)
		require.NoError(t, err)
		return r
	}
	states := []struct {
		value   string
		present bool
	}{{"", false}, {"amd64", true}, {"arm64", true}, {"s390x", true}, {"2", true}, {"3", true}, {"4", true}, {"7", true}, {"2700", true}, {"2701", true}}
	tests := []struct {
		name  string
		r     requirements.Requirement
		want  int  // candidates returned
		exact bool // the one candidate is the exact complement
		bound bool // boundForms returns them all (a bound), else only exact ones
	}{
		{name: "In", r: mustNew(requirements.OpIn, "amd64", "s390x"), want: 1, exact: true},
		{name: "NotIn", r: mustNew(requirements.OpNotIn, "amd64"), want: 1, exact: true},
		{name: "NotIn several", r: mustNew(requirements.OpNotIn, "amd64", "s390x"), want: 1, exact: true},
		{name: "Exists", r: mustNew(requirements.OpExists), want: 1, exact: true},
		{name: "DoesNotExist", r: mustNew(requirements.OpDoesNotExist), want: 1, exact: true},
		// Absent or one of the values: no single requirement says it.
		{name: "Exists and NotIn", r: mustNew(requirements.OpNotIn, "amd64").Intersect(mustNew(requirements.OpExists)), want: 0},
		{name: "Gt", r: mustNew(requirements.OpGt, "3"), want: 2, bound: true},                                                            // Lte 3, no label
		{name: "Lt", r: mustNew(requirements.OpLt, "2701"), want: 2, bound: true},                                                         // Gte 2701, no label
		{name: "Gt and Lt", r: mustNew(requirements.OpGt, "2").Intersect(mustNew(requirements.OpLt, "7")), want: 3, bound: true},          // Gte 7, Lte 2, no label
		{name: "Lt and NotIn", r: mustNew(requirements.OpLt, "2701").Intersect(mustNew(requirements.OpNotIn, "4")), want: 2, bound: true}, // Gte 2701, no label
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, n := exclusions(tc.r, exactForms); n > tc.want {
				t.Errorf("exclusions(%v, exactForms) has more than the last resort", tc.r)
			}
			_, nb := exclusions(tc.r, boundForms)
			_, ne := exclusions(tc.r, exactForms)
			if wantB := map[bool]int{true: tc.want, false: ne}[tc.bound]; nb != wantB {
				t.Errorf("exclusions(%v, boundForms) returns %d, want %d", tc.r, nb, wantB)
			}
			all, n := exclusions(tc.r, allForms)
			exs := all[:n]
			if diff := cmp.Diff(tc.want, len(exs)); diff != "" {
				t.Fatalf("exclusions(%v) = %v: count (-want +got):\n%s", tc.r, exs, diff)
			}
			for _, ex := range exs {
				for _, s := range states {
					in, out := tc.r.Matches(s.value, s.present), ex.Matches(s.value, s.present)
					if in && out {
						t.Errorf("exclusions(%v): %v meets the label (value %q, present %v) too", tc.r, ex, s.value, s.present)
					}
					if tc.exact && !in && !out {
						t.Errorf("exclusions(%v) = %v: neither meets the label (value %q, present %v)", tc.r, ex, s.value, s.present)
					}
				}
			}
		})
	}
}
