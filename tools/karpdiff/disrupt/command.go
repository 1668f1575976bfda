package disrupt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// Command is a disruption command in the terms both tools share: the
// method that found it, delete or replace, the nodes it disrupts and the
// NodeClaims it launches.
type Command struct {
	Method       disruption.Method   `json:"method"`
	Decision     disruption.Decision `json:"decision"`
	Nodes        []string            `json:"nodes"`
	Replacements []Replacement       `json:"replacements,omitempty"`
	// ties keys Karpenter's candidates that its order leaves to chance
	// (tieKeys); nil for nodeplan's commands.
	ties map[string]string
	// packs names the node of Options.Alternative when Karpenter, trying
	// it alone, finds no command (see singleNodeAlternative).
	packs string
	// raw is nodeplan's command itself (nil for Karpenter's).
	raw *disruption.Command
}

// Replacement is a NodeClaim a command launches: its NodePool, the
// instance types it may launch as, and the price of the cheapest available
// offering among them (what it costs at best; -1: none).
type Replacement struct {
	NodePool      string   `json:"nodePool"`
	InstanceTypes []string `json:"instanceTypes"`
	Price         float64  `json:"price"`
	// Pods counts the pods the simulation put on it (DaemonSet pods
	// aside).
	Pods int `json:"pods"`
}

func (c *Command) String() string {
	if c == nil {
		return "no command"
	}
	s := fmt.Sprintf("%s %s %s", c.Method, c.Decision, strings.Join(c.Nodes, ","))
	for _, r := range c.Replacements {
		s += fmt.Sprintf(" -> %s $%.4f/h (%d types)", r.NodePool, r.Price, len(r.InstanceTypes))
	}
	return s
}

func sortReplacements(rs []Replacement) {
	slices.SortFunc(rs, func(a, b Replacement) int {
		return cmp.Or(cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.Price, b.Price))
	})
}

// Nodeplan returns the first command of nodeplan's Karpenter-faithful
// search (`nodeplan consolidate --next`), leaving out expirations (not a
// method of Karpenter's disruption controller: its expiration controller
// deletes the NodeClaim).
func Nodeplan(c disruption.Cluster, pools []nodepool.NodePool, cat instancetypes.Catalog, now time.Time, o Options) (*Command, error) {
	opts := []disruption.Option{disruption.WithMaxCommands(1), disruption.WithoutRepack()}
	if o.SpotToSpot {
		opts = append(opts, disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes))
	}
	res, err := disruption.Plan(c, pools, cat, now, opts...)
	if err != nil {
		return nil, err
	}
	for i := range res.Commands {
		cmd := res.Commands[i]
		if cmd.Method == disruption.MethodExpiration {
			continue
		}
		out := &Command{Method: cmd.Method, Decision: cmd.Decision, raw: &cmd}
		for _, n := range cmd.Nodes {
			out.Nodes = append(out.Nodes, n.Name)
		}
		slices.Sort(out.Nodes)
		for _, r := range cmd.Replacements {
			types := slices.Clone(r.InstanceTypeOptions)
			slices.Sort(types)
			out.Replacements = append(out.Replacements, Replacement{NodePool: r.NodePool, InstanceTypes: types, Price: r.Price, Pods: len(r.Pods)})
		}
		sortReplacements(out.Replacements)
		return out, nil
	}
	return nil, nil
}

// Verdict classifies nodeplan's command against Karpenter's.
type Verdict string

const (
	// Same: the same method, decision, nodes, replacement pools and
	// cheapest replacement price (no command from either counts too).
	Same Verdict = "same"
	// SameNodes: the same method, decision and nodes; the replacements
	// differ in price or instance types.
	SameNodes Verdict = "same-nodes"
	// Tie: the same method, decision and replacements, and nodes
	// Karpenter's order could have picked instead of its own: candidates
	// equal under its sort (tieKeys), as many of each key.
	Tie Verdict = "tie"
	// Packs: nodeplan's single-node command disrupts a node Karpenter
	// tries no later than its own but cannot consolidate (or only by a
	// replacement where nodeplan deletes), or both disrupt the same nodes
	// and nodeplan deletes them where Karpenter replaces them, or its
	// replacements hold fewer pods and cost less: Karpenter's simulation does not place pods on the remaining
	// nodes where nodeplan's Solve does (a better packing, not another
	// rule).
	Packs Verdict = "packs"
	// Differ: another method, decision or node set, or one tool finds a
	// command and the other none.
	Differ Verdict = "differ"
)

// Compare classifies nodeplan's command n against Karpenter's k.
func Compare(n, k *Command) Verdict {
	if n == nil || k == nil {
		if n == nil && k == nil {
			return Same
		}
		return Differ
	}
	if n.Method != k.Method {
		return Differ
	}
	same := slices.Equal(n.Nodes, k.Nodes)
	if (!same && len(n.Nodes) == 1 && k.packs == n.Nodes[0]) ||
		(same && n.Decision == disruption.DecisionDelete && k.Decision == disruption.DecisionReplace) {
		return Packs
	}
	if n.Decision != k.Decision || len(n.Replacements) != len(k.Replacements) {
		return Differ
	}
	if !same && !tied(n.Nodes, k.Nodes, k.ties) {
		return Differ
	}
	for i := range n.Replacements {
		a, b := n.Replacements[i], k.Replacements[i]
		if a.NodePool != b.NodePool || math.Abs(a.Price-b.Price) > 1e-9 {
			switch {
			case !same:
				return Differ
			case replacementPods(n) < replacementPods(k) && a.Price < b.Price:
				return Packs
			}
			return SameNodes
		}
	}
	if !same {
		return Tie
	}
	return Same
}

func replacementPods(c *Command) int {
	n := 0
	for _, r := range c.Replacements {
		n += r.Pods
	}
	return n
}

// tied reports whether node sets a and b hold as many candidates of each
// tie key, every node of both having one.
func tied(a, b []string, keys map[string]string) bool {
	if len(a) != len(b) || keys == nil {
		return false
	}
	count := map[string]int{}
	for _, n := range a {
		k, ok := keys[n]
		if !ok {
			return false
		}
		count[k]++
	}
	for _, n := range b {
		k, ok := keys[n]
		if !ok {
			return false
		}
		count[k]--
	}
	for _, c := range count {
		if c != 0 {
			return false
		}
	}
	return true
}
