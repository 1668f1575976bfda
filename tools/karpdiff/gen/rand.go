package gen

import (
	"math/rand/v2"
)

// rng wraps a seeded source with the draws the generator needs.
type rng struct{ r *rand.Rand }

func newRNG(seed uint64) *rng { return &rng{r: rand.New(rand.NewPCG(seed, 0x6e6f6465706c616e))} }

// intn returns an int in [0, n).
func (g *rng) intn(n int) int { return g.r.IntN(n) }

// between returns an int in [lo, hi].
func (g *rng) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// chance returns true with probability p.
func (g *rng) chance(p float64) bool { return g.r.Float64() < p }

// pick returns one element of xs.
func pick[T any](g *rng, xs []T) T { return xs[g.r.IntN(len(xs))] }

// subset returns a random non-empty subset of xs of at most max elements,
// in the order of xs.
func subset[T any](g *rng, xs []T, max int) []T {
	if max > len(xs) {
		max = len(xs)
	}
	n := g.between(1, max)
	idx := g.r.Perm(len(xs))[:n]
	keep := make([]bool, len(xs))
	for _, i := range idx {
		keep[i] = true
	}
	var out []T
	for i, x := range xs {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}

// weighted returns the index chosen with the given weights.
func (g *rng) weighted(weights ...int) int {
	sum := 0
	for _, w := range weights {
		sum += w
	}
	x := g.r.IntN(sum)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}
