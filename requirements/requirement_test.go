package requirements_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/requirements"
)

// mustNew builds a requirement that the test knows to be valid.
func mustNew(t testing.TB, key string, op requirements.Operator, values ...string) requirements.Requirement {
	t.Helper()
	r, err := requirements.New(key, op, values...)
	require.NoError(t, err)
	return r
}

// matrixOperands is one requirement per operator on key "k", plus the empty
// set and Any, named as the rows of the truth table name them. In and NotIn
// appear twice: with words and with integers, so each meets the bounds both
// ways.
func matrixOperands(t testing.TB) map[string]requirements.Requirement {
	t.Helper()
	return map[string]requirements.Requirement{
		"In[a,b]":      mustNew(t, "k", requirements.OpIn, "a", "b"),
		"In[1,9]":      mustNew(t, "k", requirements.OpIn, "1", "9"),
		"NotIn[a]":     mustNew(t, "k", requirements.OpNotIn, "a"),
		"NotIn[1,2]":   mustNew(t, "k", requirements.OpNotIn, "1", "2"),
		"Exists":       mustNew(t, "k", requirements.OpExists),
		"DoesNotExist": mustNew(t, "k", requirements.OpDoesNotExist),
		"Gt1":          mustNew(t, "k", requirements.OpGt, "1"),
		"Lt9":          mustNew(t, "k", requirements.OpLt, "9"),
		"Gte5":         mustNew(t, "k", requirements.OpGte, "5"),
		"Lte5":         mustNew(t, "k", requirements.OpLte, "5"),
		"Empty":        requirements.In("k"),
		"Any":          requirements.Any("k"),
	}
}

