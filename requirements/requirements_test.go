package requirements_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/requirements"
)

const (
	zone = requirements.LabelTopologyZone
	arch = requirements.LabelArch
	ct   = requirements.LabelCapacityType
	team = "team"
)

func TestRequirementsCompatible(t *testing.T) {
	t.Parallel()
	schema := requirements.DefaultSchema()
	poolTeamA := requirements.NewRequirements(requirements.In(team, "a"))
	poolP := requirements.NewRequirements(requirements.In(ct, "spot", "on-demand", "reserved"))
	tests := []struct {
		name      string
		target    requirements.Requirements
		incoming  requirements.Requirements
		wellKnown requirements.WellKnown
		want      *requirements.IncompatibleError // nil: compatible
	}{
		{
			name: "B-017 well-known key undefined on the NodePool", target: poolP,
			incoming: requirements.NewRequirements(requirements.In(zone, "z3")), wellKnown: schema,
		},
		{
			name: "B-017 well-known Exists undefined on the NodePool", target: poolP,
			incoming: requirements.NewRequirements(requirements.Exists(arch)), wellKnown: schema,
		},
		{
			name: "well-known key undefined, empty incoming", target: poolP,
			incoming:  requirements.NewRequirements(requirements.In(zone, "z1").Intersect(requirements.In(zone, "z2"))),
			wellKnown: schema,
			want:      &requirements.IncompatibleError{Key: zone, Target: requirements.Any(zone), Incoming: requirements.In(zone)},
		},
		{
			name: "B-018 custom key undefined, In", target: poolP,
			incoming: requirements.NewRequirements(requirements.In(team, "a")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.DoesNotExist(team), Incoming: requirements.In(team, "a"), Undefined: true},
		},
		{
			name: "B-019 custom key undefined, NotIn", target: poolP,
			incoming: requirements.NewRequirements(requirements.NotIn(team, "a")), wellKnown: schema,
		},
		{
			// Karpenter reads Exists ∩ NotIn [a] as NotIn [a] and labels the
			// node with a generated value, which satisfies Exists too.
			name: "B-019 custom key undefined, Exists and NotIn", target: poolP,
			incoming: requirements.NewRequirements(requirements.Exists(team).Intersect(requirements.NotIn(team, "a"))), wellKnown: schema,
		},
		{
			name: "B-019 custom key undefined, Gt and NotIn", target: poolP,
			incoming: requirements.NewRequirements(mustNew(t, team, requirements.OpGt, "1").Intersect(requirements.NotIn(team, "5"))), wellKnown: schema,
		},
		{
			name: "strict: missing key, Exists and NotIn", target: requirements.Requirements{},
			incoming: requirements.NewRequirements(requirements.Exists(team).Intersect(requirements.NotIn(team, "a"))),
			want:     &requirements.IncompatibleError{Key: team, Target: requirements.DoesNotExist(team), Incoming: requirements.Exists(team).Intersect(requirements.NotIn(team, "a")), Undefined: true},
		},
		{
			name: "B-020 custom key undefined, Exists", target: poolP,
			incoming: requirements.NewRequirements(requirements.Exists(team)), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.DoesNotExist(team), Incoming: requirements.Exists(team), Undefined: true},
		},
		{
			name: "B-020 custom key undefined, DoesNotExist", target: poolP,
			incoming: requirements.NewRequirements(requirements.DoesNotExist(team)), wellKnown: schema,
		},
		{
			name: "custom key undefined, Gt", target: poolP,
			incoming: requirements.NewRequirements(mustNew(t, team, requirements.OpGt, "1")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.DoesNotExist(team), Incoming: mustNew(t, team, requirements.OpGt, "1"), Undefined: true},
		},
		{
			name: "B-021 team In[a] vs Exists", target: poolTeamA,
			incoming: requirements.NewRequirements(requirements.Exists(team)), wellKnown: schema,
		},
		{
			name: "B-021 team In[a] vs DoesNotExist", target: poolTeamA,
			incoming: requirements.NewRequirements(requirements.DoesNotExist(team)), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.In(team, "a"), Incoming: requirements.DoesNotExist(team)},
		},
		{
			name: "B-021 team In[a] vs NotIn[a]", target: poolTeamA,
			incoming: requirements.NewRequirements(requirements.NotIn(team, "a")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.In(team, "a"), Incoming: requirements.NotIn(team, "a")},
		},
		{
			name: "B-021 team In[a] vs NotIn[b]", target: poolTeamA,
			incoming: requirements.NewRequirements(requirements.NotIn(team, "b")), wellKnown: schema,
		},
		{
			name: "B-021 team In[a] vs In[b]", target: poolTeamA,
			incoming: requirements.NewRequirements(requirements.In(team, "b")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: team, Target: requirements.In(team, "a"), Incoming: requirements.In(team, "b")},
		},
		{
			name: "B-022 DoesNotExist vs NotIn", target: requirements.NewRequirements(requirements.DoesNotExist(zone)),
			incoming: requirements.NewRequirements(requirements.NotIn(zone, "A")), wellKnown: schema,
		},
		{
			name: "B-022 DoesNotExist vs Exists", target: requirements.NewRequirements(requirements.DoesNotExist(zone)),
			incoming: requirements.NewRequirements(requirements.Exists(zone)), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: zone, Target: requirements.DoesNotExist(zone), Incoming: requirements.Exists(zone)},
		},
		{
			name: "B-022 Exists vs DoesNotExist", target: requirements.NewRequirements(requirements.Exists(zone)),
			incoming: requirements.NewRequirements(requirements.DoesNotExist(zone)), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: zone, Target: requirements.Exists(zone), Incoming: requirements.DoesNotExist(zone)},
		},
		{
			name: "B-023 strict: missing well-known key, In", target: requirements.NewRequirements(requirements.In(zone, "z1")),
			incoming: requirements.NewRequirements(requirements.In(ct, "spot")),
			want:     &requirements.IncompatibleError{Key: ct, Target: requirements.DoesNotExist(ct), Incoming: requirements.In(ct, "spot"), Undefined: true},
		},
		{
			name: "B-023 strict: missing key, Exists", target: requirements.Requirements{},
			incoming: requirements.NewRequirements(requirements.Exists(zone)),
			want:     &requirements.IncompatibleError{Key: zone, Target: requirements.DoesNotExist(zone), Incoming: requirements.Exists(zone), Undefined: true},
		},
		{
			name: "B-023 strict: missing key, Lt", target: requirements.Requirements{},
			incoming: requirements.NewRequirements(mustNew(t, "cpu", requirements.OpLt, "4")),
			want:     &requirements.IncompatibleError{Key: "cpu", Target: requirements.DoesNotExist("cpu"), Incoming: mustNew(t, "cpu", requirements.OpLt, "4"), Undefined: true},
		},
		{
			name: "B-023 strict: missing key, NotIn", target: requirements.Requirements{},
			incoming: requirements.NewRequirements(requirements.NotIn(ct, "spot")),
		},
		{
			name: "B-023 strict: missing key, DoesNotExist", target: requirements.Requirements{},
			incoming: requirements.NewRequirements(requirements.DoesNotExist(ct)),
		},
		{
			name: "B-024 zone In[z1] vs z2", target: requirements.NewRequirements(requirements.In(zone, "z1")),
			incoming: requirements.NewRequirements(requirements.In(zone, "z2")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: zone, Target: requirements.In(zone, "z1"), Incoming: requirements.In(zone, "z2")},
		},
		{
			name: "B-026 In[non-existent]∩Exists stays In[non-existent]", target: requirements.NewRequirements(requirements.In(zone, "z1", "z2")),
			incoming: requirements.NewRequirements(requirements.In(zone, "non-existent"), requirements.Exists(zone)), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: zone, Target: requirements.In(zone, "z1", "z2"), Incoming: requirements.In(zone, "non-existent")},
		},
		{
			name: "B-027 In[z1,z2]∩NotIn[z2] allows z1", target: requirements.NewRequirements(requirements.In(zone, "z1")),
			incoming: requirements.NewRequirements(requirements.In(zone, "z1", "z2"), requirements.NotIn(zone, "z2")), wellKnown: schema,
		},
		{
			name: "B-027 In[z1,z2]∩In[z2] does not allow z1", target: requirements.NewRequirements(requirements.In(zone, "z1")),
			incoming: requirements.NewRequirements(requirements.In(zone, "z1", "z2"), requirements.In(zone, "z2")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: zone, Target: requirements.In(zone, "z1"), Incoming: requirements.In(zone, "z2")},
		},
		{
			name: "keys only the target defines are ignored", target: requirements.NewRequirements(requirements.In(team, "a"), requirements.In(zone, "z1")),
			incoming: requirements.Requirements{}, wellKnown: schema,
		},
		{
			name: "the first conflicting key in key order is reported", target: requirements.NewRequirements(requirements.In(arch, "amd64"), requirements.In(zone, "z1")),
			incoming: requirements.NewRequirements(requirements.In(zone, "z2"), requirements.In(arch, "arm64")), wellKnown: schema,
			want: &requirements.IncompatibleError{Key: arch, Target: requirements.In(arch, "amd64"), Incoming: requirements.In(arch, "arm64")},
		},
		{
			name: "a deprecated key is well-known through the schema", target: poolP,
			incoming: requirements.NewRequirements(requirements.In("beta.kubernetes.io/arch", "amd64")), wellKnown: schema,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.target.Compatible(tt.incoming, tt.wellKnown)
			var got *requirements.IncompatibleError
			if err != nil {
				require.ErrorAs(t, err, &got)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compatible() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompatibleHint covers B-025: an undefined key close to a well-known
// one names it in the error.
func TestCompatibleHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key      string
		wantHint string
	}{
		{key: "zone", wantHint: zone},
		{key: "region", wantHint: requirements.LabelTopologyRegion},
		{key: "arch", wantHint: arch},
		{key: "os", wantHint: requirements.LabelOS},
		{key: "nodepool", wantHint: requirements.LabelNodePool},
		{key: "capacity-type", wantHint: ct},
		{key: "instance-type", wantHint: requirements.LabelInstanceType},
		{key: "windows-build", wantHint: requirements.LabelWindowsBuild},
		{key: "topology.kubernetesio/zone", wantHint: zone},
		{key: "topology.kubernetes.io/regio", wantHint: requirements.LabelTopologyRegion},
		{key: "node.kubernetes.io/region", wantHint: requirements.LabelTopologyRegion},
		{key: "node.io/zone", wantHint: zone},
		{key: "karpenter/nodepool", wantHint: requirements.LabelNodePool},
		{key: "karpenter.sh/capacity-typ", wantHint: ct},
		{key: "kubernetes.io/arc", wantHint: arch},
		{key: "deployment"},
		{key: "team"},
		{key: "example.com/zone-id"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			err := requirements.Requirements{}.Compatible(requirements.NewRequirements(requirements.Exists(tt.key)), requirements.DefaultSchema())
			var got *requirements.IncompatibleError
			require.ErrorAs(t, err, &got)
			if diff := gocmp.Diff(tt.wantHint, got.Hint); diff != "" {
				t.Errorf("Hint mismatch (-want +got):\n%s", diff)
			}
			want := `label "` + tt.key + `" does not have known values (` + tt.key + ` Exists); a custom label must be declared by the NodePool`
			if tt.wantHint != "" {
				want += ` (typo of "` + tt.wantHint + `"?)`
			}
			if diff := gocmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompatibleStrictHasNoHint: a nil WellKnown knows no keys, so it cannot
// hint either.
func TestCompatibleStrictHasNoHint(t *testing.T) {
	t.Parallel()
	err := requirements.Requirements{}.Compatible(requirements.NewRequirements(requirements.Exists("zone")), nil)
	var got *requirements.IncompatibleError
	require.ErrorAs(t, err, &got)
	if diff := gocmp.Diff("", got.Hint); diff != "" {
		t.Errorf("Hint mismatch (-want +got):\n%s", diff)
	}
}

func TestIncompatibleErrorMessage(t *testing.T) {
	t.Parallel()
	err := requirements.NewRequirements(requirements.In(zone, "z1")).Compatible(requirements.NewRequirements(requirements.In(zone, "z2")), requirements.DefaultSchema())
	want := "incompatible requirements, key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [z2] not in topology.kubernetes.io/zone In [z1]"
	if diff := gocmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("Error() mismatch (-want +got):\n%s", diff)
	}
}

// TestRequirementsIntersects covers B-028: only keys both sides define count.
func TestRequirementsIntersects(t *testing.T) {
	t.Parallel()
	instanceType := requirements.NewRequirements(
		requirements.In(arch, "amd64"),
		requirements.In(zone, "z1", "z2"),
		requirements.DoesNotExist("gpu"),
	)
	tests := []struct {
		name  string
		other requirements.Requirements
		want  *requirements.IncompatibleError
	}{
		{name: "B-028 custom key only on the NodeClaim", other: requirements.NewRequirements(requirements.In(team, "a"), requirements.In(arch, "amd64"))},
		{name: "nothing shared", other: requirements.NewRequirements(requirements.Exists(team))},
		{name: "empty set", other: requirements.Requirements{}},
		{name: "shared zone", other: requirements.NewRequirements(requirements.In(zone, "z2", "z3"))},
		{name: "NotIn meets DoesNotExist", other: requirements.NewRequirements(requirements.NotIn("gpu", "a100"))},
		{
			name:  "arch conflicts",
			other: requirements.NewRequirements(requirements.In(arch, "arm64"), requirements.In(team, "a")),
			want:  &requirements.IncompatibleError{Key: arch, Target: requirements.In(arch, "amd64"), Incoming: requirements.In(arch, "arm64")},
		},
		{
			name:  "gpu Exists conflicts with DoesNotExist",
			other: requirements.NewRequirements(requirements.Exists("gpu")),
			want:  &requirements.IncompatibleError{Key: "gpu", Target: requirements.DoesNotExist("gpu"), Incoming: requirements.Exists("gpu")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *requirements.IncompatibleError
			if err := instanceType.Intersects(tt.other); err != nil {
				require.ErrorAs(t, err, &got)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Intersects() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirementsIntersect(t *testing.T) {
	t.Parallel()
	a := requirements.NewRequirements(requirements.In(zone, "z1", "z2"), requirements.In(arch, "amd64"))
	b := requirements.NewRequirements(requirements.In(zone, "z2", "z3"), requirements.Exists(team))
	tests := []struct {
		name string
		x, y requirements.Requirements
		want string
	}{
		{name: "merge", x: a, y: b, want: "kubernetes.io/arch In [amd64], team Exists, topology.kubernetes.io/zone In [z2]"},
		{name: "merge reversed", x: b, y: a, want: "kubernetes.io/arch In [amd64], team Exists, topology.kubernetes.io/zone In [z2]"},
		{name: "empty right", x: a, y: requirements.Requirements{}, want: "kubernetes.io/arch In [amd64], topology.kubernetes.io/zone In [z1 z2]"},
		{name: "empty left", x: requirements.Requirements{}, y: b, want: "team Exists, topology.kubernetes.io/zone In [z2 z3]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.x.Intersect(tt.y)
			if diff := gocmp.Diff(tt.want, got.String()); diff != "" {
				t.Errorf("Intersect() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirementsAddIntersectsSameKey(t *testing.T) {
	t.Parallel()
	base := requirements.NewRequirements(requirements.In(zone, "z1", "z2"))
	got := base.Add(requirements.NotIn(zone, "z2"), requirements.In(team, "a"))
	if diff := gocmp.Diff("team In [a], topology.kubernetes.io/zone In [z1]", got.String()); diff != "" {
		t.Errorf("Add() mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff("topology.kubernetes.io/zone In [z1 z2]", base.String()); diff != "" {
		t.Errorf("Add() changed its receiver (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(requirements.Any("missing"), got.Get("missing")); diff != "" {
		t.Errorf("Get(undefined) mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]bool{true, false}, []bool{got.Has(team), got.Has("missing")}); diff != "" {
		t.Errorf("Has() mismatch (-want +got):\n%s", diff)
	}
}

func TestRequirementsKeysWithoutAll(t *testing.T) {
	t.Parallel()
	rs := requirements.NewRequirements(requirements.In("c", "1"), requirements.In("a", "1"), requirements.Exists("b"), requirements.DoesNotExist("d"))
	if diff := gocmp.Diff([]string{"a", "b", "c", "d"}, rs.Keys()); diff != "" {
		t.Errorf("Keys() mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(4, rs.Len()); diff != "" {
		t.Errorf("Len() mismatch (-want +got):\n%s", diff)
	}
	without := rs.Without("b", "d", "missing")
	if diff := gocmp.Diff([]string{"a", "c"}, without.Keys()); diff != "" {
		t.Errorf("Without() mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"a", "b", "c", "d"}, rs.Keys()); diff != "" {
		t.Errorf("Without() changed its receiver (-want +got):\n%s", diff)
	}
	var keys []string
	for r := range rs.All() {
		keys = append(keys, r.Key())
		if r.Key() == "b" {
			break
		}
	}
	if diff := gocmp.Diff([]string{"a", "b"}, keys); diff != "" {
		t.Errorf("All() with break mismatch (-want +got):\n%s", diff)
	}
}

func TestRequirementsEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rs        requirements.Requirements
		wantKey   string
		wantEmpty bool
	}{
		{name: "none", rs: requirements.NewRequirements(requirements.In("a", "1"), requirements.DoesNotExist("b"))},
		{name: "zero value", rs: requirements.Requirements{}},
		{name: "first empty key", rs: requirements.NewRequirements(requirements.In("a", "1"), requirements.In("b", "1"), requirements.In("b", "2"), requirements.In("c")), wantKey: "b", wantEmpty: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			key, empty := tt.rs.Empty()
			if diff := gocmp.Diff([]any{tt.wantKey, tt.wantEmpty}, []any{key, empty}); diff != "" {
				t.Errorf("Empty() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirementsLabels(t *testing.T) {
	t.Parallel()
	rs := requirements.NewRequirements(
		requirements.In(arch, "amd64"),
		requirements.In(zone, "z1", "z2"),
		requirements.In(team, "a", "b").Intersect(requirements.NotIn(team, "b")),
		requirements.Exists("exists"),
		requirements.DoesNotExist("gone"),
		requirements.NotIn("not", "x"),
		mustNew(t, "cpu", requirements.OpGte, "4").Intersect(mustNew(t, "cpu", requirements.OpLte, "4")),
		requirements.In("empty"),
	)
	want := map[string]string{arch: "amd64", team: "a"}
	if diff := gocmp.Diff(want, rs.Labels()); diff != "" {
		t.Errorf("Labels() mismatch (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(map[string]string{}, requirements.Requirements{}.Labels()); diff != "" {
		t.Errorf("Labels() of the zero value mismatch (-want +got):\n%s", diff)
	}
}

func TestRequirementsMatches(t *testing.T) {
	t.Parallel()
	rs := requirements.NewRequirements(
		requirements.In(zone, "z1", "z2"),
		requirements.NotIn(team, "b"),
		requirements.DoesNotExist("gpu"),
		mustNew(t, "cpu", requirements.OpGt, "2"),
	)
	tests := []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{name: "all satisfied", labels: map[string]string{zone: "z1", "cpu": "4"}, want: true},
		{name: "all satisfied, team a", labels: map[string]string{zone: "z2", "cpu": "04", team: "a", "other": "x"}, want: true},
		{name: "zone missing", labels: map[string]string{"cpu": "4"}},
		{name: "zone outside", labels: map[string]string{zone: "z3", "cpu": "4"}},
		{name: "team excluded", labels: map[string]string{zone: "z1", "cpu": "4", team: "b"}},
		{name: "gpu present", labels: map[string]string{zone: "z1", "cpu": "4", "gpu": ""}},
		{name: "cpu too small", labels: map[string]string{zone: "z1", "cpu": "2"}},
		{name: "cpu not an integer", labels: map[string]string{zone: "z1", "cpu": "4.0"}},
		{name: "nil labels", labels: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, rs.Matches(tt.labels)); diff != "" {
				t.Errorf("Matches() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if !(requirements.Requirements{}).Matches(nil) {
		t.Errorf("the zero Requirements must match every node")
	}
}

func TestRequirementsString(t *testing.T) {
	t.Parallel()
	rs := requirements.NewRequirements(
		requirements.In(requirements.LabelHostname, "node-1"),
		requirements.NotIn("notIn12", "1", "2"),
		requirements.In("inAB", "A", "B"),
		requirements.Exists("exists"),
		requirements.DoesNotExist("doesNotExist"),
		mustNew(t, "greaterThan1", requirements.OpGt, "1"),
		requirements.In("many", "1", "2", "3", "4", "5", "6", "7"),
	)
	want := "doesNotExist DoesNotExist, exists Exists, greaterThan1 Exists >=2, inAB In [A B], " +
		"many In [1 2 3 4 5 and 2 others], notIn12 NotIn [1 2]"
	if diff := gocmp.Diff(want, rs.String()); diff != "" {
		t.Errorf("String() mismatch (-want +got):\n%s", diff)
	}
}

func TestRequirementsExpressionsRoundTrip(t *testing.T) {
	t.Parallel()
	rs := requirements.NewRequirements(
		requirements.In(zone, "z1", "z2").WithMinValues(2),
		requirements.NotIn(team, "b"),
		requirements.DoesNotExist("gpu"),
		requirements.Exists("e"),
		requirements.In("empty"),
		requirements.Any("any"),
		mustNew(t, "cpu", requirements.OpGt, "2").Intersect(mustNew(t, "cpu", requirements.OpLt, "64")).Intersect(requirements.NotIn("cpu", "8")),
	)
	exprs := rs.Expressions()
	var reqs []requirements.Requirement
	for _, e := range exprs {
		reqs = append(reqs, mustNew(t, e.Key, e.Operator, e.Values...).WithMinValues(e.MinValues))
	}
	got := requirements.NewRequirements(reqs...)
	// Any renders as no expression, so its key does not come back.
	want := rs.Without("any")
	if !got.Equal(want) {
		t.Errorf("round trip = %v, want %v", got, want)
	}
	var keys []string
	for _, e := range exprs {
		keys = append(keys, e.Key)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("Expressions() keys not in key order: %v", keys)
	}
}

func TestRequirementsFingerprint(t *testing.T) {
	t.Parallel()
	sets := map[string]requirements.Requirements{
		"empty":                   {},
		"a In [x]":                requirements.NewRequirements(requirements.In("a", "x")),
		"a In [x] again":          requirements.NewRequirements(requirements.In("a", "x", "x")),
		"a In [x] minValues 1":    requirements.NewRequirements(requirements.In("a", "x").WithMinValues(1)),
		"a NotIn [x]":             requirements.NewRequirements(requirements.NotIn("a", "x")),
		"a Exists NotIn [x]":      requirements.NewRequirements(requirements.NotIn("a", "x"), requirements.Exists("a")),
		"a Exists":                requirements.NewRequirements(requirements.Exists("a")),
		"a Any":                   requirements.NewRequirements(requirements.Any("a")),
		"a DoesNotExist":          requirements.NewRequirements(requirements.DoesNotExist("a")),
		"a empty":                 requirements.NewRequirements(requirements.In("a")),
		"a Gt 1":                  requirements.NewRequirements(mustNew(t, "a", requirements.OpGt, "1")),
		"a Gte 2":                 requirements.NewRequirements(mustNew(t, "a", requirements.OpGte, "2")),
		"a Lte 2":                 requirements.NewRequirements(mustNew(t, "a", requirements.OpLte, "2")),
		"a In [x y]":              requirements.NewRequirements(requirements.In("a", "x", "y")),
		"a In [x\\x00y]":          requirements.NewRequirements(requirements.In("a", "x\x00y")),
		"a In [x\\x001:y]":        requirements.NewRequirements(requirements.In("a", "x\x001:y")),
		"a In [x], b In [y]":      requirements.NewRequirements(requirements.In("a", "x"), requirements.In("b", "y")),
		"a\\x00 In [x]":           requirements.NewRequirements(requirements.In("a\x00", "x")),
		"a In [x;1:b0], no b key": requirements.NewRequirements(requirements.In("a", "x;1:b0")),
	}
	names := slices.Sorted(maps.Keys(sets))
	for _, x := range names {
		for _, y := range names {
			equal := sets[x].Equal(sets[y])
			sameFingerprint := sets[x].Fingerprint() == sets[y].Fingerprint()
			if equal != sameFingerprint {
				t.Errorf("%s vs %s: Equal = %v but same Fingerprint = %v", x, y, equal, sameFingerprint)
			}
		}
	}
	require.True(t, sets["a In [x]"].Equal(sets["a In [x] again"]), "precondition: at least one pair is Equal")
	require.True(t, sets["a Gt 1"].Equal(sets["a Gte 2"]), "precondition: Gt canonicalises")
}

// TestRequirementsZeroValue: the zero value has no requirement and is
// satisfied by every node.
func TestRequirementsZeroValue(t *testing.T) {
	t.Parallel()
	var rs requirements.Requirements
	got := []any{rs.Len(), len(rs.Keys()), rs.String(), rs.Fingerprint(), rs.Expressions() == nil, rs.Matches(map[string]string{"a": "b"})}
	want := []any{0, 0, "", "", true, true}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("zero Requirements mismatch (-want +got):\n%s", diff)
	}
	if err := rs.Compatible(requirements.NewRequirements(requirements.NotIn("a", "b")), nil); err != nil {
		t.Errorf("Compatible() = %v, want nil", err)
	}
}

// TestIncompatibleErrorIsTyped: callers branch on the error with errors.As
// even after it is wrapped.
func TestIncompatibleErrorIsTyped(t *testing.T) {
	t.Parallel()
	err := requirements.NewRequirements(requirements.In(zone, "z1")).Compatible(requirements.NewRequirements(requirements.In(zone, "z2")), nil)
	wrapped := errors.Join(errors.New("pod default/web"), err)
	var got *requirements.IncompatibleError
	require.ErrorAs(t, wrapped, &got)
	if diff := gocmp.Diff(zone, got.Key); diff != "" {
		t.Errorf("Key mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(wrapped.Error(), "incompatible requirements") {
		t.Errorf("wrapped error lost the message: %q", wrapped.Error())
	}
}
