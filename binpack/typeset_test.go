package binpack_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/binpack"
)

// setOf returns a set able to hold n types holding idx.
func setOf(n int, idx ...int) binpack.TypeSet {
	s := binpack.NewTypeSet(n)
	for _, i := range idx {
		s.Set(i)
	}
	return s
}

// members lists the types of s in Each order.
func members(s binpack.TypeSet) []int {
	out := []int{}
	s.Each(func(i int) bool {
		out = append(out, i)
		return true
	})
	return out
}

// seq returns [from, to).
func seq(from, to int) []int {
	out := []int{}
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestNewTypeSet(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 63, 64, 65, 130} {
		s := binpack.NewTypeSet(n)
		if !s.IsEmpty() || s.Count() != 0 {
			t.Errorf("NewTypeSet(%d): IsEmpty %v, Count %d; want an empty set", n, s.IsEmpty(), s.Count())
		}
		for i := range n {
			if s.Has(i) {
				t.Errorf("NewTypeSet(%d).Has(%d) = true", n, i)
			}
		}
	}
}

// TestFullTypeSet checks that FullTypeSet holds exactly 0..n-1: no bit past
// n in the last word, whatever n modulo 64.
func TestFullTypeSet(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 63, 64, 65, 127, 128, 130} {
		full := binpack.FullTypeSet(n)
		if full.Count() != n {
			t.Errorf("FullTypeSet(%d).Count() = %d", n, full.Count())
		}
		if diff := gocmp.Diff(seq(0, n), members(full)); diff != "" {
			t.Errorf("FullTypeSet(%d) members (-want +got):\n%s", n, diff)
		}
		// Bits past n in the last word must be clear: Has must say so, and
		// the set must equal one built bit by bit.
		for i := n; i < (n+63)/64*64; i++ {
			if full.Has(i) {
				t.Errorf("FullTypeSet(%d).Has(%d) = true, past n", n, i)
			}
		}
		if !full.Equal(setOf(n, seq(0, n)...)) {
			t.Errorf("FullTypeSet(%d) differs from the set of 0..%d built by Set", n, n-1)
		}
		if full.IsEmpty() != (n == 0) {
			t.Errorf("FullTypeSet(%d).IsEmpty() = %v", n, full.IsEmpty())
		}
	}
}

func TestTypeSetSetClear(t *testing.T) {
	t.Parallel()
	s := binpack.NewTypeSet(130)
	for _, i := range []int{0, 63, 64, 129, 64} { // 64 twice: Set is idempotent
		s.Set(i)
	}
	if diff := gocmp.Diff([]int{0, 63, 64, 129}, members(s)); diff != "" {
		t.Errorf("after Set (-want +got):\n%s", diff)
	}
	if s.Count() != 4 {
		t.Errorf("Count = %d, want 4", s.Count())
	}
	s.Clear(63)
	s.Clear(63)
	s.Clear(5) // not in the set
	if diff := gocmp.Diff([]int{0, 64, 129}, members(s)); diff != "" {
		t.Errorf("after Clear (-want +got):\n%s", diff)
	}
	for i, want := range map[int]bool{0: true, 1: false, 63: false, 64: true, 65: false, 128: false, 129: true} {
		if got := s.Has(i); got != want {
			t.Errorf("Has(%d) = %v, want %v", i, got, want)
		}
	}
}

