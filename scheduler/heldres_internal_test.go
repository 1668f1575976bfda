package scheduler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHeldByBucket: a bucket's check counts free one place of each full
// reservation its live claims hold, and only those: a reservation with
// places left, a claim that moved to another bucket or was dropped, and
// a claim holding none add nothing.
func TestHeldByBucket(t *testing.T) {
	t.Parallel()
	b, other := &bucket{}, &bucket{}
	claimIn := func(bk *bucket, res string, dropped bool) *claim {
		return &claim{bucket: bk, resID: res, dropped: dropped}
	}
	tests := []struct {
		name   string
		claims []*claim
		held   map[string]int
		want   heldRes
		left   map[string]int // what the check counts left per reservation
	}{
		{
			name:   "full reservation of a live claim is given back once",
			claims: []*claim{claimIn(b, "cr-a", false), claimIn(b, "cr-a", false)},
			held:   map[string]int{"cr-a": 2},
			want:   "cr-a",
			left:   map[string]int{"cr-a": 1, "cr-b": 1},
		},
		{
			name:   "reservation with places left is not named",
			claims: []*claim{claimIn(b, "cr-b", false)},
			held:   map[string]int{"cr-a": 2, "cr-b": 0},
			want:   "",
			left:   map[string]int{"cr-a": 0, "cr-b": 1},
		},
		{
			name:   "moved, dropped and empty-handed claims add nothing",
			claims: []*claim{claimIn(other, "cr-a", false), claimIn(b, "cr-a", true), claimIn(b, "", false)},
			held:   map[string]int{"cr-a": 2},
			want:   "",
			left:   map[string]int{"cr-a": 0, "cr-b": 1},
		},
		{
			name:   "several full reservations, sorted",
			claims: []*claim{claimIn(b, "cr-b", false), claimIn(b, "cr-a", false)},
			held:   map[string]int{"cr-a": 2, "cr-b": 1},
			want:   "cr-a\x00cr-b",
			left:   map[string]int{"cr-a": 1, "cr-b": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &solver{hasReservations: true, resCap: map[string]int{"cr-a": 2, "cr-b": 1}, resHeld: tc.held}
			bk := &bucket{claims: tc.claims}
			for _, cl := range tc.claims {
				if cl.bucket == b {
					cl.bucket = bk
				}
			}
			got := s.heldBy(bk)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("heldBy (-want +got):\n%s", diff)
			}
			left := s.leftHolding(got)
			gotLeft := map[string]int{"cr-a": left("cr-a"), "cr-b": left("cr-b")}
			if diff := cmp.Diff(tc.left, gotLeft); diff != "" {
				t.Errorf("leftHolding (-want +got):\n%s", diff)
			}
		})
	}
}
