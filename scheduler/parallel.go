package scheduler

import (
	"runtime"
	"sync"
)

// parallelChunks calls do on consecutive ranges [from, to) that cover
// [0, n), on up to workers goroutines (in this one when workers is 1 or
// the work small). The ranges are fixed by n alone, so that what do writes
// per index never depends on the number of workers or their timing.
func parallelChunks(n, workers int, do func(from, to int)) {
	const chunk = 64
	chunks := (n + chunk - 1) / chunk
	if workers = min(workers, chunks); workers <= 1 {
		for c := range chunks {
			do(c*chunk, min(n, (c+1)*chunk))
		}
		return
	}
	next := make(chan int, chunks)
	for c := range chunks {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range next {
				do(c*chunk, min(n, (c+1)*chunk))
			}
		})
	}
	wg.Wait()
}

// workerCount is how many goroutines a solve may run its independent work
// on (class keys, finalising NodeClaims): the option's, else GOMAXPROCS.
func (c *config) workerCount() int {
	if c.workers > 0 {
		return c.workers
	}
	return runtime.GOMAXPROCS(0)
}

// live reports whether the claim holds pods (it is neither dropped nor empty).
func (cl *claim) live() bool {
	return !cl.dropped && len(cl.pods) > 0
}
