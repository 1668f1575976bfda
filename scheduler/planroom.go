package scheduler

import (
	"slices"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/topology"
)

// Making room, in the last phase (plandomains.go): a pod left unplaced
// whose rules a node of the plan meets, but whose room other pods the plan
// put there took, goes there once they move to other nodes of the plan
// (never new ones), the largest first. A pod that must share a node with
// others (required pod affinity on hostname) can only go where they are,
// and a pod the spread of an existing node's pods once kept out finds that
// node filled by pods that fit elsewhere too. Everything goes back when the
// pod does not fit, or when a placed pod's topology no longer holds.

// roomMoves bounds the pods one unplaced pod may move off one node.
const roomMoves = 8

// roomHosts bounds the nodes a phase tries to make room on, over all pods.
const roomHosts = 256

// movedPod is a pod moved off a node to make room, with what puts it back.
type movedPod struct {
	q        *pending
	att      placedAttempt
	relaxed  []string
	active   topology.Active
	fromNode *existingNode
	from     *claim
	host     topology.Host
	dstSnaps map[*claim]claimState // the claims before it joined one
}

// roomTry is one attempt at making room: the node or claim, and the state
// to restore.
type roomTry struct {
	en    *existingNode
	cl    *claim
	state claimState
	moved []movedPod
}

// placeWithRoom places pp on a node or claim of the plan after moving
// other pods off it, and returns the try (putBackAll undoes its moves);
// budget counts the nodes tried.
func (s *solver) placeWithRoom(pp *pending, budget *int) (*roomTry, bool) {
	c := pp.cls
	for level := 0; level <= len(c.steps); level++ {
		for alt := range c.alts {
			a, ok := s.newAttempt(c, alt, level, false)
			if !ok {
				continue
			}
			if rt, ok := s.roomOnHosts(pp, a, budget); ok {
				pp.relaxed = c.relaxedAt(level)
				return rt, true
			}
		}
	}
	return nil, false
}

// roomOnHosts tries the existing nodes, then the claims, that meet the
// attempt's rules.
func (s *solver) roomOnHosts(pp *pending, a attempt, budget *int) (*roomTry, bool) {
	for _, en := range s.existing {
		if *budget <= 0 {
			return nil, false
		}
		if len(en.placed) == 0 || !s.existingStatic(a, en) || !s.topoAllows(a, topology.Host{Node: en.topo, NodeDomains: &en.doms}) {
			continue
		}
		*budget--
		if rt := (&roomTry{en: en}); s.roomOn(pp, a, rt) {
			return rt, true
		}
	}
	for _, cl := range s.liveClaims() {
		if *budget <= 0 {
			return nil, false
		}
		if cl == s.emptying || !s.poolTolerated(a.c, cl.pool, a.level) || s.reqs.compat(cl.reqID, a.reqID) < 0 || !s.topoAllows(a, s.claimHost(cl)) {
			continue
		}
		*budget--
		if rt := (&roomTry{cl: cl, state: s.snapshot(cl)}); s.roomOn(pp, a, rt) {
			return rt, true
		}
	}
	return nil, false
}

// topoAllows reports whether the attempt's topology rules let its pod go to
// host (room aside).
func (s *solver) topoAllows(a attempt, host topology.Host) bool {
	_, v := s.topo.Check(a.c.topo, a.active, &host, nil)
	return v == nil
}

// claimHost is the topology view of a claim: its placeholder hostname
// (with the claim's slot for its domain), its requirements (with their
// slots for the domains they decide) and its NodePool's taints.
func (s *solver) claimHost(cl *claim) topology.Host {
	info := s.reqs.info(cl.reqID)
	return topology.Host{Hostname: cl.host, HostnameDomain: &cl.hostDom, Requirements: info.reqs, Taints: cl.pool.tmpl.Taints, Decided: &info.decided}
}

// roomOn moves pods off the try's node, the largest first, until pp goes
// there; else it puts everything back.
func (s *solver) roomOn(pp *pending, a attempt, rt *roomTry) bool {
	movable := s.movableOff(pp, rt)
	if !s.roomPossible(a, rt, movable) {
		return false
	}
	for _, q := range movable {
		if len(rt.moved) >= roomMoves {
			break
		}
		if rt.cl != nil && len(rt.cl.pods) == 1 {
			break // the claim would be dropped
		}
		if s.moveOff(q, rt) && s.placeOn(pp, a, rt) {
			return true
		}
	}
	s.putBackAll(rt)
	return false
}

