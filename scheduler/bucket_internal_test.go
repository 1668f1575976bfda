package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// liveIDs lists the ids of the claims of the entries a search of b visits,
// newest first.
func liveIDs(b *bucket) []int {
	var out []int
	for i := b.prevLive(len(b.claims) - 1); i >= 0; i = b.prevLive(i - 1) {
		if !b.deadEntry(i) {
			out = append(out, b.claims[i].id)
		}
	}
	return out
}

// wantIDs lists, newest first, the ids of the claims of b's entries whose
// claim is in b and not dropped: what a walk of every entry keeps.
func wantIDs(b *bucket) []int {
	var out []int
	for i := len(b.claims) - 1; i >= 0; i-- {
		if cl := b.claims[i]; cl.bucket == b && !cl.dropped {
			out = append(out, cl.id)
		}
	}
	return out
}

func TestBucketEntries(t *testing.T) {
	p := &pool{}
	b1, b2 := &bucket{pool: p}, &bucket{pool: p}
	var cls []*claim
	for i := range 70 { // more than one word of bits
		cl := &claim{id: i, pool: p}
		b1.join(cl)
		cls = append(cls, cl)
	}
	s := &solver{}
	steps := []struct {
		name string
		do   func()
	}{
		{name: "joined", do: func() {}},
		{name: "claim 1 moves on", do: func() { b2.join(cls[1]) }},
		{name: "claims 2 to 68 are dropped", do: func() {
			for _, cl := range cls[2:69] {
				cl.dropped = true
			}
		}},
		{name: "claim 5 is taken back", do: func() { s.undrop(cls[5]) }},
		{name: "claim 1 comes back: both its entries count", do: func() { b1.join(cls[1]) }},
		{name: "claim 1 moves on again", do: func() { b2.join(cls[1]) }},
		{name: "claim 1 comes back again: three entries", do: func() { b1.join(cls[1]) }},
	}
	for _, st := range steps {
		st.do()
		// Each bucket twice: the second search jumps over the entries the
		// first found dead.
		for _, b := range []*bucket{b1, b2, b1, b2} {
			if diff := cmp.Diff(wantIDs(b), liveIDs(b)); diff != "" {
				t.Errorf("%s: search mismatch (-want +got):\n%s", st.name, diff)
			}
		}
	}
	if diff := cmp.Diff([]int{1, 1, 69, 5, 1, 0}, liveIDs(b1)); diff != "" {
		t.Errorf("b1 at the end mismatch (-want +got):\n%s", diff)
	}
	// Dead entries were cleared: a search of b1 now reads six bits set.
	set := 0
	for _, w := range b1.live {
		for ; w != 0; w &= w - 1 {
			set++
		}
	}
	if set != 6 {
		t.Errorf("b1 has %d bits set, want 6", set)
	}
}
