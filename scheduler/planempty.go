package scheduler

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
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
// back. Inputs with reservations are left alone (a claim's price there
// depends on the order claims launch in).
//
// Three passes. The first empties only claims whose pods own no topology
// rules (others' rules merely count them), each pod moving to a node with
// room for it. The second also empties claims whose pods carry spread
// constraints or anti-affinity (a spread's owner left alone on a claim in
// a domain the plan can do without: while planning every zone a NodePool
// offers was a domain, and a zone spread with minDomains sent the owner to
// a zone no other node is in), makes room for a pod on a node of the plan
// by moving others off it (planroom.go), and keeps the moves only if every
// spread of the claim's pods still reaches as many domains as before (its
// pods are not collapsed into fewer zones or nodes: the spread is not
// defeated, only moved to domains the plan has anyway). The first pass
// runs alone first so that the plan it makes is never lost to a greedy
// step of the second, whose work is bounded by the pods (emptyWideWork). A
// claim holding a pod that follows others (required pod affinity) is never
// emptied. In the first two, neither is one holding a pod that others
// follow on hostname; the third (emptyPass) empties those too, like the
// second: a follower on the claim keeps the claim as it is, and the
// followers on other nodes have targets of their own there. The check of
// every placed pod's topology after the moves stands behind all three.

// emptyWideWork bounds the work of the second and third passes: each claim
// they try checks every placed pod's topology again, so each tries at most
// emptyWideWork / (pending pods) claims (all roomHosts up to 300 pods, 38
// at 2,000).
const emptyWideWork = roomHosts * 300

// emptyInPlan tries to empty each claim of the plan into the others, the
// cheapest first, in both passes.
func (s *solver) emptyInPlan() {
	if len(s.pending) > planDomainsMaxPods || !s.topo.HasSpread() || s.hasReservations || len(s.liveClaims()) < 2 {
		return
	}
	pn, reopen, ok := s.closeDomains()
	if !ok {
		return
	}
	defer reopen()
	for _, pass := range []emptyPass{{}, {wide: true}, {wide: true, followed: true}} {
		budget, room := roomHosts, 0
		if pass.wide {
			budget, room = min(roomHosts, emptyWideWork/len(s.pending)), roomHosts
		}
		for _, cl := range s.byPrice() {
			if budget <= 0 {
				break
			}
			if !cl.live() || (pass.followed && !slices.ContainsFunc(cl.pods, followedOnly)) {
				continue
			}
			budget--
			if !s.emptyClaim(cl, pn, pass, &room) {
				return
			}
		}
	}
}

// emptyPass is one pass of emptyInPlan: wide is the second pass (above);
// followed, a third, empties the claims the first two kept only because
// others follow one of their pods on hostname (31697: an agent alone on a
// GPU node kept the node because a trainer sat beside another agent). It
// comes last so that the plans the first two make stay as they were: made
// within them it changed which claims they emptied, and the greedy moves
// after them (eject.go, swap.go) ended dearer on a few plans.
type emptyPass struct{ wide, followed bool }

// followedOnly reports whether others follow q on hostname while q itself
// owns no affinity on hostname.
func followedOnly(q *pending) bool {
	t := q.cls.topo
	return t != nil && !t.Movable() && !t.FollowsOnHostname()
}

// emptyTry is one attempt at emptying a claim: the moves that take its pods
// off, and the room made on another node for some of them (by the index of
// the move it was made for).
type emptyTry struct {
	roomTry
	rooms map[int]*roomTry
}

// emptyClaim moves every pod of cl to the plan's other nodes, the largest
// first, and keeps the moves when the plan is then valid and cheaper, and
// the spreads of its pods reach as many domains as before; pass says which
// pods keep their claim (ownsTopology), room counts the nodes room may
// still be made on.
// ok is false when the plan's nodes cannot be known again after an undo
// (the phase then stops).
func (s *solver) emptyClaim(cl *claim, pn *planNodes, pass emptyPass, room *int) (ok bool) {
	if slices.ContainsFunc(cl.pods, func(q *pending) bool { return ownsTopology(q, pass) }) {
		return true
	}
	reach := s.spreadReach(cl.pods)
	before, placed := s.totalPrice(), s.placed()
	s.topo.CloseDomainsFrom(withoutNode(pn.nodes, cl.host), len(s.existing))
	et := &emptyTry{roomTry: roomTry{cl: cl, state: s.snapshot(cl)}}
	if s.moveAllOff(et, room) {
		fresh, ok := s.newPlanNodes()
		if ok && len(fresh.nodes) == len(pn.nodes)-1 {
			s.topo.CloseDomainsFrom(fresh.nodes, len(s.existing))
			if s.placed() == placed && s.topologyHolds() && s.totalPrice() < before-priceEps && fresh.price < pn.price-priceEps && s.reachKept(reach) && s.tiedDomainsKept(et) {
				*pn = *fresh
				return true
			}
		}
	}
	s.undrop(cl)
	s.undoEmpty(et)
	return s.relaunch(pn)
}

