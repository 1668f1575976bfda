package requirements

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Operator is a requirement operator, as written in node selectors and NodePools.
type Operator string

// The operators of Kubernetes node selectors, plus Karpenter's inclusive bounds.
const (
	OpIn           Operator = "In"
	OpNotIn        Operator = "NotIn"
	OpExists       Operator = "Exists"
	OpDoesNotExist Operator = "DoesNotExist"
	OpGt           Operator = "Gt"
	OpLt           Operator = "Lt"
	OpGte          Operator = "Gte"
	OpLte          Operator = "Lte"
)

// Operators lists every operator, in a fixed order.
func Operators() []Operator {
	return []Operator{OpIn, OpNotIn, OpExists, OpDoesNotExist, OpGt, OpLt, OpGte, OpLte}
}

// Requirement is the set of states one label key may take: a set of values,
// and whether the label may be absent altogether.
//
// Representation (canonical, so equal meaning gives equal fields):
//   - finite: values lists the allowed values; otherwise values lists the
//     excluded values and every other value is allowed, subject to bounds.
//   - present: the label must exist. When false, "absent" is in the set.
//   - bounds (only when !finite): allowed values must parse as base-10 int64
//     within [lower, upper]. Excluded values outside the bounds are dropped.
//   - a finite set never carries bounds: they are applied to its values.
//
// The zero Requirement allows everything, including absence: it is the
// identity of [Requirement.Intersect] and what an undefined key reads as.
//
// Requirement is an immutable value; its values slice is shared between
// copies and never written after construction.
type Requirement struct {
	key       string
	finite    bool
	present   bool
	values    []string
	hasLower  bool
	hasUpper  bool
	lower     int64
	upper     int64
	minValues int
}

// New builds a requirement from an operator and its values, as a node selector
// would. Values are copied, sorted and de-duplicated. It returns an error for
// an unknown operator, Gt/Lt/Gte/Lte without exactly one integer value, In or
// NotIn without values, and Exists/DoesNotExist with values.
func New(key string, op Operator, values ...string) (Requirement, error) {
	r := Requirement{key: key}
	switch op {
	case OpIn:
		if len(values) == 0 {
			return r, fmt.Errorf("key %q: operator In needs at least one value", key)
		}
		r.finite, r.present, r.values = true, true, sortedUnique(values)
	case OpNotIn:
		if len(values) == 0 {
			return r, fmt.Errorf("key %q: operator NotIn needs at least one value", key)
		}
		r.values = sortedUnique(values)
	case OpExists, OpDoesNotExist:
		if len(values) != 0 {
			return r, fmt.Errorf("key %q: operator %s takes no values, got %d", key, op, len(values))
		}
		if op == OpExists {
			r.present = true
		} else {
			r.finite = true
		}
	case OpGt, OpLt, OpGte, OpLte:
		if len(values) != 1 {
			return r, fmt.Errorf("key %q: operator %s needs exactly one integer value, got %d values", key, op, len(values))
		}
		n, err := strconv.ParseInt(values[0], 10, 64)
		if err != nil {
			return r, fmt.Errorf("key %q: operator %s needs an integer value, got %q", key, op, values[0])
		}
		r.present = true
		switch op {
		case OpGt:
			if n == math.MaxInt64 {
				return empty(key), nil
			}
			r.hasLower, r.lower = true, n+1
		case OpGte:
			r.hasLower, r.lower = true, n
		case OpLt:
			if n == math.MinInt64 {
				return empty(key), nil
			}
			r.hasUpper, r.upper = true, n-1
		case OpLte:
			r.hasUpper, r.upper = true, n
		}
	default:
		return r, fmt.Errorf("key %q: unknown operator %q", key, op)
	}
	return r, nil
}

// In is New(key, OpIn, values...) for callers that hold values already known
// to be valid (labels of an object). With no values it is the empty set.
func In(key string, values ...string) Requirement {
	if len(values) == 0 {
		return empty(key)
	}
	return Requirement{key: key, finite: true, present: true, values: sortedUnique(values)}
}

