package requirements_test

import (
	"math"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/requirements"
)

// fuzzValues are the values fuzzed requirements and probes draw from: words,
// the empty value, integers in canonical and other spellings that
// strconv.ParseInt accepts, and the int64 extremes.
func fuzzValues() []string {
	return []string{"a", "b", "", "-1", "0", "1", "2", "5", "9", "10", "01", "+2", "-0", "9223372036854775807", "-9223372036854775808"}
}

// fuzzIntegers are the arguments of Gt, Lt, Gte and Lte.
func fuzzIntegers() []string {
	return []string{"-1", "0", "1", "2", "5", "9", "10", "01", "+2", "9223372036854775807", "-9223372036854775808"}
}

// decodeRequirement builds a requirement on key "k" from fuzz bytes: up to
// four chunks, each an operator byte, a meta byte (value count and
// minValues) and its value bytes, intersected together from Any. Operator
// bytes 8 and 9 (mod 10) stand for the empty set and Any. Bytes that do not
// make a whole chunk are ignored, so every input decodes.
func decodeRequirement(t testing.TB, data []byte) requirements.Requirement {
	t.Helper()
	values, integers, ops := fuzzValues(), fuzzIntegers(), requirements.Operators()
	out := requirements.Any("k")
	for chunk := 0; chunk < 4 && len(data) >= 2; chunk++ {
		opByte, meta := data[0], int(data[1])
		data = data[2:]
		var r requirements.Requirement
		switch op := int(opByte) % 10; {
		case op == 8:
			r = requirements.In("k")
		case op == 9:
			r = requirements.Any("k")
		case ops[op] == requirements.OpIn || ops[op] == requirements.OpNotIn:
			n := meta%3 + 1
			if len(data) < n {
				return out
			}
			var vs []string
			for _, b := range data[:n] {
				vs = append(vs, values[int(b)%len(values)])
			}
			data = data[n:]
			r = mustNew(t, "k", ops[op], vs...)
		case ops[op] == requirements.OpExists || ops[op] == requirements.OpDoesNotExist:
			r = mustNew(t, "k", ops[op])
		default:
			if len(data) < 1 {
				return out
			}
			r = mustNew(t, "k", ops[op], integers[int(data[0])%len(integers)])
			data = data[1:]
		}
		out = out.Intersect(r.WithMinValues(meta / 3 % 4))
	}
	return out
}

