package compare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nodeplan/nodeplan/tools/karpdiff/gen"
	"github.com/nodeplan/nodeplan/tools/karpdiff/kubecheck"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

// Options configure a comparison.
type Options struct {
	// Seed is the first seed; scenario i has Seed+i.
	Seed  uint64
	Count int
	// Jobs is the number of scenarios solved at once.
	Jobs int
	// Out, when set, keeps every scenario folder and both plans there.
	Out string
	// KeepLosses, when set, receives a folder per losing scenario.
	KeepLosses string
	// Nodeplan is a nodeplan binary; empty solves in process.
	Nodeplan string
	// Self is the karpdiff binary that runs Karpenter in child processes.
	Self string
	// Runs is the number of Karpenter runs per scenario (the best checked
	// plan is kept).
	Runs int
	// Timeout bounds one Karpenter process.
	Timeout time.Duration
	// Progress receives a line every hundred scenarios (nil: none).
	Progress io.Writer
}

// Side is one solver's result on a scenario.
type Side struct {
	Placed  int `json:"placed"`
	Bound   int `json:"bound"`
	Refused int `json:"refused"`
	// OrderBound counts the bound pods that bind only in a favourable
	// order (kubecheck.Result.OrderBound).
	OrderBound int     `json:"orderBound,omitempty"`
	Price      float64 `json:"pricePerHour"`
	// Seconds is the solve time (nodeplan: Solve alone in process, the
	// process otherwise; Karpenter: its whole child process).
	Seconds      float64 `json:"seconds"`
	CheckSeconds float64 `json:"checkSeconds"`
	Err          string  `json:"error,omitempty"`
	Crash        bool    `json:"crash,omitempty"`

	plan  plan.Plan
	check kubecheck.Result
}

// Outcome is a scenario's comparison.
type Outcome struct {
	Seed      uint64 `json:"seed"`
	Family    string `json:"family"`
	Pods      int    `json:"pods"`
	Nodeplan  Side   `json:"nodeplan"`
	Karpenter Side   `json:"karpenter"`
	// Classes are the scenario's classes (see the package doc).
	Classes []string `json:"classes"`
	// Err is a failure of the harness itself (generation, check).
	Err string `json:"error,omitempty"`

	dir string
}