// NotIn is every value except the given ones; the label may be absent.
func NotIn(key string, values ...string) Requirement {
	return Requirement{key: key, values: sortedUnique(values)}
}

// Exists is every value; the label must be present.
func Exists(key string) Requirement { return Requirement{key: key, present: true} }

// DoesNotExist allows only the absence of the label.
func DoesNotExist(key string) Requirement { return Requirement{key: key, finite: true} }

// Any is the unconstrained requirement for key: any value, or absent.
func Any(key string) Requirement { return Requirement{key: key} }

func empty(key string) Requirement { return Requirement{key: key, finite: true, present: true} }

func sortedUnique(values []string) []string {
	out := slices.Clone(values)
	for i := 1; i < len(out); i++ {
		if out[i-1] >= out[i] {
			slices.Sort(out)
			return slices.Compact(out)
		}
	}
	return out // already sorted and unique: the common case of a sorted list
}

// Key returns the label key.
func (r Requirement) Key() string { return r.key }

// MinValues returns the minimum number of distinct values that must remain
// possible for this key (0: no minimum).
func (r Requirement) MinValues() int { return r.minValues }

// WithMinValues returns a copy that carries minValues n (0 removes it).
func (r Requirement) WithMinValues(n int) Requirement {
	r.minValues = max(n, 0)
	return r
}

// WithKey returns a copy with another key (used to normalise aliases).
func (r Requirement) WithKey(key string) Requirement {
	r.key = key
	return r
}

// IsEmpty reports whether nothing satisfies the requirement: no value, and
// absence not allowed either.
func (r Requirement) IsEmpty() bool {
	if r.finite {
		return r.present && len(r.values) == 0
	}
	return false
}

// IsAny reports whether the requirement allows everything, absence included.
func (r Requirement) IsAny() bool {
	return !r.finite && !r.present && len(r.values) == 0 && !r.hasLower && !r.hasUpper
}

// AllowsAbsent reports whether a node without the label satisfies r.
func (r Requirement) AllowsAbsent() bool { return !r.present }

// ExcludesValues reports whether r is a complement that names values it
// excludes: what Karpenter calls NotIn whatever else r says (Exists, bounds).
func (r Requirement) ExcludesValues() bool { return !r.finite && len(r.values) > 0 }

// RequiresPresent reports whether the label must exist.
func (r Requirement) RequiresPresent() bool { return r.present }

// IsFinite reports whether the allowed values are an explicit list (In, or
// DoesNotExist, or empty); Values then returns them.
func (r Requirement) IsFinite() bool { return r.finite }

// Values returns the allowed values of a finite requirement, or the excluded
// values of a complement (NotIn) requirement. The slice must not be modified.
func (r Requirement) Values() []string { return r.values }

// Bounds returns the inclusive integer bounds, when set.
func (r Requirement) Bounds() (lower int64, hasLower bool, upper int64, hasUpper bool) {
	return r.lower, r.hasLower, r.upper, r.hasUpper
}

// Operator names the requirement the way Karpenter reports it. A bounded
// complement reports Gte or Lte (Gte when both bounds are set), an empty set
// reports DoesNotExist, and the unconstrained requirement reports Exists
// (an undefined key reads as Exists, as in Karpenter). Use IsEmpty/IsAny to
// tell those apart.
func (r Requirement) Operator() Operator {
	switch {
	case r.finite && len(r.values) > 0:
		return OpIn
	case r.finite:
		return OpDoesNotExist
	case r.hasLower:
		return OpGte
	case r.hasUpper:
		return OpLte
	case len(r.values) > 0:
		return OpNotIn
	default:
		return OpExists
	}
}

// Has reports whether a node whose label is value satisfies r.
func (r Requirement) Has(value string) bool {
	if r.finite {
		_, found := slices.BinarySearch(r.values, value)
		return found
	}
	if _, found := slices.BinarySearch(r.values, value); found {
		return false
	}
	return r.inBounds(value)
}

// Matches reports whether a node satisfies r, given the label's value and
// whether the node has the label at all.
func (r Requirement) Matches(value string, present bool) bool {
	if !present {
		return !r.present
	}
	return r.Has(value)
}

