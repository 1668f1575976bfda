package disruption

import (
	"runtime"
	"sync"
)

// Simulations of different candidates at the same model state are
// independent, so single-node consolidation and the global search's single
// nodes try a window of them at once, one per core: each writes its own
// slot, and the slots are read in candidate order, so the first success
// (and everything remembered) is what one at a time would give. Results
// past the first success are dropped unremembered. Multi-node
// consolidation's binary search runs ahead the same way: the probes it
// makes if each goes the way the last one went (down while they fail, up
// while they are valid), at once (probeAhead), remembered in the search's
// order as it reaches them. Only the work done (Stats) depends on the
// number of cores.

// workers is how many simulations run at once.
func (m *model) workers() int {
	if m.cfg.parallelism > 0 {
		return m.cfg.parallelism
	}
	return min(runtime.GOMAXPROCS(0), maxWorkers)
}

// maxWorkers caps the default parallelism: more rarely pays, since a
// window stops at its first success.
const maxWorkers = 8

// each runs f(i) for every i in [0, n) on up to m.workers() goroutines.
func (m *model) each(n int, f func(i int)) {
	w := min(m.workers(), n)
	if w <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// trial is the outcome of one candidate's simulation in a window.
type trial struct {
	key string
	p   *proposal
	g   *globalProposal
	w   *why
	sim *simulation
	hit bool // the cache answered
	err error
}

// firstSuccess runs try over the candidates window by window and calls
// judge on each trial in order until it returns true (a success to act on);
// failures before it are remembered in the cache and reported to fail.
func (m *model) firstSuccess(cs []*candidate, try func(*candidate) trial, judge func(*candidate, trial) bool, fail func(*candidate, *why)) (int, error) {
	window := max(m.workers(), 1)
	for start := 0; start < len(cs); start += window {
		batch := cs[start:min(start+window, len(cs))]
		trials := make([]trial, len(batch))
		m.each(len(batch), func(i int) { trials[i] = try(batch[i]) })
		for i, t := range trials {
			if t.err != nil {
				return -1, t.err
			}
			if t.w == nil && judge(batch[i], t) {
				return start + i, nil
			}
			if t.w != nil && !t.hit && t.w.code != KeepBalanced {
				m.remember(t.key, t.sim, t.w)
			}
			if t.w != nil {
				fail(batch[i], t.w)
			}
		}
	}
	return -1, nil
}