// moveAllOff moves every pod off the try's claim to other nodes or claims
// of the plan, making room there when it must, none relaxing more
// preferences than it did; false at the first that cannot (the moves made
// stay in et for undoEmpty).
func (s *solver) moveAllOff(et *emptyTry, room *int) bool {
	s.emptying = et.cl
	defer func() { s.emptying = nil }()
	for _, q := range bySizeDesc(et.cl.pods) {
		if !s.moveOff(q, &et.roomTry) && !s.moveOffWithRoom(q, et, room) {
			return false
		}
		if m := et.moved[len(et.moved)-1]; len(q.relaxed) > len(m.relaxed) {
			return false
		}
	}
	return et.cl.dropped
}

// moveOffWithRoom moves q off the claim being emptied to a node or claim of
// the plan once other pods moved off that one (planroom.go); false (q back
// where it was) when none takes it.
func (s *solver) moveOffWithRoom(q *pending, et *emptyTry, room *int) bool {
	if *room <= 0 {
		return false
	}
	a, _ := s.newAttempt(q.cls, q.att.alt, q.att.level, false)
	m := movedPod{q: q, att: q.att, relaxed: q.relaxed, active: a.active, from: q.claim, host: s.hostOf(q)}
	s.topo.Unrecord(q.cls.topo, a.active, &m.host)
	s.frozen = q.claim
	s.detach(q)
	s.frozen = nil
	m.dstSnaps = s.claimSnapshots()
	rt, ok := s.placeWithRoom(q, room)
	et.moved = append(et.moved, m)
	if !ok {
		s.putBack(m, &et.roomTry)
		et.moved = et.moved[:len(et.moved)-1]
		return false
	}
	if et.rooms == nil {
		et.rooms = map[int]*roomTry{}
	}
	et.rooms[len(et.moved)-1] = rt
	return true
}

// undoEmpty returns every pod the try moved, last first, with the pods
// moved to make room for it, and the claim to its state.
func (s *solver) undoEmpty(et *emptyTry) {
	for i := len(et.moved) - 1; i >= 0; i-- {
		s.putBack(et.moved[i], &et.roomTry)
		if r := et.rooms[i]; r != nil {
			s.putBackAll(r)
		}
	}
	et.moved = nil
	s.restore(et.cl, et.state)
}

// ownsTopology reports whether a pod has topology rules of its own (in the
// second pass: follows others, by required pod affinity), or others follow
// it on hostname (see above; in the third pass only owning an affinity on
// hostname keeps it), which keeps its claim from being emptied.
func ownsTopology(q *pending, pass emptyPass) bool {
	t := q.cls.topo
	if t == nil {
		return false
	}
	if pass.followed {
		return t.FollowsPods() || t.FollowsOnHostname()
	}
	if pass.wide {
		return t.FollowsPods() || !t.Movable()
	}
	return len(t.Terms) > 0 || !t.Movable()
}

// spreadReach is how far the spreads of the given pods' classes reach
// (topology.SpreadReach), by class.
func (s *solver) spreadReach(pods []*pending) map[*class][]int {
	out := map[*class][]int{}
	for _, q := range pods {
		if q.cls.topo != nil && len(q.cls.topo.Terms) > 0 {
			out[q.cls] = s.topo.SpreadReach(q.cls.topo)
		}
	}
	return out
}

// reachKept reports whether every spread of reach's classes still reaches
// as many domains as it did.
func (s *solver) reachKept(reach map[*class][]int) bool {
	for c, was := range reach {
		now := s.topo.SpreadReach(c.topo)
		for i := range was {
			if now[i] < was[i] {
				return false
			}
		}
	}
	return true
}

// withoutNode is nodes without the one named host.
func withoutNode(nodes []*topology.Node, host string) []*topology.Node {
	return slices.DeleteFunc(slices.Clone(nodes), func(n *topology.Node) bool { return n.Name == host })
}

// tiedDomainsKept reports whether every pod the try moved that
// WithSpreadDomainsKept keeps in its domains (keepsDomains) is still in
// them: on each key its topology counts it on, hostname aside, its new
// place has the one value its old place had. The moves of the last phase
// are where the improvement phase's pins do not reach.
func (s *solver) tiedDomainsKept(et *emptyTry) bool {
	if !s.cfg.keepTiedDomains {
		return true
	}
	if !s.domainsKept(et.moved) {
		return false
	}
	for _, rt := range et.rooms {
		if !s.domainsKept(rt.moved) {
			return false
		}
	}
	return true
}

// domainsKept is tiedDomainsKept for one list of moves.
func (s *solver) domainsKept(moved []movedPod) bool {
	for _, m := range moved {
		if !s.keepsDomains(m.q.cls) {
			continue
		}
		now := s.hostOf(m.q)
		for _, k := range m.q.cls.topo.Keys() {
			if k == requirements.LabelHostname {
				continue
			}
			was, ok := hostValue(m.host, k)
			is, still := hostValue(now, k)
			if !ok || !still || was != is {
				return false
			}
		}
	}
	return true
}

// hostValue is a host's one value of key: an existing node's label, a
// claim's requirement when it allows one value; false when it has none or
// several.
func hostValue(h topology.Host, key string) (string, bool) {
	if h.Node != nil {
		v, ok := h.Node.Labels[key]
		return v, ok
	}
	r := h.Requirements.Get(key)
	if !r.IsFinite() || len(r.Values()) != 1 {
		return "", false
	}
	return r.Values()[0], true
}