func (r Requirement) inBounds(value string) bool {
	if !r.hasLower && !r.hasUpper {
		return true
	}
	n, ok := parseInt(value)
	if !ok {
		return false
	}
	return (!r.hasLower || n >= r.lower) && (!r.hasUpper || n <= r.upper)
}

// parseInt is strconv.ParseInt(s, 10, 64) without building an error value:
// an optional sign, then decimal digits (leading zeros allowed, no
// underscores), within int64. Has and Intersects call it in the hot loop, where
// a failed strconv.ParseInt would allocate a *strconv.NumError.
func parseInt(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	const cutoff = uint64(1) << 63 // |math.MinInt64|
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > cutoff/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n > cutoff {
			return 0, false
		}
	}
	switch {
	case neg:
		return int64(-n), true // -(1<<63) wraps to math.MinInt64, as intended
	case n == cutoff:
		return 0, false
	default:
		return int64(n), true
	}
}

// Len returns the number of values allowed (absence not counted), or
// math.MaxInt when unbounded. A range with both bounds counts its integers in
// canonical decimal form ("7", not "07" or "+7"), less the excluded ones: Has
// also accepts the other spellings of an integer, as Kubernetes does, so such
// a range is never empty while lower <= upper, even when Len is 0.
func (r Requirement) Len() int {
	if r.finite {
		return len(r.values)
	}
	if r.hasLower && r.hasUpper {
		span := uint64(r.upper - r.lower) // two's complement: exact for upper >= lower
		if span >= math.MaxInt-1 {
			return math.MaxInt
		}
		excluded := 0
		for _, v := range r.values {
			if n, ok := parseInt(v); ok && strconv.FormatInt(n, 10) == v {
				excluded++ // values are unique and within the bounds
			}
		}
		return int(span) + 1 - excluded
	}
	return math.MaxInt
}

// Intersect returns the requirement satisfied by exactly the nodes that
// satisfy both r and o. The key is r's (o's when r has none); minValues is the
// larger of the two.
//
// Laws (fuzzed in requirement_fuzz_test.go): Intersect is commutative,
// associative and idempotent; Any is its identity; x.Intersect(y).Has(v) ==
// x.Has(v) && y.Has(v); the same holds for absence.
func (r Requirement) Intersect(o Requirement) Requirement {
	out := Requirement{key: r.key, present: r.present || o.present, minValues: max(r.minValues, o.minValues)}
	if out.key == "" {
		out.key = o.key
	}
	switch {
	case r.finite && o.finite:
		out.finite = true
		out.values = intersectSorted(r.values, o.values)
	case r.finite:
		out.finite = true
		out.values = filter(r.values, o.Has)
	case o.finite:
		out.finite = true
		out.values = filter(o.values, r.Has)
	default:
		out.values = unionSorted(r.values, o.values)
		out.hasLower, out.lower = r.hasLower || o.hasLower, maxBound(r.hasLower, r.lower, o.hasLower, o.lower, true)
		out.hasUpper, out.upper = r.hasUpper || o.hasUpper, maxBound(r.hasUpper, r.upper, o.hasUpper, o.upper, false)
		out = out.canonicalBounds()
	}
	if out.finite && !out.present && len(out.values) > 0 {
		// Cannot arise from the constructors (a finite value list always
		// requires presence); kept total for safety.
		out.present = true
	}
	return out
}

// Intersects reports whether some node satisfies both r and o.
func (r Requirement) Intersects(o Requirement) bool {
	if !r.present && !o.present {
		return true // both allow the label to be absent
	}
	switch {
	case r.finite && o.finite:
		for i, j := 0, 0; i < len(r.values) && j < len(o.values); {
			switch strings.Compare(r.values[i], o.values[j]) {
			case 0:
				return true
			case -1:
				i++
			default:
				j++
			}
		}
		return false
	case r.finite:
		return slices.ContainsFunc(r.values, o.Has)
	case o.finite:
		return slices.ContainsFunc(o.values, r.Has)
	}
	// Two complements: a finite exclusion list never empties an infinite set
	// of spellings, so only crossed bounds can (see canonicalBounds).
	if (r.hasLower || o.hasLower) && (r.hasUpper || o.hasUpper) {
		return maxBound(r.hasLower, r.lower, o.hasLower, o.lower, true) <= maxBound(r.hasUpper, r.upper, o.hasUpper, o.upper, false)
	}
	return true
}

