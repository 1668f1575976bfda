package topology

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMinOverFollowsCounts checks minOver's memo: the minimum of a domain
// list follows every count change and CloseDomains' rewrite of the closed
// list in place (same first element and length, other domains).
func TestMinOverFollowsCounts(t *testing.T) {
	g := &group{}
	open := []int32{0, 1, 2}
	steps := []struct {
		name string
		do   func()
		ds   []int32
		want int32
	}{
		{"empty counts", func() {}, open, 0},
		{"one pod in each of 0 and 1, 2 empty", func() { g.add(0); g.add(1) }, open, 0},
		{"2 filled", func() { g.add(2) }, open, 1},
		{"asked again, nothing changed", func() {}, open, 1},
		{"a pod taken out of 1", func() { g.remove(1) }, open, 0},
		{"a pod back in 1, two in 0", func() { g.add(1); g.add(0) }, open, 1},
		{"closed list rewritten in place to 0 only", func() {
			g.closed = append(g.closed[:0], 0, 0, 0)[:3]
			g.closed[1], g.closed[2] = 0, 0
			g.ver++ // as CloseDomains does
		}, nil, 2},
	}
	g.closed = []int32{1, 2, 0}
	for _, st := range steps {
		st.do()
		ds := st.ds
		if ds == nil {
			ds = g.closed
		}
		if got := g.minOver(ds); got != st.want {
			t.Errorf("%s: minOver(%v) = %d, want %d (counts %v)", st.name, ds, got, st.want, g.count)
		}
	}
}

// TestMinOverFollowsChangesIncrementally drives one group through random
// count changes, asking after each for the minimum of an ascending list
// (whose memo follows the changes), an unsorted one and a list with a
// repeated domain, and compares every answer with a scan.
func TestMinOverFollowsChangesIncrementally(t *testing.T) {
	lists := map[string][]int32{
		"ascending":  {0, 2, 3, 5, 7},
		"unsorted":   {5, 1, 3},
		"repeated":   {1, 1, 4},
		"every":      {0, 1, 2, 3, 4, 5, 6, 7},
		"one domain": {6},
	}
	names := []string{"ascending", "unsorted", "repeated", "every", "one domain"}
	scan := func(g *group, ds []int32) int32 {
		m := int32(math.MaxInt32)
		for _, d := range ds {
			m = min(m, g.get(d))
		}
		return m
	}
	for _, ask := range names {
		t.Run(ask, func(t *testing.T) {
			g := &group{}
			r := rand.New(rand.NewPCG(1, 2))
			for step := range 5000 {
				d := int32(r.IntN(8))
				if r.IntN(2) == 0 {
					g.add(d)
				} else {
					g.remove(d)
				}
				name := ask
				if step%7 == 0 { // now and then another list in between
					name = names[r.IntN(len(names))]
				}
				if got, want := g.minOver(lists[name]), scan(g, lists[name]); got != want {
					t.Fatalf("step %d, %s: minOver = %d, want %d (counts %v)", step, name, got, want, g.count)
				}
			}
		})
	}
}