// probes are values worth asking Has about: the fuzz values, every value the
// requirements list, and the neighbours and zero-padded spellings of their
// bounds.
func probes(rs ...requirements.Requirement) []string {
	out := fuzzValues()
	for _, r := range rs {
		out = append(out, r.Values()...)
		lo, hasLo, hi, hasHi := r.Bounds()
		for _, b := range []struct {
			n   int64
			has bool
		}{{lo, hasLo}, {hi, hasHi}} {
			if !b.has {
				continue
			}
			for _, n := range []int64{b.n - 1, b.n, b.n + 1} { // wraps at the extremes: still a probe
				s := strconv.FormatInt(n, 10)
				out = append(out, s, "0"+s, "+"+s)
			}
		}
		if v, ok := r.Pick(7); ok {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FuzzRequirementLaws checks the laws in Requirement.Intersect's doc comment
// and the ones the rest of the package builds on:
//
//   - Intersect is commutative, associative and idempotent, and Any is its
//     identity (all requirements share key "k", so Equal compares sets and
//     minValues);
//   - x∩y has a value (or absence) exactly when x and y both have it;
//   - Intersects(x, y) == !(x∩y).IsEmpty(), and Requirements.Compatible and
//     Requirements.Intersects agree with it;
//   - IsEmpty holds exactly when neither a value nor absence is possible, and
//     Pick finds a value exactly when one exists;
//   - Expressions round-trips through New and Intersect;
//   - equal Fingerprints mean Equal requirements.
func FuzzRequirementLaws(f *testing.F) {
	f.Add([]byte{0, 2, 0, 1, 2}, []byte{1, 0, 0}, []byte{4, 0, 2}, uint64(0))           // In[a,b,""] / NotIn[a] / Gt 1
	f.Add([]byte{6, 0, 3, 7, 0, 3}, []byte{1, 0, 6}, []byte{9, 0}, uint64(1))           // Gte2∩Lte2 / NotIn[2] / Any
	f.Add([]byte{4, 0, 9}, []byte{0, 2, 10, 4, 5}, []byte{5, 0, 1}, uint64(42))         // Gt MaxInt64 / In[01,0,1] / Lt 0
	f.Add([]byte{3, 0}, []byte{8, 0}, []byte{1, 1, 3, 4}, uint64(7))                    // DoesNotExist / empty / NotIn[-1,0]
	f.Add([]byte{2, 9, 1, 0, 0}, []byte{7, 0, 10}, []byte{9, 6}, uint64(1_000_000_003)) // Exists mv3∩NotIn[a] / Lte MinInt64 / Any mv2
	f.Fuzz(func(t *testing.T, a, b, c []byte, seed uint64) {
		x, y, z := decodeRequirement(t, a), decodeRequirement(t, b), decodeRequirement(t, c)
		anyReq := requirements.Any("k")
		xy := x.Intersect(y)

		if yx := y.Intersect(x); !xy.Equal(yx) {
			t.Errorf("not commutative: %v ∩ %v = %v, reversed %v", x, y, xy, yx)
		}
		if l, r := xy.Intersect(z), x.Intersect(y.Intersect(z)); !l.Equal(r) {
			t.Errorf("not associative: (%v ∩ %v) ∩ %v = %v, other way %v", x, y, z, l, r)
		}
		if xx := x.Intersect(x); !xx.Equal(x) {
			t.Errorf("not idempotent: %v ∩ itself = %v", x, xx)
		}
		if l, r := x.Intersect(anyReq), anyReq.Intersect(x); !l.Equal(x) || !r.Equal(x) {
			t.Errorf("Any is not the identity: %v ∩ Any = %v, Any ∩ it = %v", x, l, r)
		}
		if got, want := xy.MinValues(), max(x.MinValues(), y.MinValues()); got != want {
			t.Errorf("minValues of %v ∩ %v = %d, want %d", x, y, got, want)
		}

		for _, v := range probes(x, y, z, xy) {
			if got, want := xy.Matches(v, true), x.Matches(v, true) && y.Matches(v, true); got != want {
				t.Errorf("(%v ∩ %v).Matches(%q) = %v, want %v", x, y, v, got, want)
			}
			if xy.IsEmpty() && xy.Has(v) {
				t.Errorf("empty %v has %q", xy, v)
			}
		}
		if got, want := xy.Matches("", false), x.Matches("", false) && y.Matches("", false); got != want {
			t.Errorf("(%v ∩ %v) allows absence = %v, want %v", x, y, got, want)
		}

		if got, want := x.Intersects(y), !xy.IsEmpty(); got != want {
			t.Errorf("%v.Intersects(%v) = %v, but the intersection %v is empty = %v", x, y, got, xy, !want)
		}
		checkCompatible(t, x, y, z)
		checkEmptyAndPick(t, xy, seed)
		checkEmptyAndPick(t, x, seed)
		checkExpressions(t, x)
		checkExpressions(t, xy)

		sameFingerprint := requirements.NewRequirements(x).Fingerprint() == requirements.NewRequirements(y).Fingerprint()
		if sameFingerprint != x.Equal(y) {
			t.Errorf("%v and %v: same Fingerprint = %v, Equal = %v", x, y, sameFingerprint, x.Equal(y))
		}
		_ = xy.String()
	})
}

// checkCompatible: Requirements.Compatible and Requirements.Intersects decide
// what Requirement.Intersects decides, key by key, and an undefined target
// key reads as DoesNotExist (strict, custom) or Any (well-known).
func checkCompatible(t *testing.T, x, y, z requirements.Requirement) {
	t.Helper()
	target := requirements.NewRequirements(x, z.WithKey("k2"))
	incoming := requirements.NewRequirements(y, x.WithKey("k2"))
	want := x.Intersects(y) && z.Intersects(x)
	if got := target.Compatible(incoming, nil) == nil; got != want {
		t.Errorf("[%v] Compatible [%v] = %v, want %v", target, incoming, got, want)
	}
	if got := target.Intersects(incoming) == nil; got != want {
		t.Errorf("[%v] Intersects [%v] = %v, want %v", target, incoming, got, want)
	}
	onlyIncoming := requirements.NewRequirements(y.WithKey("k3"))
	if got, want := target.Compatible(onlyIncoming, nil) == nil, y.AllowsAbsent(); got != want {
		t.Errorf("strict: [%v] Compatible [%v] = %v, want %v", target, onlyIncoming, got, want)
	}
	if got := target.Intersects(onlyIncoming); got != nil {
		t.Errorf("[%v] Intersects [%v] on no shared key = %v, want nil", target, onlyIncoming, got)
	}
	wellKnown := requirements.NewRequirements(y.WithKey(requirements.LabelTopologyZone))
	if got, want := target.Compatible(wellKnown, requirements.DefaultSchema()) == nil, !y.IsEmpty(); got != want {
		t.Errorf("well-known: [%v] Compatible [%v] = %v, want %v", target, wellKnown, got, want)
	}
}

func checkEmptyAndPick(t *testing.T, r requirements.Requirement, seed uint64) {
	t.Helper()
	v, ok := r.Pick(seed)
	if ok && !r.Has(v) {
		t.Errorf("%v.Pick(%d) = %q, which it does not have", r, seed, v)
	}
	if again, againOK := r.Pick(seed); again != v || againOK != ok {
		t.Errorf("%v.Pick(%d) not deterministic: %q,%v then %q,%v", r, seed, v, ok, again, againOK)
	}
	hasValue := !(r.IsFinite() && len(r.Values()) == 0)
	if ok != hasValue {
		t.Errorf("%v.Pick(%d) ok = %v, want %v", r, seed, ok, hasValue)
	}
	if got, want := r.IsEmpty(), !ok && !r.AllowsAbsent(); got != want {
		t.Errorf("%v.IsEmpty() = %v, but Pick ok = %v and AllowsAbsent = %v", r, got, ok, r.AllowsAbsent())
	}
	if r.IsFinite() && r.Len() != len(r.Values()) {
		t.Errorf("%v.Len() = %d, want %d", r, r.Len(), len(r.Values()))
	}
	if r.Len() < 0 {
		t.Errorf("%v.Len() = %d < 0", r, r.Len())
	}
}

// checkExpressions: the expressions of r, rebuilt with New and Intersect,
// give r back. Any has no expressions, so minValues on Any cannot survive.
func checkExpressions(t *testing.T, r requirements.Requirement) {
	t.Helper()
	want := r
	if r.IsAny() {
		want = r.WithMinValues(0)
	}
	if got := rebuild(t, "k", r.Expressions()); !got.Equal(want) {
		t.Errorf("%v: rebuilt from %+v = %v", r, r.Expressions(), got)
	}
}

// FuzzMatchesNodeAffinity is the differential check against Kubernetes:
// for In, NotIn, Exists, DoesNotExist, Gt and Lt, Requirements built by
// FromNodeSelectorRequirements accept exactly the selectors
// nodeaffinity.NewNodeSelector accepts, and match exactly the nodes it
// matches.
func FuzzMatchesNodeAffinity(f *testing.F) {
	f.Add([]byte{4, 0, 2}, byte(6), byte(255))          // a Gt 0; a=01
	f.Add([]byte{5, 1, 3, 1, 1, 0}, byte(255), byte(6)) // b Lt 1, b NotIn [x]; b=01
	f.Add([]byte{2, 0, 0, 3, 1, 0}, byte(0), byte(255)) // a Exists, b DoesNotExist; a=x
	f.Add([]byte{4, 0, 7}, byte(2), byte(255))          // a Gt -1: invalid for both
	f.Add([]byte{4, 0, 0}, byte(2), byte(255))          // a Gt x: invalid for both
	f.Add([]byte{5, 0, 2}, byte(0), byte(255))          // a Lt 0; a=x: no match
	f.Add([]byte{0, 0, 130}, byte(3), byte(255))        // a In [9223372036854775807 2]; a=1
	f.Fuzz(func(t *testing.T, data []byte, labelA, labelB byte) {
		keys := []string{"a", "example.com/b"}
		values := []string{"x", "y", "0", "1", "2", "5", "01", "-1", "10", "", "9223372036854775807", "x y"}
		ops := []corev1.NodeSelectorOperator{
			corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists,
			corev1.NodeSelectorOpDoesNotExist, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt,
		}
		// Each expression is three bytes: operator, key, and a value index
		// whose high bits add a second value to In and NotIn.
		var exprs []corev1.NodeSelectorRequirement
		for ; len(data) >= 3 && len(exprs) < 4; data = data[3:] {
			e := corev1.NodeSelectorRequirement{Operator: ops[int(data[0])%len(ops)], Key: keys[int(data[1])%len(keys)]}
			switch e.Operator {
			case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
				e.Values = []string{values[int(data[2])%len(values)]}
				if data[2] >= 128 {
					e.Values = append(e.Values, values[int(data[2]/8)%len(values)])
				}
			case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
				e.Values = []string{values[int(data[2])%len(values)]}
			}
			exprs = append(exprs, e)
		}
		if len(exprs) == 0 {
			return // an empty term matches nothing in Kubernetes; an empty set matches everything here
		}
		labels := map[string]string{}
		for i, b := range []byte{labelA, labelB} {
			if int(b) < len(values) {
				labels[keys[i]] = values[b]
			}
		}

		selector, kErr := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}})
		ours, err := requirements.DefaultSchema().FromNodeSelectorRequirements(nil, exprs)
		if (kErr == nil) != (err == nil) {
			t.Fatalf("%+v: Kubernetes error %v, ours %v", exprs, kErr, err)
		}
		if kErr != nil {
			return
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels}}
		if got, want := ours.Matches(labels), selector.Match(node); got != want {
			t.Errorf("%+v on labels %v: Matches = %v, nodeaffinity = %v (ours: %v)", exprs, labels, got, want, ours)
		}
	})
}

