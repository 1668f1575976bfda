package scheduler

import (
	"maps"
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Once a plan opens no more NodeClaims its nodes are known, and so are the
// domains kube-scheduler takes a spread's global minimum over: those of the
// nodes (existing, and each NodeClaim as it launches) that pass the
// constraint's node filter. While planning, every value a NodePool can
// launch with counts as a domain (a zone no node of the plan is in holds
// zero pods), and hostname always has an empty one (a new node), which caps
// every domain at maxSkew. The last phase, on the plan Solve keeps, places
// the pods left out on the nodes it has, the minimum taken over the plan's
// domains: a zone spread whose pods can only use nodes of one zone, or a
// hostname spread whose only eligible node is an existing one, no longer
// keeps them out. It makes room where it must (planroom.go). Each pod it
// places is kept only if every placed pod's required topology still holds
// on the plan's nodes as they then launch; else the pod and its node
// return to what they were. Then it empties the claims it can into the
// others (planempty.go). Before all that, a pod whose hostname affinity
// targets all sit in domains its other rules refuse joins one moved to
// another domain (beside_across.go).

// closePlan runs the last phase on the plan Solve keeps: only on that one,
// so that the plans compared, and which of them is kept, are those of the
// phases before, and the phase only ever adds pods to it (and drops the
// claims it empties). A plan whose finalisation dropped a claim (its pods
// still counted where the claim would have been) is left as it is;
// otherwise it is finalised again.
func (s *solver) closePlan() {
	if s.final != nil {
		if slices.ContainsFunc(s.claims, func(cl *claim) bool { return cl.dropped && len(cl.pods) > 0 }) {
			return
		}
		s.final = nil
	}
	s.placeAcross()
	s.placeInPlanDomains()
	s.emptyInPlan()
}

// planDomainsMaxPods bounds the inputs that get the phase: each pod it
// places checks every placed pod's topology again.
const planDomainsMaxPods = 2000

// closeDomains fixes the spread domains to the plan's nodes as they will
// launch, when the plan holds so (it does not when it relies on an open
// domain, for minDomains), and forgets what placing learnt while the
// domains were open; reopen undoes both.
func (s *solver) closeDomains() (pn *planNodes, reopen func(), ok bool) {
	pn, ok = s.newPlanNodes()
	if !ok {
		return nil, nil, false
	}
	s.topo.CloseDomainsFrom(pn.nodes, len(s.existing))
	if !s.topologyHolds() {
		s.topo.OpenDomains()
		return nil, nil, false
	}
	noRoom := s.noRoom
	s.noRoom = nil
	for _, c := range s.classes {
		clear(c.cursors)
	}
	return pn, func() {
		s.noRoom = noRoom
		s.topo.OpenDomains()
	}, true
}

// placeInPlanDomains places the pods left unplaced on the plan's nodes,
// spread minimums taken over the plan's domains (see above).
func (s *solver) placeInPlanDomains() {
	if len(s.pending) > planDomainsMaxPods || !s.topo.HasSpread() || s.placed() == len(s.pending) {
		return
	}
	pn, reopen, ok := s.closeDomains()
	if !ok {
		return
	}
	defer reopen()
	budget := roomHosts
	failed := map[*class]bool{}
	for _, pp := range s.queue() {
		if placedOn(pp) || pp.cls.invalid != nil || failed[pp.cls] {
			continue
		}
		placed, ok := s.placeInPlan(pp, pn, &budget)
		if !ok {
			return
		}
		if !placed {
			failed[pp.cls] = true
		}
	}
}

// placeInPlan places pp on the plan's nodes, making room if it must, and
// keeps it there only if every placed pod's topology holds on the nodes as
// they then launch. ok is false when the plan's nodes cannot be known
// again after an undo (the phase then stops).
func (s *solver) placeInPlan(pp *pending, pn *planNodes, budget *int) (placed, ok bool) {
	snaps := s.claimSnapshots()
	var rt *roomTry
	if !s.placeOnPlanned(pp) {
		if rt, placed = s.placeWithRoom(pp, budget); !placed {
			return false, true
		}
	}
	if s.relaunch(pn) && s.topologyHolds() {
		return true, true
	}
	s.undoPlanned(pp, snaps)
	if rt != nil {
		s.putBackAll(rt)
	}
	return false, s.relaunch(pn)
}

// relaunch recomputes the plan's nodes and closes the domains on them;
// false when a claim would not launch or a new one appeared.
func (s *solver) relaunch(pn *planNodes) bool {
	fresh, ok := s.newPlanNodes()
	if !ok || len(fresh.nodes) != len(pn.nodes) {
		return false
	}
	*pn = *fresh
	s.topo.CloseDomainsFrom(pn.nodes, len(s.existing))
	return true
}

// placeOnPlanned places pp on an existing node or a planned NodeClaim,
// never a new one, relaxing preferences as needed.
func (s *solver) placeOnPlanned(pp *pending) bool {
	c := pp.cls
	for level := 0; level <= len(c.steps); level++ {
		for alt := range c.alts {
			if a, ok := s.newAttempt(c, alt, level, false); ok && s.tryPlace(pp, a) {
				pp.relaxed = c.relaxedAt(level)
				return true
			}
		}
	}
	return false
}

// claimSnapshots is the state of every live claim.
func (s *solver) claimSnapshots() map[*claim]claimState {
	out := map[*claim]claimState{}
	for _, cl := range s.claims {
		if cl.live() {
			out[cl] = s.snapshot(cl)
		}
	}
	return out
}

// undoPlanned takes pp off where placeOnPlanned put it, its claim returned
// to the state it had before.
func (s *solver) undoPlanned(pp *pending, snaps map[*claim]claimState) {
	cl := pp.claim
	if cl == nil {
		s.takeOff(pp)
		return
	}
	s.undoInto(cl, snaps[cl], func() { s.takeOff(pp) })
}

// topologyHolds reports whether every placed pod's required topology rules
// hold where it is, against all the others (settle's check).
func (s *solver) topologyHolds() bool {
	for _, pp := range s.pending {
		if placedOn(pp) && s.topologyBreaks(pp) {
			return false
		}
	}
	return true
}

// topologyBreaks reports whether placed pod pp's required topology rules
// fail where it is, against all the other pods.
func (s *solver) topologyBreaks(pp *pending) bool {
	c := pp.cls
	if !c.topo.Relevant() {
		return false
	}
	required := func(int) bool { return false }
	host := s.hostOf(pp)
	s.topo.Unrecord(c.topo, required, &host)
	_, v := s.topo.Check(c.topo, required, &host, nil)
	s.topo.Record(c.topo, required, &host)
	return v != nil
}

// planNodes is the plan's nodes as topology sees them: the existing nodes,
// then each live claim as the node it launches.
type planNodes struct {
	nodes []*topology.Node
	price float64 // what the claims launch at
}

// newPlanNodes returns the plan's nodes; false when a claim would not
// launch. With capacity reservations the claims launch in finalisation's
// order (those that held a reservation while planned first), each taking
// the place it launches on.
func (s *solver) newPlanNodes() (*planNodes, bool) {
	pn := &planNodes{}
	for _, en := range s.existing {
		pn.nodes = append(pn.nodes, en.topo)
	}
	used := map[string]int{}
	left := binpack.ReservationsLeft(func(id string) int { return s.resCap[id] - used[id] })
	for _, holders := range []bool{true, false} {
		for _, cl := range s.claims {
			if !cl.live() || (s.hasReservations && (cl.resID != "") != holders) || (!s.hasReservations && !holders) {
				continue
			}
			n, resID, price, ok := s.launchMemoized(cl, left)
			if !ok {
				return nil, false
			}
			pn.price += price
			if resID != "" {
				used[resID]++
			}
			pn.nodes = append(pn.nodes, n)
		}
	}
	return pn, true
}

// launchNode is the node a claim launches as, as finalisation makes it:
// the labels of its cheapest option's cheapest offering (left: the places
// of reservations left), its NodePool's taints, its placeholder hostname;
// the reservation it launches on and its price. False when it would not
// launch.
func (s *solver) launchNode(cl *claim, left binpack.ReservationsLeft) (*topology.Node, string, float64, bool) {
	info := s.reqs.info(cl.reqID)
	info.typeSet(s)
	if !s.hasReservations {
		left = func(string) int { return 0 }
	}
	l, drop := s.chooseLaunch(cl, info, left)
	if drop != nil {
		return nil, "", 0, false
	}
	_, labels := s.claimLabels(cl, s.claimRequirements(info, &l), &l)
	labels[requirements.LabelHostname] = cl.host
	return &topology.Node{Name: cl.host, Labels: labels, Taints: cl.pool.tmpl.Taints, Late: true}, l.resID, l.price, true
}

// launchMemo is a claim's launch as launchNode made it, with the state it
// was made from: without capacity reservations a claim launches the same
// while its requirements, requests, charge and ports are the same.
type launchMemo struct {
	reqID         int32
	used, charged binpack.Vec
	ports         []hostPort
	node          *topology.Node // shared with the plan's nodes: read only
	price         float64
}

// launchMemoized is launchNode, taken from the claim's memo when its state
// has not changed since (never with reservations, whose places depend on
// the order claims launch in).
func (s *solver) launchMemoized(cl *claim, left binpack.ReservationsLeft) (*topology.Node, string, float64, bool) {
	if s.hasReservations {
		return s.launchNode(cl, left)
	}
	if m := cl.launched; m.current(cl) {
		return m.node, "", m.price, true
	}
	n, resID, price, ok := s.launchNode(cl, left)
	if ok {
		cl.launched = newLaunchMemo(cl, n, price)
	}
	return n, resID, price, ok
}

// current reports whether the memo was made from the claim's state as it is.
func (m *launchMemo) current(cl *claim) bool {
	return m != nil && m.reqID == cl.reqID && m.used == cl.used && m.charged == cl.charged && slices.Equal(m.ports, cl.ports)
}

func newLaunchMemo(cl *claim, n *topology.Node, price float64) *launchMemo {
	return &launchMemo{reqID: cl.reqID, used: cl.used, charged: cl.charged, ports: slices.Clone(cl.ports), node: n, price: price}
}

// rememberLaunch makes the claim's memo from its NodeClaim, as finalised
// without capacity reservations: the node launchNode would make carries the
// NodeClaim's labels and its placeholder hostname. (Finalising runs on all
// cores, judging the plan's relaxations after it on one.)
func (s *solver) rememberLaunch(cl *claim, nc *NodeClaim) {
	if cl.launched.current(cl) {
		return
	}
	labels := make(map[string]string, len(nc.Labels)+1)
	maps.Copy(labels, nc.Labels)
	labels[requirements.LabelHostname] = cl.host
	cl.launched = newLaunchMemo(cl, &topology.Node{Name: cl.host, Labels: labels, Taints: cl.pool.tmpl.Taints, Late: true}, nc.Price)
}