func maxBound(hasA bool, a int64, hasB bool, b int64, lower bool) int64 {
	switch {
	case hasA && hasB:
		if lower {
			return max(a, b)
		}
		return min(a, b)
	case hasA:
		return a
	default:
		return b
	}
}

// canonicalBounds drops excluded values the bounds already exclude and turns
// crossed bounds into the empty set.
//
// Only crossed bounds empty a range: excluding every integer of [lower, upper]
// by its canonical spelling still leaves the others ("07", "+7"), which Has
// accepts because Kubernetes parses label values with strconv.ParseInt.
func (r Requirement) canonicalBounds() Requirement {
	if !r.hasLower && !r.hasUpper {
		return r
	}
	if r.hasLower && r.hasUpper && r.lower > r.upper {
		return Requirement{key: r.key, finite: true, present: true, minValues: r.minValues}
	}
	if len(r.values) > 0 {
		bounds := Requirement{hasLower: r.hasLower, lower: r.lower, hasUpper: r.hasUpper, upper: r.upper}
		r.values = filter(r.values, bounds.inBounds)
	}
	return r
}

// intersectSorted returns the values both sorted lists hold. When that is all
// of a or all of b (a single-valued label meeting a list that holds it), the
// input itself is returned and nothing is allocated: slices are immutable.
func intersectSorted(a, b []string) []string {
	n := 0
	mergeCommon(a, b, func(string) { n++ })
	switch n {
	case 0:
		return nil
	case len(a):
		return a
	case len(b):
		return b
	}
	out := make([]string, 0, n)
	mergeCommon(a, b, func(v string) { out = append(out, v) })
	return out
}

func mergeCommon(a, b []string, common func(string)) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			common(a[i])
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
}