// FuzzNewNeverPanics feeds arbitrary strings to every constructor and parser.
// None may panic; Has on "Gte MinInt64" must accept exactly what
// strconv.ParseInt(v, 10, 64) accepts (the package parses integers itself, to
// avoid allocating); and a valid expression must build.
func FuzzNewNeverPanics(f *testing.F) {
	f.Add("topology.kubernetes.io/zone", "In", "us-east-1a", "us-east-1b", 1)
	f.Add("cpu", "Gt", "-9223372036854775808", "", 0)
	f.Add("k", "Lte", "+0009", "9223372036854775808", 51)
	f.Add("karpenter.sh/x", "NotIn", "", "\x00", -1)
	f.Add("", "", "", "", 0)
	f.Fuzz(func(t *testing.T, key, op, v1, v2 string, minValues int) {
		s := requirements.DefaultSchema()
		for _, values := range [][]string{nil, {v1}, {v1, v2}} {
			r, err := requirements.New(key, requirements.Operator(op), values...)
			if err == nil {
				_, _ = r.String(), r.Expressions()
				_, _ = r.Pick(uint64(minValues))
				_, _, _ = r.Has(v1), r.Len(), r.Operator()
				_ = requirements.NewRequirements(r).Fingerprint()
			}
			if errs := s.ValidateExpression(nil, key, requirements.Operator(op), values, nil); len(errs) == 0 && err != nil {
				t.Errorf("ValidateExpression(%q %q %q) passed but New failed: %v", key, op, values, err)
			}
			_, _ = s.Parse(key, requirements.Operator(op), values, minValues)
			exprs := []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: values}}
			_, _ = s.FromNodeSelectorRequirements(nil, exprs)
			_, _ = s.ForPod(map[string]string{key: v1, v2: v1}, &corev1.NodeSelectorTerm{MatchExpressions: exprs})
		}
		_, _, _ = s.Hint(key), s.IsRestricted(key), s.Normalize(key)
		_ = s.FromLabels(map[string]string{key: v1})

		all := mustNew(t, "k", requirements.OpGte, strconv.FormatInt(math.MinInt64, 10))
		_, parseErr := strconv.ParseInt(v1, 10, 64)
		if got, want := all.Has(v1), parseErr == nil; got != want {
			t.Errorf("Gte MinInt64 Has(%q) = %v, strconv.ParseInt accepts = %v", v1, got, want)
		}
	})
}
