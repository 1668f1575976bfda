package disrupt

import (
	"fmt"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// Step is one comparison: nodeplan's next command on a cluster, the
// commands Karpenter's code found on it (distinct, in the order found) and
// the verdict.
type Step struct {
	Nodes     int
	Nodeplan  *Command
	Karpenter []*Command
	Verdict   Verdict
}

// Check compares nodeplan's next command on the cluster with Karpenter's,
// running Karpenter up to runs times (its ties fall by map order) until a
// run agrees (Same or Tie); the verdict is the best of the runs (Same, Tie,
// SameNodes, Packs, Differ).
func Check(c disruption.Cluster, pools []nodepool.NodePool, cat instancetypes.Catalog, now time.Time, o Options, runs int) (Step, *disruption.Command, error) {
	np, err := Nodeplan(c, pools, cat, now, o)
	if err != nil {
		return Step{}, nil, fmt.Errorf("nodeplan: %w", err)
	}
	step := Step{Nodes: len(c.Nodes), Nodeplan: np, Verdict: Differ}
	o.Alternative = np
	rank := map[Verdict]int{Same: 4, Tie: 3, SameNodes: 2, Packs: 1, Differ: 0}
	for range max(runs, 1) {
		k, err := Karpenter(c, pools, cat, now, o)
		if err != nil {
			return Step{}, nil, fmt.Errorf("karpenter: %w", err)
		}
		seen := false
		for _, x := range step.Karpenter {
			seen = seen || x.String() == k.String()
		}
		if !seen {
			step.Karpenter = append(step.Karpenter, k)
		}
		if v := Compare(np, k); rank[v] > rank[step.Verdict] {
			step.Verdict = v
		}
		if step.Verdict == Same || step.Verdict == Tie {
			break
		}
	}
	var raw *disruption.Command
	if np != nil {
		raw = np.raw
	}
	return step, raw, nil
}

// Follow walks nodeplan's Karpenter-faithful plan command by command (at
// most steps, 0: until none is left), checking each against Karpenter's
// code on the cluster the previous commands leave (disruption.Apply), and
// calls each with every step. Every step is a comparison on its own; the
// walk ends when nodeplan finds no command (Karpenter then has to find
// none either for the step to agree).
func Follow(c disruption.Cluster, pools []nodepool.NodePool, cat instancetypes.Catalog, now time.Time, o Options, steps, runs int, each func(Step)) error {
	for i := 0; steps == 0 || i < steps; i++ {
		step, raw, err := Check(c, pools, cat, now, o, runs)
		if err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
		each(step)
		if raw == nil {
			return nil
		}
		if c, err = disruption.Apply(c, *raw, pools, cat, now); err != nil {
			return fmt.Errorf("step %d: applying nodeplan's command: %w", i+1, err)
		}
	}
	return nil
}
