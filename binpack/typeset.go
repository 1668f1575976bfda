package binpack

import "math/bits"

// TypeSet is a set of instance-type indexes of one catalog, as a bitset.
// A TypeSet is a value that may share its words with others: the methods
// never write into their receiver's words; mutating helpers say so
// (AndInto).
type TypeSet struct {
	words []uint64
}

// NewTypeSet returns an empty set able to hold n types.
func NewTypeSet(n int) TypeSet { return TypeSet{words: make([]uint64, (n+63)/64)} }

// FullTypeSet returns the set of all n types.
func FullTypeSet(n int) TypeSet {
	s := NewTypeSet(n)
	for i := 0; i < n; i++ {
		s.words[i/64] |= 1 << (i % 64)
	}
	return s
}

// Has reports whether type i is in the set.
func (s TypeSet) Has(i int) bool { return s.words[i/64]&(1<<(i%64)) != 0 }

// Set adds type i, writing into s (s must not be shared).
func (s TypeSet) Set(i int) { s.words[i/64] |= 1 << (i % 64) }

// Clear removes type i, writing into s (s must not be shared).
func (s TypeSet) Clear(i int) { s.words[i/64] &^= 1 << (i % 64) }

// And returns s ∩ o as a new set.
func (s TypeSet) And(o TypeSet) TypeSet {
	out := TypeSet{words: make([]uint64, len(s.words))}
	for i := range s.words {
		out.words[i] = s.words[i] & o.words[i]
	}
	return out
}

// Or returns s ∪ o as a new set.
func (s TypeSet) Or(o TypeSet) TypeSet {
	out := TypeSet{words: make([]uint64, len(s.words))}
	for i := range s.words {
		out.words[i] = s.words[i] | o.words[i]
	}
	return out
}

// OrInto adds o to s in place (s must not be shared).
func (s TypeSet) OrInto(o TypeSet) {
	for i := range s.words {
		s.words[i] |= o.words[i]
	}
}

// AndInto intersects s with o in place (s must not be shared).
func (s TypeSet) AndInto(o TypeSet) {
	for i := range s.words {
		s.words[i] &= o.words[i]
	}
}

// Clone returns a copy that does not share words.
func (s TypeSet) Clone() TypeSet {
	return TypeSet{words: append([]uint64(nil), s.words...)}
}

// Count returns the number of types in the set.
func (s TypeSet) Count() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether the set is empty.
func (s TypeSet) IsEmpty() bool {
	for _, w := range s.words {
		if w != 0 {
			return false
		}
	}
	return true
}

// Intersects reports whether s and o share a type.
func (s TypeSet) Intersects(o TypeSet) bool {
	for i := range s.words {
		if s.words[i]&o.words[i] != 0 {
			return true
		}
	}
	return false
}

// Each calls f for every type in ascending order until f returns false.
func (s TypeSet) Each(f func(i int) bool) {
	for wi, w := range s.words {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			if !f(wi*64 + b) {
				return
			}
			w &= w - 1
		}
	}
}

// Equal reports whether the sets hold the same types.
func (s TypeSet) Equal(o TypeSet) bool {
	if len(s.words) != len(o.words) {
		return false
	}
	for i := range s.words {
		if s.words[i] != o.words[i] {
			return false
		}
	}
	return true
}
