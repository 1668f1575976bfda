package scheduler

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestInsertCheapestKeepsWhatSortingKeeps feeds candidates with few
// distinct prices (ties are the common case) and repeated claims to
// insertCheapest, and compares what it keeps with a stable sort of all of
// them by price and id, cut at absorbTries.
func TestInsertCheapestKeepsWhatSortingKeeps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	claims := make([]*claim, 40)
	for i := range claims {
		claims[i] = &claim{id: i, price: float64(r.IntN(5)) / 4}
	}
	for trial := range 500 {
		var all, kept []*claim
		for range r.IntN(3 * absorbTries) {
			cl := claims[r.IntN(len(claims))]
			all = append(all, cl)
			kept = insertCheapest(kept, cl)
		}
		want := slices.Clone(all)
		slices.SortStableFunc(want, func(x, y *claim) int {
			if c := cmp.Compare(x.price, y.price); c != 0 {
				return c
			}
			return cmp.Compare(x.id, y.id)
		})
		want = want[:min(len(want), absorbTries)]
		ids := func(cs []*claim) []int {
			var out []int
			for _, cl := range cs {
				out = append(out, cl.id)
			}
			return out
		}
		if diff := gocmp.Diff(ids(want), ids(kept), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("trial %d: kept claims (-want +got):\n%s", trial, diff)
		}
	}
}
