package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestExclusion: the requirement exclusion returns is the exact complement
// of the one it is given, over every state a node's label can be in (absent,
// or one of the values below), and it has one for each operator that one
// requirement can complement. filterPins uses it to keep a NodeClaim out of
// a spread's node filter; a form it misses (NotIn, once) leaves the claim
// counted where kube-scheduler will not count its node.
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
	}{{"", false}, {"amd64", true}, {"arm64", true}, {"s390x", true}, {"2", true}, {"7", true}}
	tests := []struct {
		name   string
		r      requirements.Requirement
		wantOK bool
	}{
		{name: "In", r: mustNew(requirements.OpIn, "amd64", "s390x"), wantOK: true},
		{name: "NotIn", r: mustNew(requirements.OpNotIn, "amd64"), wantOK: true},
		{name: "NotIn several", r: mustNew(requirements.OpNotIn, "amd64", "s390x"), wantOK: true},
		{name: "Exists", r: mustNew(requirements.OpExists), wantOK: true},
		{name: "DoesNotExist", r: mustNew(requirements.OpDoesNotExist), wantOK: true},
		// Absent or one of the values: no single requirement says it.
		{name: "Exists and NotIn", r: mustNew(requirements.OpNotIn, "amd64").Intersect(mustNew(requirements.OpExists)), wantOK: false},
		{name: "Gt", r: mustNew(requirements.OpGt, "3"), wantOK: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, ok := exclusion(tc.r, true)
			if diff := cmp.Diff(tc.wantOK, ok); diff != "" {
				t.Fatalf("exclusion(%v) ok (-want +got):\n%s", tc.r, diff)
			}
			if !ok {
				return
			}
			for _, s := range states {
				if tc.r.Matches(s.value, s.present) == ex.Matches(s.value, s.present) {
					t.Errorf("exclusion(%v) = %v: both or neither match the label (value %q, present %v)", tc.r, ex, s.value, s.present)
				}
			}
		})
	}
}
