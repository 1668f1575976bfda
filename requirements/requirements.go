package requirements

import (
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Requirements is a set of requirements keyed by label: at most one
// Requirement per key, and a node satisfies the set when it satisfies every
// requirement in it. Requirements is an immutable value (its slice is shared
// between copies and never written); the zero value has no requirement and
// is satisfied by every node.
type Requirements struct {
	reqs []Requirement // sorted by key, unique keys
}

// NewRequirements builds a set; requirements on the same key are intersected.
func NewRequirements(reqs ...Requirement) Requirements {
	return Requirements{}.Add(reqs...)
}

// Add returns the set with reqs intersected in, key by key.
func (rs Requirements) Add(reqs ...Requirement) Requirements {
	if len(reqs) == 0 {
		return rs
	}
	out := slices.Clone(rs.reqs)
	for _, r := range reqs {
		i, found := slices.BinarySearchFunc(out, r.key, byKey)
		if found {
			out[i] = out[i].Intersect(r)
		} else {
			out = slices.Insert(out, i, r)
		}
	}
	return Requirements{reqs: out}
}

func byKey(r Requirement, key string) int { return strings.Compare(r.key, key) }

// Intersect returns the set satisfied by the nodes that satisfy both sets.
func (rs Requirements) Intersect(o Requirements) Requirements {
	if len(o.reqs) == 0 {
		return rs
	}
	if len(rs.reqs) == 0 {
		return o
	}
	out := make([]Requirement, 0, len(rs.reqs)+len(o.reqs))
	i, j := 0, 0
	for i < len(rs.reqs) && j < len(o.reqs) {
		switch strings.Compare(rs.reqs[i].key, o.reqs[j].key) {
		case 0:
			out = append(out, rs.reqs[i].Intersect(o.reqs[j]))
			i++
			j++
		case -1:
			out = append(out, rs.reqs[i])
			i++
		default:
			out = append(out, o.reqs[j])
			j++
		}
	}
	out = append(out, rs.reqs[i:]...)
	out = append(out, o.reqs[j:]...)
	return Requirements{reqs: out}
}

// Get returns the requirement on key; an undefined key reads as the
// unconstrained requirement (Any).
func (rs Requirements) Get(key string) Requirement {
	if i, found := slices.BinarySearchFunc(rs.reqs, key, byKey); found {
		return rs.reqs[i]
	}
	return Any(key)
}

// Has reports whether the set defines a requirement on key.
func (rs Requirements) Has(key string) bool {
	_, found := slices.BinarySearchFunc(rs.reqs, key, byKey)
	return found
}

// Len returns the number of keys.
func (rs Requirements) Len() int { return len(rs.reqs) }

// Keys returns the keys, sorted.
func (rs Requirements) Keys() []string {
	out := make([]string, len(rs.reqs))
	for i, r := range rs.reqs {
		out[i] = r.key
	}
	return out
}

// All iterates over the requirements in key order.
func (rs Requirements) All() iter.Seq[Requirement] {
	return func(yield func(Requirement) bool) {
		for _, r := range rs.reqs {
			if !yield(r) {
				return
			}
		}
	}
}

// Without returns the set without the given keys.
func (rs Requirements) Without(keys ...string) Requirements {
	out := slices.DeleteFunc(slices.Clone(rs.reqs), func(r Requirement) bool { return slices.Contains(keys, r.key) })
	return Requirements{reqs: out}
}

// Empty returns the first key whose requirement nothing satisfies, if any.
func (rs Requirements) Empty() (key string, empty bool) {
	for _, r := range rs.reqs {
		if r.IsEmpty() {
			return r.key, true
		}
	}
	return "", false
}

// Compatible reports whether a node could satisfy both rs (the target: a
// NodePool template, a NodeClaim, an existing node's labels) and incoming (a
// pod's constraints). For a key that rs does not define, the target reads as
// Any when wellKnown says the key is well-known (the cloud can pick any value;
// only an empty incoming requirement fails) and as DoesNotExist otherwise (a custom label nobody declared will not be on
// the node), unless incoming excludes values (NotIn, even with Exists or
// bounds): Karpenter carries such a requirement into the NodeClaim and labels
// the node with a generated value it allows, so the label will be there. A
// nil wellKnown is strict: every undefined key reads as DoesNotExist, as for
// an existing node whose labels are fixed.
//
// The error is an *IncompatibleError naming the first conflicting key.
func (rs Requirements) Compatible(incoming Requirements, wellKnown WellKnown) error {
	i := 0
	for _, in := range incoming.reqs {
		for i < len(rs.reqs) && rs.reqs[i].key < in.key {
			i++
		}
		if i < len(rs.reqs) && rs.reqs[i].key == in.key {
			if !rs.reqs[i].Intersects(in) {
				return &IncompatibleError{Key: in.key, Target: rs.reqs[i], Incoming: in}
			}
			continue
		}
		if wellKnown != nil && wellKnown.IsWellKnown(in.key) {
			if in.IsEmpty() { // Any ∩ empty: no value the cloud offers helps
				return &IncompatibleError{Key: in.key, Target: Any(in.key), Incoming: in}
			}
			continue
		}
		if !in.AllowsAbsent() && (wellKnown == nil || !in.ExcludesValues()) {
			e := &IncompatibleError{Key: in.key, Target: DoesNotExist(in.key), Incoming: in, Undefined: true}
			if h, ok := wellKnown.(interface{ Hint(string) string }); ok {
				e.Hint = h.Hint(in.key)
			}
			return e
		}
	}
	return nil
}

// Intersects reports whether the two sets can hold together on the keys both
// define; keys only one side defines are ignored. This is the check of an
// instance type (which defines its own labels) against a NodeClaim (which may
// define custom labels the type knows nothing of).
func (rs Requirements) Intersects(o Requirements) error {
	i, j := 0, 0
	for i < len(rs.reqs) && j < len(o.reqs) {
		switch strings.Compare(rs.reqs[i].key, o.reqs[j].key) {
		case 0:
			if !rs.reqs[i].Intersects(o.reqs[j]) {
				return &IncompatibleError{Key: rs.reqs[i].key, Target: rs.reqs[i], Incoming: o.reqs[j]}
			}
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
	return nil
}

// Matches reports whether a node with exactly these labels satisfies every
// requirement (an undefined label is absent).
func (rs Requirements) Matches(labels map[string]string) bool {
	for _, r := range rs.reqs {
		v, ok := labels[r.key]
		if !r.Matches(v, ok) {
			return false
		}
	}
	return true
}

// Labels returns the labels the set determines: every key whose requirement
// allows exactly one value and requires the label.
func (rs Requirements) Labels() map[string]string {
	out := map[string]string{}
	for _, r := range rs.reqs {
		if r.finite && r.present && len(r.values) == 1 {
			out[r.key] = r.values[0]
		}
	}
	return out
}

// Expressions renders the set as node-selector expressions, in key order.
func (rs Requirements) Expressions() []Expression {
	var out []Expression
	for _, r := range rs.reqs {
		out = append(out, r.Expressions()...)
	}
	return out
}

// Equal reports whether two sets hold the same requirements.
func (rs Requirements) Equal(o Requirements) bool {
	return slices.EqualFunc(rs.reqs, o.reqs, Requirement.Equal)
}

// String renders the set for people, one requirement per key in key order,
// separated by ", ". kubernetes.io/hostname is left out.
func (rs Requirements) String() string {
	var parts []string
	for _, r := range rs.reqs {
		if r.key == LabelHostname {
			continue
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// Fingerprint returns a canonical encoding of the set: two sets have the
// same fingerprint exactly when they are Equal. Used to intern sets. Every
// string is length-prefixed, so no key or value (whatever bytes it holds) can
// imitate a separator.
func (rs Requirements) Fingerprint() string {
	var b []byte
	for _, r := range rs.reqs {
		b = r.appendFingerprint(b)
	}
	return string(b)
}

func (r Requirement) appendFingerprint(b []byte) []byte {
	b = appendString(b, r.key)
	flags := byte('0')
	if r.finite {
		flags |= 1
	}
	if r.present {
		flags |= 2
	}
	if r.hasLower {
		flags |= 4
	}
	if r.hasUpper {
		flags |= 8
	}
	b = append(b, flags)
	if r.hasLower {
		b = strconv.AppendInt(b, r.lower, 10)
	}
	b = append(b, ',')
	if r.hasUpper {
		b = strconv.AppendInt(b, r.upper, 10)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.minValues), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(len(r.values)), 10)
	b = append(b, ',')
	for _, v := range r.values {
		b = appendString(b, v)
	}
	return append(b, ';')
}

// appendString appends s as "<len>:<s>".
func appendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}
