package scheduler

import (
	"slices"

	"github.com/nodeplan/nodeplan/topology"
)

// Emptying a NodeClaim, in the last phase (plandomains.go): while planning,
// a hostname spread always has an empty domain (a new node may come), so
// the node of a pod with a required hostname spread holds at most maxSkew
// pods its constraint selects, and the others go to nodes of their own.
// Once the plan's nodes are known, a node is no domain unless it launches:
// with one node fewer the minimum may rise, and the pods of a whole
// NodeClaim may fit the others. Moving them one at a time cannot show it
// (a claim half emptied still counts, holding the minimum down), so the
// phase takes the claim's node out of the domains first, moves every pod
// of the claim to the plan's other nodes (never new ones), and keeps the
// moves only when every placed pod's required topology holds on the nodes
// as they then launch and the plan's price drops; else everything goes
// back. Only a claim whose pods own no topology rules (others' rules
// merely count them) is emptied, so that no pod's own spread finds fewer
// domains than it was planned with. Inputs with reservations are left
// alone (a claim's price there depends on the order claims launch in).

// emptyInPlan tries to empty each claim of the plan into the others, the
// cheapest first.
func (s *solver) emptyInPlan() {
	if len(s.pending) > planDomainsMaxPods || !s.topo.HasSpread() || s.hasReservations || len(s.liveClaims()) < 2 {
		return
	}
	pn, reopen, ok := s.closeDomains()
	if !ok {
		return
	}
	defer reopen()
	budget := roomHosts
	for _, cl := range s.byPrice() {
		if budget <= 0 {
			return
		}
		if !cl.live() {
			continue
		}
		budget--
		if !s.emptyClaim(cl, pn) {
			return
		}
	}
}

// emptyClaim moves every pod of cl to the plan's other nodes, the largest
// first, and keeps the moves when the plan is then valid and cheaper. ok is
// false when the plan's nodes cannot be known again after an undo (the
// phase then stops).
func (s *solver) emptyClaim(cl *claim, pn *planNodes) (ok bool) {
	if slices.ContainsFunc(cl.pods, ownsTopology) {
		return true
	}
	before, placed := s.totalPrice(), s.placed()
	s.topo.CloseDomains(withoutNode(pn.nodes, cl.host))
	rt := &roomTry{cl: cl, state: s.snapshot(cl)}
	if s.moveAllOff(rt) {
		fresh, ok := s.newPlanNodes()
		if ok && len(fresh.nodes) == len(pn.nodes)-1 {
			s.topo.CloseDomains(fresh.nodes)
			if s.placed() == placed && s.topologyHolds() && s.totalPrice() < before-priceEps && fresh.price < pn.price-priceEps {
				*pn = *fresh
				return true
			}
		}
	}
	s.undrop(cl)
	s.putBackAll(rt)
	return s.relaunch(pn)
}

// moveAllOff moves every pod off the try's claim to other nodes or claims
// of the plan, none relaxing more preferences than it did; false at the
// first that cannot (the moves made stay in rt for putBackAll).
func (s *solver) moveAllOff(rt *roomTry) bool {
	for _, q := range bySizeDesc(rt.cl.pods) {
		if !s.moveOff(q, rt) {
			return false
		}
		if m := rt.moved[len(rt.moved)-1]; len(q.relaxed) > len(m.relaxed) {
			return false
		}
	}
	return rt.cl.dropped
}

// ownsTopology reports whether a pod has topology rules of its own, or
// others follow it on hostname (see above).
func ownsTopology(q *pending) bool {
	return q.cls.topo != nil && (len(q.cls.topo.Terms) > 0 || !q.cls.topo.Movable())
}

// withoutNode is nodes without the one named host.
func withoutNode(nodes []*topology.Node, host string) []*topology.Node {
	return slices.DeleteFunc(slices.Clone(nodes), func(n *topology.Node) bool { return n.Name == host })
}