// TestTypeSetAlgebra checks And, Or, Intersects and their in-place forms on
// sets that span several words.
func TestTypeSetAlgebra(t *testing.T) {
	t.Parallel()
	const n = 130
	tests := []struct {
		name           string
		a, b           []int
		wantAnd        []int
		wantOr         []int
		wantIntersects bool
	}{
		{name: "both empty", a: nil, b: nil, wantAnd: []int{}, wantOr: []int{}},
		{name: "one empty", a: []int{1, 70}, b: nil, wantAnd: []int{}, wantOr: []int{1, 70}},
		{name: "disjoint in every word", a: []int{0, 64, 128}, b: []int{1, 65, 129}, wantAnd: []int{},
			wantOr: []int{0, 1, 64, 65, 128, 129}},
		{name: "overlap in the last word only", a: []int{3, 129}, b: []int{4, 129}, wantAnd: []int{129},
			wantOr: []int{3, 4, 129}, wantIntersects: true},
		{name: "subset", a: []int{2, 66, 100}, b: []int{66}, wantAnd: []int{66}, wantOr: []int{2, 66, 100},
			wantIntersects: true},
		{name: "equal", a: []int{5, 63, 64}, b: []int{5, 63, 64}, wantAnd: []int{5, 63, 64},
			wantOr: []int{5, 63, 64}, wantIntersects: true},
		{name: "full and sparse", a: seq(0, n), b: []int{0, 127}, wantAnd: []int{0, 127}, wantOr: seq(0, n),
			wantIntersects: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := setOf(n, tt.a...), setOf(n, tt.b...)
			wantA, wantB := members(a), members(b)

			and, or := a.And(b), a.Or(b)
			if diff := gocmp.Diff(tt.wantAnd, members(and)); diff != "" {
				t.Errorf("And (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantOr, members(or)); diff != "" {
				t.Errorf("Or (-want +got):\n%s", diff)
			}
			if got := a.Intersects(b); got != tt.wantIntersects {
				t.Errorf("a.Intersects(b) = %v, want %v", got, tt.wantIntersects)
			}
			if got := b.Intersects(a); got != tt.wantIntersects {
				t.Errorf("b.Intersects(a) = %v, want %v", got, tt.wantIntersects)
			}
			if diff := gocmp.Diff(members(and), members(b.And(a))); diff != "" {
				t.Errorf("And is not commutative (-a∩b +b∩a):\n%s", diff)
			}
			if diff := gocmp.Diff(members(or), members(b.Or(a))); diff != "" {
				t.Errorf("Or is not commutative (-a∪b +b∪a):\n%s", diff)
			}

			// And and Or return fresh sets: writing into them leaves a and b.
			and.Set(7)
			for _, i := range tt.wantOr {
				or.Clear(i)
			}
			if diff := gocmp.Diff(wantA, members(a)); diff != "" {
				t.Errorf("a changed (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(wantB, members(b)); diff != "" {
				t.Errorf("b changed (-want +got):\n%s", diff)
			}

			// The in-place forms write into the receiver only.
			ai := a.Clone()
			ai.AndInto(b)
			if diff := gocmp.Diff(tt.wantAnd, members(ai)); diff != "" {
				t.Errorf("AndInto (-want +got):\n%s", diff)
			}
			oi := a.Clone()
			oi.OrInto(b)
			if diff := gocmp.Diff(tt.wantOr, members(oi)); diff != "" {
				t.Errorf("OrInto (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(wantB, members(b)); diff != "" {
				t.Errorf("the argument of AndInto/OrInto changed (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(wantA, members(a)); diff != "" {
				t.Errorf("a changed through a clone (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTypeSetClone checks that a clone and its original do not share words.
func TestTypeSetClone(t *testing.T) {
	t.Parallel()
	orig := setOf(100, 1, 64, 99)
	c := orig.Clone()
	if !c.Equal(orig) {
		t.Fatalf("clone %v differs from original %v", members(c), members(orig))
	}
	c.Set(2)
	c.Clear(64)
	if diff := gocmp.Diff([]int{1, 64, 99}, members(orig)); diff != "" {
		t.Errorf("writing the clone changed the original (-want +got):\n%s", diff)
	}
	orig.Set(50)
	if diff := gocmp.Diff([]int{1, 2, 99}, members(c)); diff != "" {
		t.Errorf("writing the original changed the clone (-want +got):\n%s", diff)
	}
	empty := binpack.TypeSet{}.Clone()
	if !empty.IsEmpty() || empty.Count() != 0 {
		t.Errorf("clone of the zero TypeSet is not empty")
	}
}

func TestTypeSetCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		idx  []int
		want int
	}{
		{name: "zero capacity", n: 0, want: 0},
		{name: "empty", n: 200, want: 0},
		{name: "one per word", n: 200, idx: []int{0, 64, 128, 199}, want: 4},
		{name: "whole first word", n: 65, idx: seq(0, 64), want: 64},
		{name: "word boundaries", n: 130, idx: []int{63, 64, 127, 128}, want: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := setOf(tt.n, tt.idx...)
			if got := s.Count(); got != tt.want {
				t.Errorf("Count() = %d, want %d", got, tt.want)
			}
			if got := s.IsEmpty(); got != (tt.want == 0) {
				t.Errorf("IsEmpty() = %v, want %v", got, tt.want == 0)
			}
		})
	}
}

// TestTypeSetEach checks the ascending order across words and that Each
// stops as soon as f returns false.
func TestTypeSetEach(t *testing.T) {
	t.Parallel()
	s := setOf(200, 199, 0, 130, 64, 63, 5)
	if diff := gocmp.Diff([]int{0, 5, 63, 64, 130, 199}, members(s)); diff != "" {
		t.Errorf("Each order (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name     string
		stopAt   int
		wantSeen []int
	}{
		{name: "stop at first", stopAt: 0, wantSeen: []int{0}},
		{name: "stop at last of first word", stopAt: 63, wantSeen: []int{0, 5, 63}},
		{name: "stop in a later word", stopAt: 130, wantSeen: []int{0, 5, 63, 64, 130}},
		{name: "stop at last", stopAt: 199, wantSeen: []int{0, 5, 63, 64, 130, 199}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var seen []int
			s.Each(func(i int) bool {
				seen = append(seen, i)
				return i != tt.stopAt
			})
			if diff := gocmp.Diff(tt.wantSeen, seen); diff != "" {
				t.Errorf("visited (-want +got):\n%s", diff)
			}
		})
	}
	calls := 0
	binpack.NewTypeSet(200).Each(func(int) bool { calls++; return true })
	if calls != 0 {
		t.Errorf("Each on an empty set called f %d times", calls)
	}
}

func TestTypeSetEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b binpack.TypeSet
		want bool
	}{
		{name: "both empty", a: binpack.NewTypeSet(70), b: binpack.NewTypeSet(70), want: true},
		{name: "same members", a: setOf(70, 1, 69), b: setOf(70, 69, 1), want: true},
		{name: "full and built", a: binpack.FullTypeSet(65), b: setOf(65, seq(0, 65)...), want: true},
		{name: "differ in the second word", a: setOf(70, 1, 69), b: setOf(70, 1, 68), want: false},
		{name: "subset", a: setOf(70, 1), b: setOf(70, 1, 2), want: false},
		{name: "empty and not", a: binpack.NewTypeSet(70), b: setOf(70, 0), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("a.Equal(b) = %v, want %v", got, tt.want)
			}
			if got := tt.b.Equal(tt.a); got != tt.want {
				t.Errorf("b.Equal(a) = %v, want %v", got, tt.want)
			}
		})
	}
}