// TestRequirementIntersectMatrix is the exhaustive operator × operator truth
// table. Each row is one unordered pair and runs in both orders, so the table
// covers all 144 ordered pairs; the precondition checks that no pair is
// missing or repeated.
func TestRequirementIntersectMatrix(t *testing.T) {
	t.Parallel()
	ops := matrixOperands(t)
	tests := []struct {
		x, y           string
		want           string // the intersection, as String renders it
		wantIntersects bool
	}{
		{x: "In[a,b]", y: "In[a,b]", want: "k In [a b]", wantIntersects: true},
		{x: "In[a,b]", y: "In[1,9]", want: "k In []"},
		{x: "In[a,b]", y: "NotIn[a]", want: "k In [b]", wantIntersects: true},
		{x: "In[a,b]", y: "NotIn[1,2]", want: "k In [a b]", wantIntersects: true},
		{x: "In[a,b]", y: "Exists", want: "k In [a b]", wantIntersects: true},
		{x: "In[a,b]", y: "DoesNotExist", want: "k In []"},
		{x: "In[a,b]", y: "Gt1", want: "k In []"},
		{x: "In[a,b]", y: "Lt9", want: "k In []"},
		{x: "In[a,b]", y: "Gte5", want: "k In []"},
		{x: "In[a,b]", y: "Lte5", want: "k In []"},
		{x: "In[a,b]", y: "Empty", want: "k In []"},
		{x: "In[a,b]", y: "Any", want: "k In [a b]", wantIntersects: true},

		{x: "In[1,9]", y: "In[1,9]", want: "k In [1 9]", wantIntersects: true},
		{x: "In[1,9]", y: "NotIn[a]", want: "k In [1 9]", wantIntersects: true},
		{x: "In[1,9]", y: "NotIn[1,2]", want: "k In [9]", wantIntersects: true},
		{x: "In[1,9]", y: "Exists", want: "k In [1 9]", wantIntersects: true},
		{x: "In[1,9]", y: "DoesNotExist", want: "k In []"},
		{x: "In[1,9]", y: "Gt1", want: "k In [9]", wantIntersects: true},
		{x: "In[1,9]", y: "Lt9", want: "k In [1]", wantIntersects: true},
		{x: "In[1,9]", y: "Gte5", want: "k In [9]", wantIntersects: true},
		{x: "In[1,9]", y: "Lte5", want: "k In [1]", wantIntersects: true},
		{x: "In[1,9]", y: "Empty", want: "k In []"},
		{x: "In[1,9]", y: "Any", want: "k In [1 9]", wantIntersects: true},

		{x: "NotIn[a]", y: "NotIn[a]", want: "k NotIn [a]", wantIntersects: true},
		{x: "NotIn[a]", y: "NotIn[1,2]", want: "k NotIn [1 2 a]", wantIntersects: true},
		{x: "NotIn[a]", y: "Exists", want: "k Exists NotIn [a]", wantIntersects: true},
		{x: "NotIn[a]", y: "DoesNotExist", want: "k DoesNotExist", wantIntersects: true},
		{x: "NotIn[a]", y: "Gt1", want: "k Exists >=2", wantIntersects: true},
		{x: "NotIn[a]", y: "Lt9", want: "k Exists <=8", wantIntersects: true},
		{x: "NotIn[a]", y: "Gte5", want: "k Exists >=5", wantIntersects: true},
		{x: "NotIn[a]", y: "Lte5", want: "k Exists <=5", wantIntersects: true},
		{x: "NotIn[a]", y: "Empty", want: "k In []"},
		{x: "NotIn[a]", y: "Any", want: "k NotIn [a]", wantIntersects: true},

		{x: "NotIn[1,2]", y: "NotIn[1,2]", want: "k NotIn [1 2]", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Exists", want: "k Exists NotIn [1 2]", wantIntersects: true},
		{x: "NotIn[1,2]", y: "DoesNotExist", want: "k DoesNotExist", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Gt1", want: "k Exists NotIn [2] >=2", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Lt9", want: "k Exists NotIn [1 2] <=8", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Gte5", want: "k Exists >=5", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Lte5", want: "k Exists NotIn [1 2] <=5", wantIntersects: true},
		{x: "NotIn[1,2]", y: "Empty", want: "k In []"},
		{x: "NotIn[1,2]", y: "Any", want: "k NotIn [1 2]", wantIntersects: true},

		{x: "Exists", y: "Exists", want: "k Exists", wantIntersects: true},
		{x: "Exists", y: "DoesNotExist", want: "k In []"},
		{x: "Exists", y: "Gt1", want: "k Exists >=2", wantIntersects: true},
		{x: "Exists", y: "Lt9", want: "k Exists <=8", wantIntersects: true},
		{x: "Exists", y: "Gte5", want: "k Exists >=5", wantIntersects: true},
		{x: "Exists", y: "Lte5", want: "k Exists <=5", wantIntersects: true},
		{x: "Exists", y: "Empty", want: "k In []"},
		{x: "Exists", y: "Any", want: "k Exists", wantIntersects: true},

		{x: "DoesNotExist", y: "DoesNotExist", want: "k DoesNotExist", wantIntersects: true},
		{x: "DoesNotExist", y: "Gt1", want: "k In []"},
		{x: "DoesNotExist", y: "Lt9", want: "k In []"},
		{x: "DoesNotExist", y: "Gte5", want: "k In []"},
		{x: "DoesNotExist", y: "Lte5", want: "k In []"},
		{x: "DoesNotExist", y: "Empty", want: "k In []"},
		{x: "DoesNotExist", y: "Any", want: "k DoesNotExist", wantIntersects: true},

		{x: "Gt1", y: "Gt1", want: "k Exists >=2", wantIntersects: true},
		{x: "Gt1", y: "Lt9", want: "k Exists >=2 <=8", wantIntersects: true},
		{x: "Gt1", y: "Gte5", want: "k Exists >=5", wantIntersects: true},
		{x: "Gt1", y: "Lte5", want: "k Exists >=2 <=5", wantIntersects: true},
		{x: "Gt1", y: "Empty", want: "k In []"},
		{x: "Gt1", y: "Any", want: "k Exists >=2", wantIntersects: true},

		{x: "Lt9", y: "Lt9", want: "k Exists <=8", wantIntersects: true},
		{x: "Lt9", y: "Gte5", want: "k Exists >=5 <=8", wantIntersects: true},
		{x: "Lt9", y: "Lte5", want: "k Exists <=5", wantIntersects: true},
		{x: "Lt9", y: "Empty", want: "k In []"},
		{x: "Lt9", y: "Any", want: "k Exists <=8", wantIntersects: true},

		{x: "Gte5", y: "Gte5", want: "k Exists >=5", wantIntersects: true},
		{x: "Gte5", y: "Lte5", want: "k Exists >=5 <=5", wantIntersects: true},
		{x: "Gte5", y: "Empty", want: "k In []"},
		{x: "Gte5", y: "Any", want: "k Exists >=5", wantIntersects: true},

		{x: "Lte5", y: "Lte5", want: "k Exists <=5", wantIntersects: true},
		{x: "Lte5", y: "Empty", want: "k In []"},
		{x: "Lte5", y: "Any", want: "k Exists <=5", wantIntersects: true},

		{x: "Empty", y: "Empty", want: "k In []"},
		{x: "Empty", y: "Any", want: "k In []"},

		{x: "Any", y: "Any", want: "k Any", wantIntersects: true},
	}

	seen := map[[2]string]bool{}
	for _, tt := range tests {
		require.Contains(t, ops, tt.x)
		require.Contains(t, ops, tt.y)
		pair := [2]string{min(tt.x, tt.y), max(tt.x, tt.y)}
		require.False(t, seen[pair], "pair %v listed twice", pair)
		seen[pair] = true
	}
	require.Len(t, seen, len(ops)*(len(ops)+1)/2, "the table must list every unordered pair")

	for _, tt := range tests {
		orders := [][2]string{{tt.x, tt.y}, {tt.y, tt.x}}
		if tt.x == tt.y {
			orders = orders[:1]
		}
		for _, o := range orders {
			t.Run(o[0]+"∩"+o[1], func(t *testing.T) {
				t.Parallel()
				x, y := ops[o[0]], ops[o[1]]
				got := x.Intersect(y)
				if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
					t.Errorf("Intersect() mismatch (-want +got):\n%s", diff)
				}
				if diff := gocmp.Diff(tt.wantIntersects, x.Intersects(y)); diff != "" {
					t.Errorf("Intersects() mismatch (-want +got):\n%s", diff)
				}
				if diff := gocmp.Diff(tt.wantIntersects, !got.IsEmpty()); diff != "" {
					t.Errorf("!Intersect().IsEmpty() mismatch (-want +got):\n%s", diff)
				}
				err := requirements.NewRequirements(x).Compatible(requirements.NewRequirements(y), nil)
				if diff := gocmp.Diff(tt.wantIntersects, err == nil); diff != "" {
					t.Errorf("Requirements.Compatible() == nil mismatch (-want +got):\n%s\nerr: %v", diff, err)
				}
				err = requirements.NewRequirements(x).Intersects(requirements.NewRequirements(y))
				if diff := gocmp.Diff(tt.wantIntersects, err == nil); diff != "" {
					t.Errorf("Requirements.Intersects() == nil mismatch (-want +got):\n%s\nerr: %v", diff, err)
				}
			})
		}
	}
}

