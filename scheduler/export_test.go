package scheduler

import (
	"fmt"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PhaseReport runs Solve phase by phase and reports the CPU time of each
// and the price before and after improvement (tests only).
func PhaseReport(pods []*corev1.Pod, pools []nodepool.NodePool, cat instancetypes.Catalog, opts ...Option) (string, error) {
	t0 := cpuNow()
	cfg, err := resolveFor(cat, opts)
	if err != nil {
		return "", err
	}
	s, err := newSolver(pods, pools, cat, cfg)
	if err != nil {
		return "", err
	}
	t1 := cpuNow()
	s.run()
	t2 := cpuNow()
	before := 0.0
	for _, cl := range s.liveClaims() {
		before += cl.price
	}
	budget := defaultBudgetPerPod * len(s.pending)
	s.improveWith(&budget)
	t3 := cpuNow()
	res := s.result()
	t4 := cpuNow()
	return fmt.Sprintf("prep %v run %v improve %v result %v (total %v); greedy $%.2f -> $%.2f (bound %.2f) nodes %d placed %d/%d budget left %d",
		t1-t0, t2-t1, t3-t2, t4-t3, t4-t0, before, res.Summary.PricePerHour, res.Summary.PriceLowerBound,
		res.Summary.NodeClaims, res.Summary.Scheduled, res.Summary.Pods, budget), nil
}

// WithWorkers sets how many goroutines a solve runs its independent work
// on (tests only: the plan must not depend on it).
func WithWorkers(n int) Option { return func(c *config) { c.workers = n } }

// ImprovePrices runs the greedy placement of nodeplan's own plan, then the
// improvement phase, and returns the plan's price before and after it
// (tests only).
func ImprovePrices(pods []*corev1.Pod, pools []nodepool.NodePool, cat instancetypes.Catalog, opts ...Option) (before, after float64, err error) {
	cfg, err := resolveFor(cat, opts)
	if err != nil {
		return 0, 0, err
	}
	s, err := newSolver(pods, pools, cat, cfg)
	if err != nil {
		return 0, 0, err
	}
	s.run()
	before = s.totalPrice()
	s.improve()
	return before, s.totalPrice(), nil
}