// Run compares Count scenarios and returns their outcomes in seed order.
func Run(ctx context.Context, o Options) ([]Outcome, error) {
	if o.Jobs < 1 {
		o.Jobs = 1
	}
	base := o.Out
	if base == "" {
		tmp, err := os.MkdirTemp("", "karpdiff-compare-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		base = tmp
	}
	out := make([]Outcome, o.Count)
	var wg sync.WaitGroup
	var mu sync.Mutex
	next, done := 0, 0
	for range o.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= o.Count || ctx.Err() != nil {
					return
				}
				out[i] = one(ctx, o, o.Seed+uint64(i), base)
				mu.Lock()
				done++
				if o.Progress != nil && done%100 == 0 {
					fmt.Fprintf(o.Progress, "karpdiff compare: %d of %d scenarios\n", done, o.Count)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.KeepLosses != "" {
		for _, oc := range out {
			if oc.Lost() {
				if err := keepLoss(o.KeepLosses, oc); err != nil {
					return out, err
				}
			}
		}
	}
	return out, nil
}

// one generates, solves, checks and classifies one scenario.
func one(ctx context.Context, o Options, seed uint64, base string) Outcome {
	oc := Outcome{Seed: seed}
	s, err := gen.Generate(seed)
	if err != nil {
		return failed(oc, err)
	}
	oc.Family, oc.Pods = s.Family, s.Pods
	oc.dir = filepath.Join(base, gen.DirName(seed))
	if err := s.Write(oc.dir); err != nil {
		return failed(oc, err)
	}
	sc, err := scenario.Load([]string{oc.dir}, filepath.Join(oc.dir, "catalog.json"))
	if err != nil {
		return failed(oc, err)
	}
	oc.Nodeplan = solveSide(func() (plan.Plan, float64, error) {
		if o.Nodeplan != "" {
			return solveNodeplanBinary(ctx, o.Nodeplan, oc.dir)
		}
		cj, err := os.ReadFile(filepath.Join(oc.dir, "catalog.json"))
		if err != nil {
			return plan.Plan{}, 0, err
		}
		return solveNodeplan(sc.Files, cj)
	})
	oc.Karpenter = solveSide(func() (plan.Plan, float64, error) {
		return solveKarpenter(ctx, o.Self, oc.dir, o.Runs, o.Timeout)
	})
	for _, sd := range []*Side{&oc.Nodeplan, &oc.Karpenter} {
		if err := checkSide(sc, sd); err != nil {
			oc.Err = err.Error()
		}
	}
	if o.Out != "" {
		writePlans(oc)
	}
	oc.Classes = classify(oc)
	return oc
}

func solveSide(solve func() (plan.Plan, float64, error)) Side {
	p, secs, err := solve()
	sd := Side{plan: p, Seconds: secs}
	if err != nil {
		sd.Err = err.Error()
		sd.Crash = errors.Is(err, errKarpenterCrash)
	}
	return sd
}

func checkSide(sc *scenario.Scenario, sd *Side) error {
	if sd.Err != "" {
		return nil
	}
	start := time.Now()
	res, err := kubecheck.Check(sc, sd.plan)
	sd.CheckSeconds = time.Since(start).Seconds()
	if err != nil {
		return err
	}
	sd.check = res
	sd.Placed, sd.Bound, sd.Refused = res.Placed, len(res.Bound), len(res.Refused)+len(res.Errors)
	sd.OrderBound = len(res.OrderBound)
	sd.Price = sd.plan.Summary.PricePerHour
	return nil
}

// Class names.
const (
	Fewer          = "fewer"
	FewerOrderOnly = "fewer-order-only"
	// CostlierOrderOnly marks a costlier scenario where Karpenter's plan
	// binds as many pods only with some of them in a favourable order:
	// nodeplan binds more of the pods that bind in any order.
	CostlierOrderOnly = "costlier-order-only"
	NodeplanOrder     = "nodeplan-order"
	Costlier          = "costlier"
	Refused           = "refused"
	More              = "more"
	Cheaper           = "cheaper"
	Same              = "same"
	NodeplanError     = "nodeplan-error"
	KarpenterRefused  = "karpenter-refused"
	KarpenterError    = "karpenter-error"
	KarpenterCrash    = "karpenter-crash"
	HarnessError      = "harness-error"
)

// failed is the outcome of a scenario the harness could not generate,
// write or load: a harness error, counted as one.
func failed(oc Outcome, err error) Outcome {
	oc.Err = err.Error()
	oc.Classes = []string{HarnessError}
	return oc
}

// classify names a scenario's classes. Costlier is judged at equal bound
// pods with a tolerance of 0.01% (and a thousandth of a cent).
func classify(oc Outcome) []string {
	np, k := oc.Nodeplan, oc.Karpenter
	var cls []string
	switch {
	case oc.Err != "":
		return []string{HarnessError}
	case np.Err != "":
		cls = append(cls, NodeplanError)
	case np.Refused > 0:
		cls = append(cls, Refused)
	}
	switch {
	case k.Crash:
		cls = append(cls, KarpenterCrash)
	case k.Err != "":
		cls = append(cls, KarpenterError)
	case k.Refused > 0:
		cls = append(cls, KarpenterRefused)
	}
	if np.Err != "" || k.Err != "" {
		return cls
	}
	if np.OrderBound > 0 {
		cls = append(cls, NodeplanOrder)
	}
	switch {
	case np.Bound < k.Bound:
		cls = append(cls, Fewer)
		if np.Bound-np.OrderBound >= k.Bound-k.OrderBound {
			cls = append(cls, FewerOrderOnly)
		}
	case np.Bound > k.Bound:
		cls = append(cls, More)
	case np.Price > k.Price*1.0001+1e-5:
		cls = append(cls, Costlier)
		if np.Bound-np.OrderBound > k.Bound-k.OrderBound {
			cls = append(cls, CostlierOrderOnly)
		}
	case k.Price > np.Price*1.0001+1e-5:
		cls = append(cls, Cheaper)
	default:
		cls = append(cls, Same)
	}
	return cls
}

// Has reports whether the outcome has a class.
func (oc Outcome) Has(class string) bool {
	for _, c := range oc.Classes {
		if c == class {
			return true
		}
	}
	return false
}

// Lost reports whether nodeplan lost: fewer, costlier, refused or an error
// of nodeplan.
func (oc Outcome) Lost() bool {
	return oc.Has(Fewer) || oc.Has(Costlier) || oc.Has(Refused) || oc.Has(NodeplanOrder) || oc.Has(NodeplanError)
}

// ratio is nodeplan's price over Karpenter's (1 when both are free).
func (oc Outcome) ratio() float64 {
	if oc.Karpenter.Price == 0 {
		if oc.Nodeplan.Price == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return oc.Nodeplan.Price / oc.Karpenter.Price
}
