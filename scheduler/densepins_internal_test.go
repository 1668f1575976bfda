package scheduler

import (
	"testing"

	"github.com/nodeplan/nodeplan/binpack"
)

// TestFitCount: how many pods of a request vector a type's usable capacity
// holds, capped; a zero request on a dimension never limits.
func TestFitCount(t *testing.T) {
	t.Parallel()
	vec := func(cpu, mem int64) binpack.Vec { return binpack.Vec{cpu, mem} }
	tests := []struct {
		name         string
		need, usable binpack.Vec
		limit, want  int
	}{
		{name: "cpu binds", need: vec(3000, 1), usable: vec(16000, 64), limit: 10, want: 5},
		{name: "memory binds", need: vec(1000, 20), usable: vec(16000, 64), limit: 10, want: 3},
		{name: "capped by the pods left", need: vec(1000, 1), usable: vec(16000, 64), limit: 4, want: 4},
		{name: "does not hold one", need: vec(20000, 1), usable: vec(16000, 64), limit: 4, want: 0},
		{name: "zero request on memory", need: vec(4000, 0), usable: vec(16000, 0), limit: 9, want: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fitCount(tc.need, tc.usable, tc.limit); got != tc.want {
				t.Errorf("fitCount = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestPerPodPrefersDenser: the price per pod orders types; at the same
// price per pod the type that holds more pods ranks first.
func TestPerPodPrefersDenser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		price1, price2         float64
		pods1, pods2           int
		firstRanksBeforeSecond bool
	}{
		{name: "cheaper per pod wins", price1: 1.0, pods1: 4, price2: 0.3, pods2: 1, firstRanksBeforeSecond: true},
		{name: "dearer per pod loses", price1: 1.0, pods1: 2, price2: 0.3, pods2: 1, firstRanksBeforeSecond: false},
		{name: "same per pod: denser wins", price1: 2.687126, pods1: 4, price2: 1.343563, pods2: 2, firstRanksBeforeSecond: true},
		{name: "same per pod: sparser loses", price1: 0.2, pods1: 1, price2: 0.8, pods2: 4, firstRanksBeforeSecond: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := perPod(tc.price1, tc.pods1) < perPod(tc.price2, tc.pods2); got != tc.firstRanksBeforeSecond {
				t.Errorf("perPod(%v, %d) < perPod(%v, %d) = %v, want %v", tc.price1, tc.pods1, tc.price2, tc.pods2, got, tc.firstRanksBeforeSecond)
			}
		})
	}
}