// TestRequirementIntersect pins Karpenter's named algebra cases (B-001..B-013)
// and the edges of the bound arithmetic.
func TestRequirementIntersect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		x, y         requirements.Requirement
		want         string
		wantOperator requirements.Operator
		wantLen      int
	}{
		{
			name: "B-001 In[A]∩In[A,B]", x: requirements.In("key", "A"), y: requirements.In("key", "A", "B"),
			want: "key In [A]", wantOperator: requirements.OpIn, wantLen: 1,
		},
		{
			name: "B-002 In[A]∩In[B] is empty and reports DoesNotExist", x: requirements.In("key", "A"), y: requirements.In("key", "B"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-003 In[A]∩NotIn[A]", x: requirements.In("key", "A"), y: requirements.NotIn("key", "A"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-004 NotIn[A]∩NotIn[1,2]", x: requirements.NotIn("key", "A"), y: requirements.NotIn("key", "1", "2"),
			want: "key NotIn [1 2 A]", wantOperator: requirements.OpNotIn, wantLen: math.MaxInt,
		},
		{
			name: "B-005 Exists∩In[A] is In[A]", x: requirements.Exists("key"), y: requirements.In("key", "A"),
			want: "key In [A]", wantOperator: requirements.OpIn, wantLen: 1,
		},
		{
			name: "B-005 DoesNotExist∩NotIn[A] is DoesNotExist", x: requirements.DoesNotExist("key"), y: requirements.NotIn("key", "A"),
			want: "key DoesNotExist", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-006 Gt1∩In[1,9]", x: mustNew(t, "key", requirements.OpGt, "1"), y: requirements.In("key", "1", "9"),
			want: "key In [9]", wantOperator: requirements.OpIn, wantLen: 1,
		},
		{
			name: "B-006 Gt1∩In[A] (not an integer)", x: mustNew(t, "key", requirements.OpGt, "1"), y: requirements.In("key", "A"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-007 Gt1∩Lt9", x: mustNew(t, "key", requirements.OpGt, "1"), y: mustNew(t, "key", requirements.OpLt, "9"),
			want: "key Exists >=2 <=8", wantOperator: requirements.OpGte, wantLen: 7,
		},
		{
			name: "B-007 Gt9∩Lt1", x: mustNew(t, "key", requirements.OpGt, "9"), y: mustNew(t, "key", requirements.OpLt, "1"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-008 NotIn[1,2]∩Gt1 drops 1", x: requirements.NotIn("key", "1", "2"), y: mustNew(t, "key", requirements.OpGt, "1"),
			want: "key Exists NotIn [2] >=2", wantOperator: requirements.OpGte, wantLen: math.MaxInt,
		},
		{
			name: "B-010 Gt MaxInt64 is empty", x: mustNew(t, "key", requirements.OpGt, strconv.FormatInt(math.MaxInt64, 10)), y: requirements.Any("key"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "Lt MinInt64 is empty", x: mustNew(t, "key", requirements.OpLt, strconv.FormatInt(math.MinInt64, 10)), y: requirements.Any("key"),
			want: "key In []", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "B-012 Gt4∩Gte5 is Gte5", x: mustNew(t, "key", requirements.OpGt, "4"), y: mustNew(t, "key", requirements.OpGte, "5"),
			want: "key Exists >=5", wantOperator: requirements.OpGte, wantLen: math.MaxInt,
		},
		{
			name: "B-012 Gt5∩Gte5 is Gte6", x: mustNew(t, "key", requirements.OpGt, "5"), y: mustNew(t, "key", requirements.OpGte, "5"),
			want: "key Exists >=6", wantOperator: requirements.OpGte, wantLen: math.MaxInt,
		},
		{
			name: "B-012 Lt5∩Lte5 is Lte4", x: mustNew(t, "key", requirements.OpLt, "5"), y: mustNew(t, "key", requirements.OpLte, "5"),
			want: "key Exists <=4", wantOperator: requirements.OpLte, wantLen: math.MaxInt,
		},
		{
			name: "B-012 Lt9∩Lte5 is Lte5", x: mustNew(t, "key", requirements.OpLt, "9"), y: mustNew(t, "key", requirements.OpLte, "5"),
			want: "key Exists <=5", wantOperator: requirements.OpLte, wantLen: math.MaxInt,
		},
		{
			name: "B-009 Gte8∩Lte8 is one integer", x: mustNew(t, "key", requirements.OpGte, "8"), y: mustNew(t, "key", requirements.OpLte, "8"),
			want: "key Exists >=8 <=8", wantOperator: requirements.OpGte, wantLen: 1,
		},
		{
			// "08" and "+8" still parse as 8, as they do for Kubernetes' Gt/Lt,
			// so excluding the canonical spelling does not empty the range.
			name: "Gte8∩Lte8∩NotIn[8] keeps other spellings of 8", x: mustNew(t, "key", requirements.OpGte, "8").Intersect(mustNew(t, "key", requirements.OpLte, "8")), y: requirements.NotIn("key", "8"),
			want: "key Exists NotIn [8] >=8 <=8", wantOperator: requirements.OpGte, wantLen: 0,
		},
		{
			name: "bounds over the whole int64 range", x: mustNew(t, "key", requirements.OpGte, strconv.FormatInt(math.MinInt64, 10)), y: mustNew(t, "key", requirements.OpLte, strconv.FormatInt(math.MaxInt64, 10)),
			want: "key Exists >=-9223372036854775808 <=9223372036854775807", wantOperator: requirements.OpGte, wantLen: math.MaxInt,
		},
		{
			name: "B-013 minValues 1∩2 is 2", x: requirements.In("key", "A", "B").WithMinValues(1), y: requirements.In("key", "A", "B", "C").WithMinValues(2),
			want: "key In [A B] minValues 2", wantOperator: requirements.OpIn, wantLen: 2,
		},
		{
			name: "B-013 minValues with none keeps it", x: requirements.Exists("key"), y: requirements.In("key", "A", "B").WithMinValues(2),
			want: "key In [A B] minValues 2", wantOperator: requirements.OpIn, wantLen: 2,
		},
		{
			name: "minValues survives an empty result", x: requirements.In("key", "A").WithMinValues(1), y: mustNew(t, "key", requirements.OpGt, "3"),
			want: "key In [] minValues 1", wantOperator: requirements.OpDoesNotExist, wantLen: 0,
		},
		{
			name: "zero Requirement takes the other key", x: requirements.Requirement{}, y: requirements.In("key", "A"),
			want: "key In [A]", wantOperator: requirements.OpIn, wantLen: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.x.Intersect(tt.y)
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("Intersect() mismatch (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantOperator, got.Operator()); diff != "" {
				t.Errorf("Operator() mismatch (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantLen, got.Len()); diff != "" {
				t.Errorf("Len() mismatch (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(!got.IsEmpty(), tt.x.Intersects(tt.y)); diff != "" {
				t.Errorf("Intersects() disagrees with Intersect (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequirementHas covers B-011 and B-014 and the spellings of integers
// that Kubernetes' strconv.ParseInt accepts.
func TestRequirementHas(t *testing.T) {
	t.Parallel()
	gte2 := mustNew(t, "k", requirements.OpGte, "2")
	lte8 := mustNew(t, "k", requirements.OpLte, "8")
	tests := []struct {
		name  string
		r     requirements.Requirement
		value string
		want  bool
	}{
		{name: "B-014 Exists has A", r: requirements.Exists("k"), value: "A", want: true},
		{name: "B-014 Exists has the empty value", r: requirements.Exists("k"), value: "", want: true},
		{name: "B-014 NotIn[1,2] has A", r: requirements.NotIn("k", "1", "2"), value: "A", want: true},
		{name: "B-014 NotIn[1,2] has 9", r: requirements.NotIn("k", "1", "2"), value: "9", want: true},
		{name: "B-014 NotIn[1,2] lacks 1", r: requirements.NotIn("k", "1", "2"), value: "1"},
		{name: "B-014 Lt9 lacks A", r: mustNew(t, "k", requirements.OpLt, "9"), value: "A"},
		{name: "B-011 Gte2 has 2", r: gte2, value: "2", want: true},
		{name: "B-011 Gte2 has 3", r: gte2, value: "3", want: true},
		{name: "B-011 Gte2 has 100", r: gte2, value: "100", want: true},
		{name: "B-011 Gte2 lacks 1", r: gte2, value: "1"},
		{name: "B-011 Gte2 lacks 0", r: gte2, value: "0"},
		{name: "B-011 Lte8 has 8", r: lte8, value: "8", want: true},
		{name: "B-011 Lte8 has 0", r: lte8, value: "0", want: true},
		{name: "B-011 Lte8 lacks 9", r: lte8, value: "9"},
		{name: "B-011 Gte0 lacks -1", r: mustNew(t, "k", requirements.OpGte, "0"), value: "-1"},
		{name: "Gte2 has 02", r: gte2, value: "02", want: true},
		{name: "Gte2 has +3", r: gte2, value: "+3", want: true},
		{name: "Gte2 lacks 2.5", r: gte2, value: "2.5"},
		{name: "Gte2 lacks 1_000", r: gte2, value: "1_000"},
		{name: "Gte2 lacks empty", r: gte2, value: ""},
		{name: "Gte2 lacks a value past int64", r: gte2, value: "9223372036854775808"},
		{name: "Lte8 has MinInt64", r: lte8, value: "-9223372036854775808", want: true},
		{name: "Lte8 lacks a value below int64", r: lte8, value: "-9223372036854775809"},
		{name: "In is exact, not numeric", r: requirements.In("k", "1"), value: "01"},
		{name: "DoesNotExist has no value", r: requirements.DoesNotExist("k"), value: ""},
		{name: "Any has every value", r: requirements.Any("k"), value: "x", want: true},
		{name: "empty has no value", r: requirements.In("k"), value: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, tt.r.Has(tt.value)); diff != "" {
				t.Errorf("Has(%q) mismatch (-want +got):\n%s", tt.value, diff)
			}
			if diff := gocmp.Diff(tt.want, tt.r.Matches(tt.value, true)); diff != "" {
				t.Errorf("Matches(%q, true) mismatch (-want +got):\n%s", tt.value, diff)
			}
		})
	}
}

func TestRequirementAbsence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		r           requirements.Requirement
		wantAbsent  bool
		wantPresent bool
	}{
		{name: "In", r: requirements.In("k", "a"), wantPresent: true},
		{name: "NotIn", r: requirements.NotIn("k", "a"), wantAbsent: true},
		{name: "Exists", r: requirements.Exists("k"), wantPresent: true},
		{name: "DoesNotExist", r: requirements.DoesNotExist("k"), wantAbsent: true},
		{name: "Gt", r: mustNew(t, "k", requirements.OpGt, "1"), wantPresent: true},
		{name: "Lte", r: mustNew(t, "k", requirements.OpLte, "1"), wantPresent: true},
		{name: "Any", r: requirements.Any("k"), wantAbsent: true},
		{name: "zero value", r: requirements.Requirement{}, wantAbsent: true},
		{name: "empty", r: requirements.In("k"), wantPresent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := []bool{tt.r.AllowsAbsent(), tt.r.Matches("", false), tt.r.RequiresPresent()}
			want := []bool{tt.wantAbsent, tt.wantAbsent, tt.wantPresent}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("[AllowsAbsent, Matches(absent), RequiresPresent] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		op      requirements.Operator
		values  []string
		want    string
		wantErr string // a substring of the error; "" for none
	}{
		{name: "In sorts and de-duplicates", op: requirements.OpIn, values: []string{"b", "a", "b"}, want: "team In [a b]"},
		{name: "NotIn", op: requirements.OpNotIn, values: []string{"x"}, want: "team NotIn [x]"},
		{name: "Exists", op: requirements.OpExists, want: "team Exists"},
		{name: "DoesNotExist", op: requirements.OpDoesNotExist, want: "team DoesNotExist"},
		{name: "Gt becomes >= N+1", op: requirements.OpGt, values: []string{"3"}, want: "team Exists >=4"},
		{name: "Lt becomes <= N-1", op: requirements.OpLt, values: []string{"3"}, want: "team Exists <=2"},
		{name: "Gte", op: requirements.OpGte, values: []string{"3"}, want: "team Exists >=3"},
		{name: "Lte", op: requirements.OpLte, values: []string{"3"}, want: "team Exists <=3"},
		{name: "Gt negative is allowed here", op: requirements.OpGt, values: []string{"-3"}, want: "team Exists >=-2"},
		{name: "In without values", op: requirements.OpIn, wantErr: `key "team": operator In needs at least one value`},
		{name: "NotIn without values", op: requirements.OpNotIn, wantErr: `key "team": operator NotIn needs at least one value`},
		{name: "Exists with values", op: requirements.OpExists, values: []string{"a"}, wantErr: `key "team": operator Exists takes no values`},
		{name: "DoesNotExist with values", op: requirements.OpDoesNotExist, values: []string{"a"}, wantErr: `key "team": operator DoesNotExist takes no values`},
		{name: "Gt without values", op: requirements.OpGt, wantErr: `key "team": operator Gt needs exactly one integer value, got 0`},
		{name: "Lt with two values", op: requirements.OpLt, values: []string{"1", "2"}, wantErr: `key "team": operator Lt needs exactly one integer value, got 2`},
		{name: "Gte with a word", op: requirements.OpGte, values: []string{"a"}, wantErr: `key "team": operator Gte needs an integer value, got "a"`},
		{name: "Lte past int64", op: requirements.OpLte, values: []string{"9223372036854775808"}, wantErr: `operator Lte needs an integer value`},
		{name: "unknown operator", op: "Near", values: []string{"a"}, wantErr: `key "team": unknown operator "Near"`},
		{name: "empty operator", op: "", wantErr: `key "team": unknown operator ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := requirements.New("team", tt.op, tt.values...)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if tt.wantErr != "" {
				if !strings.Contains(gotErr, tt.wantErr) {
					t.Errorf("New() error = %q, want it to contain %q", gotErr, tt.wantErr)
				}
				return
			}
			require.NoError(t, err)
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("New() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewDoesNotRetainInput checks that New copies its values: the caller
// may reuse the slice.
func TestNewDoesNotRetainInput(t *testing.T) {
	t.Parallel()
	values := []string{"b", "a"}
	r := mustNew(t, "k", requirements.OpIn, values...)
	n := requirements.NotIn("k", values...)
	values[0], values[1] = "x", "y"
	got := []string{r.String(), n.String()}
	if diff := gocmp.Diff([]string{"k In [a b]", "k NotIn [a b]"}, got); diff != "" {
		t.Errorf("requirements changed with the caller's slice (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"x", "y"}, values); diff != "" {
		t.Errorf("New wrote into the caller's slice (-want +got):\n%s", diff)
	}
}

func TestRequirementString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    requirements.Requirement
		want string
	}{
		{name: "five values are all shown", r: requirements.In("k", "a", "b", "c", "d", "e"), want: "k In [a b c d e]"},
		{name: "B-016 six values are truncated", r: requirements.In("k", "a", "b", "c", "d", "e", "f"), want: "k In [a b c d e and 1 others]"},
		{name: "B-016 NotIn is truncated too", r: requirements.NotIn("k", "1", "2", "3", "4", "5", "6", "7", "8"), want: "k NotIn [1 2 3 4 5 and 3 others]"},
		{name: "Any", r: requirements.Any("k"), want: "k Any"},
		{name: "empty", r: requirements.In("k"), want: "k In []"},
		{name: "DoesNotExist", r: requirements.DoesNotExist("k"), want: "k DoesNotExist"},
		{name: "Exists NotIn", r: requirements.NotIn("k", "a").Intersect(requirements.Exists("k")), want: "k Exists NotIn [a]"},
		{name: "minValues", r: requirements.Exists("k").WithMinValues(3), want: "k Exists minValues 3"},
		{name: "negative minValues is none", r: requirements.Exists("k").WithMinValues(-1), want: "k Exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, tt.r.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirementAccessors(t *testing.T) {
	t.Parallel()
	type view struct {
		Key                string
		Operator           requirements.Operator
		Values             []string
		Finite, Any, Empty bool
		Lower, Upper       int64
		HasLower, HasUpper bool
		MinValues          int
	}
	viewOf := func(r requirements.Requirement) view {
		lo, hasLo, hi, hasHi := r.Bounds()
		return view{
			Key: r.Key(), Operator: r.Operator(), Values: r.Values(), Finite: r.IsFinite(), Any: r.IsAny(), Empty: r.IsEmpty(),
			Lower: lo, HasLower: hasLo, Upper: hi, HasUpper: hasHi, MinValues: r.MinValues(),
		}
	}
	tests := []struct {
		name string
		r    requirements.Requirement
		want view
	}{
		{name: "In", r: requirements.In("k", "b", "a").WithMinValues(2), want: view{Key: "k", Operator: requirements.OpIn, Values: []string{"a", "b"}, Finite: true, MinValues: 2}},
		{name: "NotIn lists excluded values", r: requirements.NotIn("k", "a"), want: view{Key: "k", Operator: requirements.OpNotIn, Values: []string{"a"}}},
		{name: "Exists", r: requirements.Exists("k"), want: view{Key: "k", Operator: requirements.OpExists}},
		{name: "Any reads as Exists", r: requirements.Any("k"), want: view{Key: "k", Operator: requirements.OpExists, Any: true}},
		{name: "DoesNotExist", r: requirements.DoesNotExist("k"), want: view{Key: "k", Operator: requirements.OpDoesNotExist, Finite: true}},
		{name: "empty reads as DoesNotExist", r: requirements.In("k"), want: view{Key: "k", Operator: requirements.OpDoesNotExist, Finite: true, Empty: true}},
		{name: "Gt", r: mustNew(t, "k", requirements.OpGt, "1"), want: view{Key: "k", Operator: requirements.OpGte, Lower: 2, HasLower: true}},
		{name: "Lt", r: mustNew(t, "k", requirements.OpLt, "1"), want: view{Key: "k", Operator: requirements.OpLte, Upper: 0, HasUpper: true}},
		{name: "WithKey renames", r: requirements.In("a", "x").WithKey("b"), want: view{Key: "b", Operator: requirements.OpIn, Values: []string{"x"}, Finite: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, viewOf(tt.r)); diff != "" {
				t.Errorf("accessors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirementEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		x, y        requirements.Requirement
		wantEqual   bool
		wantSameSet bool
	}{
		{name: "same In", x: requirements.In("k", "a", "b"), y: requirements.In("k", "b", "a"), wantEqual: true, wantSameSet: true},
		{name: "other key", x: requirements.In("k", "a"), y: requirements.In("j", "a"), wantSameSet: true},
		{name: "other minValues", x: requirements.In("k", "a"), y: requirements.In("k", "a").WithMinValues(1), wantSameSet: true},
		{name: "Gt1 is Gte2", x: mustNew(t, "k", requirements.OpGt, "1"), y: mustNew(t, "k", requirements.OpGte, "2"), wantEqual: true, wantSameSet: true},
		{name: "Lt9 is Lte8", x: mustNew(t, "k", requirements.OpLt, "9"), y: mustNew(t, "k", requirements.OpLte, "8"), wantEqual: true, wantSameSet: true},
		{name: "Exists is not Any", x: requirements.Exists("k"), y: requirements.Any("k")},
		{name: "DoesNotExist is not empty", x: requirements.DoesNotExist("k"), y: requirements.In("k")},
		{name: "crossed bounds are empty", x: mustNew(t, "k", requirements.OpGt, "9").Intersect(mustNew(t, "k", requirements.OpLt, "1")), y: requirements.In("k"), wantEqual: true, wantSameSet: true},
		{name: "Gt MaxInt64 is empty", x: mustNew(t, "k", requirements.OpGt, "9223372036854775807"), y: requirements.In("k"), wantEqual: true, wantSameSet: true},
		{name: "In∩In to one value", x: requirements.In("k", "a", "b").Intersect(requirements.In("k", "a", "c")), y: requirements.In("k", "a"), wantEqual: true, wantSameSet: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := []bool{tt.x.Equal(tt.y), tt.y.Equal(tt.x), tt.x.SameSet(tt.y), tt.y.SameSet(tt.x)}
			want := []bool{tt.wantEqual, tt.wantEqual, tt.wantSameSet, tt.wantSameSet}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("[Equal, Equal reversed, SameSet, SameSet reversed] mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// rebuild intersects the requirements New builds from each expression, the
// way a reader of a NodeClaim would.
func rebuild(t testing.TB, key string, exprs []requirements.Expression) requirements.Requirement {
	t.Helper()
	out := requirements.Any(key)
	for _, e := range exprs {
		r, err := requirements.New(e.Key, e.Operator, e.Values...)
		require.NoError(t, err, "expression %+v", e)
		out = out.Intersect(r.WithMinValues(e.MinValues))
	}
	return out
}

func TestRequirementExpressions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		r    requirements.Requirement
		want []requirements.Expression
	}{
		{name: "Any gives none", r: requirements.Any("k")},
		{name: "In", r: requirements.In("k", "b", "a").WithMinValues(2), want: []requirements.Expression{{Key: "k", Operator: requirements.OpIn, Values: []string{"a", "b"}, MinValues: 2}}},
		{name: "NotIn", r: requirements.NotIn("k", "a"), want: []requirements.Expression{{Key: "k", Operator: requirements.OpNotIn, Values: []string{"a"}}}},
		{name: "Exists", r: requirements.Exists("k"), want: []requirements.Expression{{Key: "k", Operator: requirements.OpExists}}},
		{name: "DoesNotExist", r: requirements.DoesNotExist("k"), want: []requirements.Expression{{Key: "k", Operator: requirements.OpDoesNotExist}}},
		{name: "empty gives Exists and DoesNotExist", r: requirements.In("k"), want: []requirements.Expression{{Key: "k", Operator: requirements.OpExists}, {Key: "k", Operator: requirements.OpDoesNotExist}}},
		{name: "Exists NotIn", r: requirements.NotIn("k", "a").Intersect(requirements.Exists("k")), want: []requirements.Expression{{Key: "k", Operator: requirements.OpNotIn, Values: []string{"a"}}, {Key: "k", Operator: requirements.OpExists}}},
		{name: "B-009 Gt1∩Lt9 gives Gte2 and Lte8", r: mustNew(t, "k", requirements.OpGt, "1").Intersect(mustNew(t, "k", requirements.OpLt, "9")), want: []requirements.Expression{{Key: "k", Operator: requirements.OpGte, Values: []string{"2"}}, {Key: "k", Operator: requirements.OpLte, Values: []string{"8"}}}},
		{name: "B-009 Gte8∩Lte8 gives two", r: mustNew(t, "k", requirements.OpGte, "8").Intersect(mustNew(t, "k", requirements.OpLte, "8")), want: []requirements.Expression{{Key: "k", Operator: requirements.OpGte, Values: []string{"8"}}, {Key: "k", Operator: requirements.OpLte, Values: []string{"8"}}}},
		{name: "NotIn with a bound", r: requirements.NotIn("k", "1", "2").Intersect(mustNew(t, "k", requirements.OpGt, "1")).WithMinValues(1), want: []requirements.Expression{{Key: "k", Operator: requirements.OpNotIn, Values: []string{"2"}, MinValues: 1}, {Key: "k", Operator: requirements.OpGte, Values: []string{"2"}, MinValues: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.r.Expressions()
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Expressions() mismatch (-want +got):\n%s", diff)
			}
			if back := rebuild(t, tt.r.Key(), got); !back.Equal(tt.r) {
				t.Errorf("rebuilt from Expressions() = %v, want %v", back, tt.r)
			}
		})
	}
}

// TestRequirementExpressionsDoNotAlias checks that callers may edit the
// returned expressions without changing the requirement.
func TestRequirementExpressionsDoNotAlias(t *testing.T) {
	t.Parallel()
	r := requirements.In("k", "a", "b")
	r.Expressions()[0].Values[0] = "z"
	if diff := gocmp.Diff("k In [a b]", r.String()); diff != "" {
		t.Errorf("requirement changed through Expressions() (-want +got):\n%s", diff)
	}
}

func TestRequirementPick(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		r      requirements.Requirement
		seed   uint64
		want   string
		wantOK bool
	}{
		{name: "B-015 In[A,B] gives A", r: requirements.In("k", "B", "A"), want: "A", wantOK: true},
		{name: "B-015 Lt1 gives 0", r: mustNew(t, "k", requirements.OpLt, "1"), want: "0", wantOK: true},
		{name: "B-015 Gt9 gives 10", r: mustNew(t, "k", requirements.OpGt, "9"), want: "10", wantOK: true},
		{name: "B-015 DoesNotExist gives nothing", r: requirements.DoesNotExist("k")},
		{name: "empty gives nothing", r: requirements.In("k")},
		{name: "B-015 Exists gives a number from the seed", r: requirements.Exists("k"), seed: 42, want: "42", wantOK: true},
		{name: "the seed is reduced below 1e9", r: requirements.Any("k"), seed: 3_000_000_007, want: "7", wantOK: true},
		{name: "B-015 NotIn skips excluded values", r: requirements.NotIn("k", "42", "43"), seed: 42, want: "44", wantOK: true},
		{name: "a lower bound skips excluded values", r: requirements.NotIn("k", "2", "3").Intersect(mustNew(t, "k", requirements.OpGt, "1")), want: "4", wantOK: true},
		{name: "an upper bound counts down", r: requirements.NotIn("k", "8").Intersect(mustNew(t, "k", requirements.OpLt, "9")), want: "7", wantOK: true},
		{name: "a range with every integer excluded pads the lower bound", r: requirements.NotIn("k", "2", "3").Intersect(mustNew(t, "k", requirements.OpGte, "2")).Intersect(mustNew(t, "k", requirements.OpLte, "3")), want: "02", wantOK: true},
		{name: "padding skips excluded spellings", r: requirements.NotIn("k", "-5", "-05").Intersect(mustNew(t, "k", requirements.OpGte, "-5")).Intersect(mustNew(t, "k", requirements.OpLte, "-5")), want: "-005", wantOK: true},
		{name: "Gte MaxInt64 NotIn MaxInt64 does not wrap around", r: requirements.NotIn("k", "9223372036854775807").Intersect(mustNew(t, "k", requirements.OpGte, "9223372036854775807")), want: "09223372036854775807", wantOK: true},
		{name: "Lte MinInt64 NotIn MinInt64 does not wrap around", r: requirements.NotIn("k", "-9223372036854775808").Intersect(mustNew(t, "k", requirements.OpLte, "-9223372036854775808")), want: "-09223372036854775808", wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tt.r.Pick(tt.seed)
			if diff := gocmp.Diff([]any{tt.want, tt.wantOK}, []any{got, ok}); diff != "" {
				t.Errorf("Pick(%d) mismatch (-want +got):\n%s", tt.seed, diff)
			}
			if ok && !tt.r.Has(got) {
				t.Errorf("Pick(%d) = %q, which %v does not have", tt.seed, got, tt.r)
			}
			if again, _ := tt.r.Pick(tt.seed); again != got {
				t.Errorf("Pick(%d) is not deterministic: %q then %q", tt.seed, got, again)
			}
		})
	}
}

// TestRequirementPickNeverExcluded sweeps seeds over requirements that exclude
// a run of numbers: whatever the seed, the value is allowed, never excluded,
// and within the bounds.
func TestRequirementPickNeverExcluded(t *testing.T) {
	t.Parallel()
	excluded := make([]string, 0, 20)
	for i := range 20 {
		excluded = append(excluded, strconv.Itoa(100+i))
	}
	tests := []struct {
		name string
		r    requirements.Requirement
	}{
		{name: "NotIn", r: requirements.NotIn("k", excluded...)},
		{name: "NotIn∩Exists", r: requirements.NotIn("k", excluded...).Intersect(requirements.Exists("k"))},
		{name: "NotIn∩Gte100", r: requirements.NotIn("k", excluded...).Intersect(mustNew(t, "k", requirements.OpGte, "100"))},
		{name: "NotIn∩Lte119", r: requirements.NotIn("k", excluded...).Intersect(mustNew(t, "k", requirements.OpLte, "119"))},
		{name: "NotIn∩[100,125]", r: requirements.NotIn("k", excluded...).Intersect(mustNew(t, "k", requirements.OpGte, "100")).Intersect(mustNew(t, "k", requirements.OpLte, "125"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for seed := uint64(90); seed < 130; seed++ {
				got, ok := tt.r.Pick(seed)
				require.True(t, ok, "Pick(%d)", seed)
				if !tt.r.Has(got) || slices.Contains(excluded, got) {
					t.Errorf("Pick(%d) = %q, not allowed by %v", seed, got, tt.r)
				}
			}
		})
	}
}
