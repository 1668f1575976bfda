package disruption

import (
	"reflect"
	"slices"
	"strings"
)

// explain lists every node once: the disrupted ones with their command,
// the others with the reason they stay. whys holds what the last round
// found; next is the command the plan stopped before (WithMaxCommands).
func (m *model) explain(whys map[*node]*why, next *proposal) ([]NodeState, error) {
	var out []NodeState
	for _, n := range m.gone {
		out = append(out, m.state(n, nil))
	}
	inNext := map[*node]bool{}
	if next != nil {
		for _, c := range next.cands {
			inNext[c.n] = true
		}
	}
	var drifted *budgetMap // the Drifted budgets, made when a kept node is drifted
	for _, n := range m.nodes {
		w := whys[n]
		if inNext[n] {
			w = keep(KeepLater, Details{Savings: ptr(roundPrice(next.savings()))})
		}
		if w == nil {
			var err error
			if w, err = m.whyKept(n, &drifted); err != nil {
				return nil, err
			}
		}
		out = append(out, m.state(n, w))
	}
	slices.SortFunc(out, func(a, b NodeState) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// whyKept finds the rule that keeps a node the last round did not look at
// (or looked at without a verdict): the Drifted budget of a drifted node
// Drift or StaticDrift would take but for it, the generic rules, consolidation's
// filters, the budget of an empty node, and last a single-node
// consolidation of the node alone.
func (m *model) whyKept(n *node, drifted **budgetMap) (*why, error) {
	if w := m.driftBudgetHeld(n, drifted); w != nil {
		return w, nil
	}
	c, w := m.newCandidate(n, graceful)
	if w != nil {
		return w, nil
	}
	if w := m.consolidationRules(c); w != nil {
		return w, nil
	}
	if c.empty() {
		return m.budgets(ReasonEmpty).why[n.poolName], nil
	}
	if w, ok := m.underutilizedRules(c); !ok {
		return w, nil
	}
	if m.budgets(ReasonUnderutilized).left[n.poolName] == 0 {
		return m.budgets(ReasonUnderutilized).why[n.poolName], nil
	}
	p, w, err := m.consolidate([]*candidate{c}, MethodSingleNode)
	if err != nil || w != nil {
		return w, err
	}
	return keep(KeepLater, Details{Savings: ptr(roundPrice(p.savings()))}), nil
}

// state is the NodeState of a node; w is nil for a disrupted node.
func (m *model) state(n *node, w *why) NodeState {
	s := NodeState{Name: n.name, NodePool: n.poolName, InstanceType: n.obj.Labels["node.kubernetes.io/instance-type"],
		Price: n.price, Disrupted: n.disruptedBy > 0, Command: n.disruptedBy, CreatedBy: n.createdBy}
	for _, p := range n.pods {
		if p.active() {
			s.Pods++
		}
	}
	if s.Disrupted {
		s.Pods = n.podsAtRemoval
	}
	if w != nil && !s.Disrupted {
		s.Reason, s.Message = w.code, w.message()
		if d := w.d; !isZero(d) {
			s.Details = &d
		}
	}
	return s
}

func isZero(d Details) bool { return reflect.ValueOf(d).IsZero() }

// driftBudgetHeld is the Drifted budget's reason when n is drifted, may be
// disrupted (the eventual class's rules), and its pool has no budget left
// for Drifted: Drift (or StaticDrift) passed it over for that (D-022);
// else nil. *b holds the Drifted budgets, made on the first drifted node.
func (m *model) driftBudgetHeld(n *node, b **budgetMap) *why {
	if n.drift == nil || n.pool == nil {
		return nil
	}
	if *b == nil {
		bm := m.budgets(ReasonDrifted)
		*b = &bm
	}
	if (*b).left[n.poolName] != 0 {
		return nil
	}
	if _, w := m.newCandidate(n, eventual); w != nil {
		return nil
	}
	return (*b).why[n.poolName]
}
