package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/binpack"
)

// TestNextFitMatchesPlainScan: passing over blocks finds what scanning
// every type finds, on scans in price order and in none, from every
// position, with and without a price limit.
func TestNextFitMatchesPlainScan(t *testing.T) {
	t.Parallel()
	plain := func(scan []typeScan, i int, need *binpack.Vec, maxPrice float64) (int, bool) {
		for ; i < len(scan); i++ {
			if scan[i].price > maxPrice {
				return 0, false
			}
			if need[0] <= scan[i].cpu && need[1] <= scan[i].mem {
				return i, true
			}
		}
		return 0, false
	}
	type answer struct {
		Pos int
		OK  bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sorted := range []bool{true, false} {
		for n := range 40 {
			scan := make([]typeScan, n)
			for i := range scan {
				scan[i] = typeScan{t: int32(i), price: float64(rng.IntN(50)), cpu: rng.Int64N(16), mem: rng.Int64N(16)}
			}
			if sorted {
				slices.SortFunc(scan, func(a, b typeScan) int { return int(a.price - b.price) })
			}
			blocks := scanBlocks(scan)
			for from := range n + 1 {
				for range 20 {
					need := binpack.Vec{rng.Int64N(18), rng.Int64N(18)}
					maxPrice := float64(rng.IntN(60))
					var want, got answer
					want.Pos, want.OK = plain(scan, from, &need, maxPrice)
					got.Pos, got.OK = nextFit(scan, blocks, from, &need, maxPrice)
					if diff := gocmp.Diff(want, got); diff != "" {
						t.Fatalf("sorted %v, %d types, from %d, need %v, max price %v (-plain +blocks):\n%s", sorted, n, from, need[:2], maxPrice, diff)
					}
				}
			}
		}
	}
}