// roomPossible reports whether the attempt's pod would fit the try's node
// with every movable pod gone (a claim at its largest type): else no move
// can make room.
func (s *solver) roomPossible(a attempt, rt *roomTry, movable []*pending) bool {
	var freed binpack.Vec
	for _, q := range movable {
		freed = freed.Add(q.cls.requests)
	}
	if rt.en != nil {
		return a.c.requests.Fits(rt.en.free.Add(freed))
	}
	be, ok, _ := s.evalBucket(a, rt.cl.bucket)
	return ok && rt.cl.used.Sub(freed).Add(a.c.requests).Fits(be.maxUsable)
}

// movableOff lists the pods the plan put on the try's node that may move
// (no hostname affinity ties them to it), other than pp's replicas, the
// largest first.
func (s *solver) movableOff(pp *pending, rt *roomTry) []*pending {
	pods := slices.Clone(rt.pods())
	pods = slices.DeleteFunc(pods, func(q *pending) bool {
		return q.cls == pp.cls || (q.cls.topo != nil && !q.cls.topo.Movable())
	})
	slices.SortStableFunc(pods, func(x, y *pending) int { return smallerFirst(y, x) })
	return pods
}

func (rt *roomTry) pods() []*pending {
	if rt.en != nil {
		return rt.en.placed
	}
	return rt.cl.pods
}

// placeOn places pp on the try's node when it fits there now.
func (s *solver) placeOn(pp *pending, a attempt, rt *roomTry) bool {
	if rt.en != nil {
		if !s.existingAdmits(a, rt.en) {
			return false
		}
		s.putExisting(pp, a, rt.en)
		return true
	}
	ev, ok := s.evalClaim(a, rt.cl)
	if !ok {
		return false
	}
	s.commit(pp, a, ev)
	return true
}

// moveOff moves q off the try's node to another node or claim of the plan;
// false (q back where it was) when none takes it.
func (s *solver) moveOff(q *pending, rt *roomTry) bool {
	a, _ := s.newAttempt(q.cls, q.att.alt, q.att.level, false)
	m := movedPod{q: q, att: q.att, relaxed: q.relaxed, active: a.active, fromNode: q.node, from: q.claim, host: s.hostOf(q)}
	s.topo.Unrecord(q.cls.topo, a.active, &m.host)
	if q.node != nil {
		s.unplaceExisting(q)
	} else {
		s.frozen = q.claim // keep its type: the room is for pp
		s.detach(q)
		s.frozen = nil
	}
	m.dstSnaps = s.claimSnapshots()
	s.avoidNode, s.avoidClaim = rt.en, rt.cl
	ok := s.placeOnPlanned(q)
	s.avoidNode, s.avoidClaim = nil, nil
	rt.moved = append(rt.moved, m)
	if !ok {
		s.putBack(m, rt)
		rt.moved = rt.moved[:len(rt.moved)-1]
	}
	return ok
}

// putBackAll returns every moved pod to the try's node, last first, and
// the node to its state.
func (s *solver) putBackAll(rt *roomTry) {
	for i := len(rt.moved) - 1; i >= 0; i-- {
		s.putBack(rt.moved[i], rt)
	}
	rt.moved = nil
	if rt.cl != nil {
		s.restore(rt.cl, rt.state)
	}
}

// putBack takes m's pod off where it went (its claim as it was before) and
// returns it to where it was.
func (s *solver) putBack(m movedPod, rt *roomTry) {
	q := m.q
	if dst := q.claim; dst != nil {
		s.undoInto(dst, m.dstSnaps[dst], func() { s.takeOff(q) })
	} else if q.node != nil {
		s.takeOff(q)
	}
	if m.fromNode != nil {
		a, _ := s.newAttempt(q.cls, m.att.alt, m.att.level, false)
		s.putExisting(q, a, m.fromNode)
	} else {
		s.topo.Record(q.cls.topo, m.active, &m.host)
		s.reattach(q, m.from)
	}
	q.att, q.relaxed = m.att, m.relaxed
}