func unionSorted(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch strings.Compare(a[i], b[j]) {
		case 0:
			out = append(out, a[i])
			i++
			j++
		case -1:
			out = append(out, a[i])
			i++
		default:
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func filter(values []string, keep func(string) bool) []string {
	n := 0
	for _, v := range values {
		if keep(v) {
			n++
		}
	}
	if n == len(values) {
		return values
	}
	out := make([]string, 0, n)
	for _, v := range values {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// Equal reports whether r and o are the same requirement, minValues included.
func (r Requirement) Equal(o Requirement) bool {
	return r.key == o.key && r.finite == o.finite && r.present == o.present &&
		r.hasLower == o.hasLower && r.hasUpper == o.hasUpper &&
		(!r.hasLower || r.lower == o.lower) && (!r.hasUpper || r.upper == o.upper) &&
		r.minValues == o.minValues && slices.Equal(r.values, o.values)
}

// SameSet reports whether r and o allow the same states, ignoring key and minValues.
func (r Requirement) SameSet(o Requirement) bool {
	r.key, o.key, r.minValues, o.minValues = "", "", 0, 0
	return r.Equal(o)
}

// String renders the requirement for people, e.g. `zone In [a b]`,
// `team NotIn [x]`, `cpu Exists >=2 <=8`. Lists longer than five values are
// truncated with "and N others".
func (r Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.key)
	switch {
	case r.IsEmpty():
		b.WriteString(" In []")
	case r.finite && len(r.values) == 0:
		b.WriteString(" DoesNotExist")
	case r.finite:
		b.WriteString(" In ")
		writeValues(&b, r.values)
	case r.IsAny():
		b.WriteString(" Any")
	default:
		if r.present {
			b.WriteString(" Exists")
		}
		if len(r.values) > 0 {
			b.WriteString(" NotIn ")
			writeValues(&b, r.values)
		}
		if r.hasLower {
			fmt.Fprintf(&b, " >=%d", r.lower)
		}
		if r.hasUpper {
			fmt.Fprintf(&b, " <=%d", r.upper)
		}
	}
	if r.minValues > 0 {
		fmt.Fprintf(&b, " minValues %d", r.minValues)
	}
	return b.String()
}

func writeValues(b *strings.Builder, values []string) {
	const shown = 5
	b.WriteByte('[')
	for i, v := range values {
		if i == shown {
			fmt.Fprintf(b, " and %d others", len(values)-shown)
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
}

// Expression is one requirement in node-selector form, the way NodeClaims
// and the plan output carry them.
type Expression struct {
	Key       string   `json:"key"`
	Operator  Operator `json:"operator"`
	Values    []string `json:"values,omitempty"`
	MinValues int      `json:"minValues,omitempty"`
}

// Expressions renders r as node-selector expressions whose conjunction is
// exactly r: In, NotIn, Exists, DoesNotExist, and Gte/Lte for bounds (a key
// with both bounds gives two expressions). The unconstrained requirement gives
// none; the empty set gives Exists and DoesNotExist together.
func (r Requirement) Expressions() []Expression {
	with := func(e Expression) Expression {
		e.Key, e.MinValues = r.key, r.minValues
		return e
	}
	switch {
	case r.IsAny():
		return nil
	case r.IsEmpty():
		return []Expression{with(Expression{Operator: OpExists}), with(Expression{Operator: OpDoesNotExist})}
	case r.finite && len(r.values) == 0:
		return []Expression{with(Expression{Operator: OpDoesNotExist})}
	case r.finite:
		return []Expression{with(Expression{Operator: OpIn, Values: slices.Clone(r.values)})}
	}
	var out []Expression
	if len(r.values) > 0 {
		out = append(out, with(Expression{Operator: OpNotIn, Values: slices.Clone(r.values)}))
	}
	if r.hasLower {
		out = append(out, with(Expression{Operator: OpGte, Values: []string{strconv.FormatInt(r.lower, 10)}}))
	}
	if r.hasUpper {
		out = append(out, with(Expression{Operator: OpLte, Values: []string{strconv.FormatInt(r.upper, 10)}}))
	}
	if r.present && !r.hasLower && !r.hasUpper {
		out = append(out, with(Expression{Operator: OpExists}))
	}
	return out
}

// Pick returns one value that satisfies r, for labelling a node: the first
// value of a finite set; otherwise the lower bound, the upper bound, or a
// number derived from seed, skipping excluded values (stepping up from a lower
// bound or from the seed, down from an upper bound). When a bounded range
// excludes every integer it holds by canonical spelling, the first one is
// returned zero-padded ("07"), which Has accepts. ok is false exactly when r
// allows no value (DoesNotExist, empty). The result depends only on r and seed.
func (r Requirement) Pick(seed uint64) (value string, ok bool) {
	if r.finite {
		if len(r.values) == 0 {
			return "", false
		}
		return r.values[0], true
	}
	var start int64
	switch {
	case r.hasLower:
		start = r.lower
	case r.hasUpper:
		start = r.upper
	default:
		start = int64(seed % 1_000_000_000)
	}
	step := int64(1)
	if !r.hasLower && r.hasUpper {
		step = -1
	}
	// Each excluded value blocks at most one candidate, so len(values)+1
	// candidates suffice unless a bound (or int64 overflow) cuts them short.
	for i, n := 0, start; i <= len(r.values); i, n = i+1, n+step {
		if (step > 0 && n < start) || (step < 0 && n > start) {
			break // wrapped around int64
		}
		v := strconv.FormatInt(n, 10)
		if r.Has(v) {
			return v, true
		}
	}
	digits := strconv.FormatInt(start, 10)
	sign := ""
	if start < 0 {
		sign, digits = "-", digits[1:]
	}
	for range len(r.values) + 1 {
		digits = "0" + digits
		if v := sign + digits; r.Has(v) {
			return v, true
		}
	}
	return "", false // unreachable: a finite exclusion list cannot block every padding
}
