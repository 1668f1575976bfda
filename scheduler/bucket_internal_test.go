package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// liveIDs lists the ids of the claims a search of b visits, newest first.
func liveIDs(b *bucket) []int {
	var out []int
	for i := b.prevLive(len(b.claims) - 1); i >= 0; i = b.prevLive(i - 1) {
		if !b.deadEntry(i) {
			out = append(out, b.claims[i].id)
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
	// After each step, a search of b1 visits exactly the claims whose own
	// entry is there and that are not dropped, newest first.
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
		{name: "claim 1 comes back: one entry, the newest", do: func() { b1.join(cls[1]) }},
	}
	for _, st := range steps {
		st.do()
		var want1 []int
		for i := len(b1.claims) - 1; i >= 0; i-- {
			if cl := b1.claims[i]; cl.bucket == b1 && cl.bucketPos == i && !cl.dropped {
				want1 = append(want1, cl.id)
			}
		}
		if diff := cmp.Diff(want1, liveIDs(b1)); diff != "" {
			t.Errorf("%s: b1 mismatch (-want +got):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(want1, liveIDs(b1)); diff != "" {
			t.Errorf("%s: b1, searched again, mismatch (-want +got):\n%s", st.name, diff)
		}
	}
	if diff := cmp.Diff([]int{1, 69, 5, 0}, liveIDs(b1)); diff != "" {
		t.Errorf("b1 at the end mismatch (-want +got):\n%s", diff)
	}
	if got := liveIDs(b2); len(got) != 0 {
		t.Errorf("b2 = %v, want no live entry (claim 1 went back)", got)
	}
	// Dead entries were cleared: a search now reads four bits set.
	set := 0
	for _, w := range b1.live {
		for ; w != 0; w &= w - 1 {
			set++
		}
	}
	if set != 4 {
		t.Errorf("b1 has %d bits set, want 4", set)
	}
}
