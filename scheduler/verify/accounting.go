package verify

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// run checks every constraint; violations accumulate in v.out.
func (v *verifier) run() {
	v.account()
	v.resolveClaims()
	for _, c := range v.claims {
		v.checkClaim(c)
	}
	v.checkPlacements()
	v.checkExistingNodes()
	v.checkLimits()
	v.checkReservations()
	v.checkTopology()
	v.checkSummary()
}

// account checks that every pending pod appears exactly once and attaches
// each placed pod (at its first appearance) to its node.
func (v *verifier) account() {
	where := map[string][]string{} // pod → where the plan lists it
	v.accountClaims(where)
	for _, np := range v.plan.ExistingNodes {
		vn := v.placementNode(np)
		for _, name := range np.Pods {
			where[name] = append(where[name], "existing node "+np.Name)
			if p := v.byName[name]; p != nil && p.host == nil && vn != nil {
				p.host = vn
				vn.pods = append(vn.pods, p)
			}
		}
	}
	for _, pe := range v.plan.PodErrors {
		where[pe.Pod] = append(where[pe.Pod], "podErrors")
	}
	// Pods in name order on every node, whatever the order of the input
	// and of the plan's lists, so that every message is deterministic.
	for _, n := range v.nodes {
		slices.SortStableFunc(n.pods, func(a, b *vpod) int { return strings.Compare(a.name, b.name) })
	}
	for _, c := range v.claims {
		slices.SortStableFunc(c.pods, func(a, b *vpod) int { return strings.Compare(a.name, b.name) })
		c.node.pods = c.pods
	}
	v.checkAppearances(where)
}

// accountClaims indexes the plan's NodeClaims, checks their names and that
// each has pods, and attaches their pods.
func (v *verifier) accountClaims(where map[string][]string) {
	names := map[string]bool{}
	for i := range v.plan.NodeClaims {
		nc := &v.plan.NodeClaims[i]
		c := &vclaim{nc: nc, requests: vres{}, eff: map[string]requirements.Requirement{}}
		c.node = &vnode{name: nc.Name, claim: c}
		v.claims = append(v.claims, c)
		switch {
		case nc.Name == "":
			v.report(Violation{Code: scheduler.ReasonAccounting, NodePool: nc.NodePool, Message: fmt.Sprintf("NodeClaim #%d has no name", i)})
		case names[nc.Name]:
			v.report(Violation{Code: scheduler.ReasonAccounting, NodeClaim: nc.Name, Message: "two NodeClaims have this name (a name is a hostname domain)"})
		}
		names[nc.Name] = true
		if len(nc.Pods) == 0 {
			v.report(Violation{Code: scheduler.ReasonAccounting, NodeClaim: nc.Name, Message: "NodeClaim has no pods"})
		}
		for _, name := range nc.Pods {
			where[name] = append(where[name], "NodeClaim "+nc.Name)
			if p := v.byName[name]; p != nil && p.host == nil {
				p.host = c.node
				c.pods = append(c.pods, p)
				c.node.pods = append(c.node.pods, p)
				c.requests.add(p.requests)
			}
		}
	}
}

// checkAppearances checks that every pending pod appears exactly once and
// that the plan names no other pod.
func (v *verifier) checkAppearances(where map[string][]string) {
	for _, p := range v.pending {
		switch n := len(where[p.name]); {
		case n == 0:
			v.report(Violation{Code: scheduler.ReasonAccounting, Pod: p.name, Message: "pending pod is missing from the plan (not on a NodeClaim, an existing node or in podErrors)"})
		case n > 1:
			v.report(Violation{Code: scheduler.ReasonAccounting, Pod: p.name, Message: fmt.Sprintf("pod appears %d times: %s", n, strings.Join(where[p.name], ", "))})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(where)) {
		if v.byName[name] == nil {
			v.report(Violation{Code: scheduler.ReasonAccounting, Pod: name, Message: fmt.Sprintf("the plan names a pod that is not a pending pod of the input (in %s)", strings.Join(where[name], ", "))})
		}
	}
}

// placementNode returns the existing node a placement names, reporting a
// node that is not given or is being deleted.
func (v *verifier) placementNode(np scheduler.NodePlacement) *vnode {
	if vn, ok := v.nodeIdx[np.Name]; ok {
		return vn
	}
	msg := "the node is not an existing node of the input"
	if n, ok := v.given[np.Name]; ok && n.DeletionTimestamp != nil {
		msg = "the node is being deleted"
	}
	for _, p := range np.Pods {
		v.report(Violation{Code: scheduler.ReasonExistingNode, Node: np.Name, Pod: p, Message: msg})
	}
	if len(np.Pods) == 0 {
		v.report(Violation{Code: scheduler.ReasonExistingNode, Node: np.Name, Message: msg})
	}
	return nil
}

// checkSummary checks the plan's totals.
func (v *verifier) checkSummary() {
	s := v.plan.Summary
	scheduled := 0
	for _, p := range v.pending {
		if p.host != nil {
			scheduled++
		}
	}
	sum := 0.0
	for _, nc := range v.plan.NodeClaims {
		sum += nc.Price
	}
	bad := func(format string, args ...any) {
		v.report(Violation{Code: scheduler.ReasonSummary, Message: fmt.Sprintf(format, args...)})
	}
	if s.Pods != len(v.pending) {
		bad("summary.pods is %d, the input has %d pending pods", s.Pods, len(v.pending))
	}
	if s.Scheduled != scheduled {
		bad("summary.scheduled is %d, the plan places %d pods", s.Scheduled, scheduled)
	}
	if s.NodeClaims != len(v.plan.NodeClaims) {
		bad("summary.nodeClaims is %d, the plan has %d", s.NodeClaims, len(v.plan.NodeClaims))
	}
	const eps = 1e-6
	if math.Abs(s.PricePerHour-sum) > eps*max(1, sum) {
		bad("summary.pricePerHour is %v, the NodeClaims' prices sum to %v", s.PricePerHour, sum)
	}
	if s.PriceLowerBound < 0 || s.PriceLowerBound > s.PricePerHour+eps*max(1, s.PricePerHour) {
		bad("summary.priceLowerBound %v is not within [0, pricePerHour %v]", s.PriceLowerBound, s.PricePerHour)
	}
}
