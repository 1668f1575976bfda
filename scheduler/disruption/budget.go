package disruption

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/nodepool"
)

// budget is one spec.disruption.budgets entry, parsed.
type budget struct {
	count    int  // nodes as a count
	percent  bool // nodes as a percentage (count holds the percent)
	reasons  []Reason
	schedule *Schedule
	duration time.Duration
}

// defaultBudgets is the CRD default when spec.disruption.budgets is absent:
// one budget of 10%.
func defaultBudgets() []budget { return []budget{{count: 10, percent: true}} }

// parseBudgets reads a NodePool's budgets; a bad value or schedule is an
// error naming the field (Karpenter would fail closed: allow nothing).
func parseBudgets(np nodepool.NodePool) ([]budget, error) {
	if np.Spec.Disruption == nil || np.Spec.Disruption.Budgets == nil {
		return defaultBudgets(), nil
	}
	var out []budget
	for i, b := range np.Spec.Disruption.Budgets {
		path := fmt.Sprintf("spec.disruption.budgets[%d]", i)
		bad := func(field, msg string) error {
			return &InputError{Kind: "NodePool", Name: np.Name, Field: path + field, Message: msg}
		}
		pb, err := parseBudgetNodes(b.Nodes)
		if err != nil {
			return nil, bad(".nodes", err.Error())
		}
		for _, r := range b.Reasons {
			pb.reasons = append(pb.reasons, Reason(r))
		}
		if (b.Schedule == nil) != (b.Duration == nil) {
			return nil, bad("", "schedule and duration must be set together")
		}
		if b.Schedule != nil {
			s, err := ParseSchedule(*b.Schedule)
			if err != nil {
				return nil, bad(".schedule", err.Error())
			}
			pb.schedule, pb.duration = &s, b.Duration.Duration
		}
		out = append(out, pb)
	}
	return out, nil
}

// parseBudgetNodes reads "N" or "P%" (P at most 100).
func parseBudgetNodes(s string) (budget, error) {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.Atoi(pct)
		if err != nil || p < 0 || p > 100 || strings.HasPrefix(pct, "+") {
			return budget{}, fmt.Errorf("%q: a percentage must be 0%% to 100%%", s)
		}
		return budget{count: p, percent: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return budget{}, fmt.Errorf("%q: want a count (\"10\") or a percentage (\"10%%\")", s)
	}
	return budget{count: n}, nil
}

// active reports whether the budget applies at now: always without a
// schedule; with one, when the schedule fired within the last duration
// (its next firing after now − duration is not after now).
func (b budget) active(now time.Time) bool {
	if b.schedule == nil {
		return true
	}
	next := b.schedule.Next(now.Add(-b.duration))
	return !next.IsZero() && !next.After(now)
}

func (b budget) appliesTo(r Reason) bool { return len(b.reasons) == 0 || slices.Contains(b.reasons, r) }

// value is the budget's node count for a pool of n nodes: a count, or a
// percentage of n rounded up (10% of 5 → 1, 50% of 3 → 2).
func (b budget) value(n int) int {
	if !b.percent {
		return b.count
	}
	return (b.count*n + 99) / 100
}

// allowedDisruptions is the tightest active budget for a reason (MaxInt32
// when none applies), before subtracting the nodes already disrupting.
func allowedDisruptions(bs []budget, r Reason, nodes int, now time.Time) int {
	allowed := math.MaxInt32
	for _, b := range bs {
		if b.appliesTo(r) && b.active(now) {
			allowed = min(allowed, b.value(nodes))
		}
	}
	return allowed
}

// budgetMap is what each NodePool may still disrupt for one reason in this
// round (C): the tightest active budget, computed over the pool's managed,
// initialized nodes (not InstanceTerminating), minus those already
// disrupting (NotReady or being deleted), never below 0.
type budgetMap struct {
	reason Reason
	left   map[string]int
	why    map[string]*why
}

func (m *model) budgets(r Reason) budgetMap {
	count, disrupting := map[string]int{}, map[string]int{}
	for _, n := range m.nodes {
		if !n.managed || !n.initialized || n.terminated {
			continue
		}
		count[n.poolName]++
		if !n.ready || n.deleting {
			disrupting[n.poolName]++
		}
	}
	out := budgetMap{reason: r, left: map[string]int{}, why: map[string]*why{}}
	for _, p := range m.pools {
		allowed := allowedDisruptions(p.budgets, r, count[p.name], m.now)
		out.left[p.name] = max(allowed-disrupting[p.name], 0)
		out.why[p.name] = keep(KeepBudget, Details{NodePool: p.name, DisruptionReason: r,
			Allowed: ptr(allowed), Disrupting: ptr(disrupting[p.name])})
	}
	return out
}

// take uses one disruption of a pool's budget; false when none is left.
func (b budgetMap) take(pool string) bool {
	if b.left[pool] <= 0 {
		return false
	}
	b.left[pool]--
	return true
}
