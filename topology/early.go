package topology

import (
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// Two-phase binding. The pods a plan puts on existing nodes bind as soon
// as kube-scheduler reaches them; those on NodeClaims wait for their nodes
// to be launched and to join. A spread's owner placed on an existing node
// is therefore checked against the existing nodes' pods alone (those
// bound and those the plan puts there), never against the pods of the
// plan's NodeClaims, and a pod placed on a NodeClaim never pushes such an
// owner past its skew. The owners that bind late are those on NodeClaims
// and those on existing nodes with a required pod affinity (they may wait
// for a target on a NodeClaim); they see every count.
//
// The group keeps, beside count, the counted pods placed on NodeClaims
// (late) and the owners that bind late (lateOwners); the early view of a
// domain is count less late, and an early owner's global minimum runs over
// the existing nodes' eligible domains alone (as kube-scheduler's does
// before a NodeClaim's node joins): a spread over capacity types whose only
// on-demand node already runs one of its pods takes a second one there
// while every spot pod waits on NodeClaims. Hostname groups need no split:
// an existing node and a NodeClaim are never one hostname domain.

// A pod planned on an existing node binds in the first phase when its
// spreads pass there against the early counts, else in the second against
// every count (kube-scheduler tries it again as nodes join): Check takes
// either, and Record notes which (earlyRecs), so that Unrecord undoes the
// same. Only a pod with required spreads off hostname and no required pod
// affinity is judged so (canEarly). It binds at one moment, so every
// spread of it, on every key, passes in one view: the first phase when all
// pass against the early counts (a spread on a custom size label and one
// on zone, over existing nodes all of one size and zone), else the second.

// ExistingNodesFirst turns two-phase binding on (it is off by default:
// every pod is judged against every count, so the plan holds whenever the
// NodeClaims' nodes join). Call it before the first Register.
func (t *Tracker) ExistingNodesFirst() { t.existingFirst = true }

// bindsEarly reports whether pods placed on h bind in the first phase: h
// is an existing node that is ready (not Node.Late).
func bindsEarly(h *Host) bool { return h.Node != nil && !h.Node.Late }

// earlyRec is a pod class placed on an existing node.
type earlyRec struct {
	p *Pod
	n *Node
}

// setCanEarly sets p.canEarly when the pod may bind in the first phase:
// it has required spreads off hostname and no required pod affinity.
func (p *Pod) setCanEarly() {
	p.canEarly = false
	for _, tm := range p.Terms {
		switch {
		case tm.Kind == Affinity && tm.Required:
			p.canEarly = false
			return
		case tm.Kind == Spread && tm.Required && tm.Key != requirements.LabelHostname:
			p.canEarly = true
		}
	}
}

// passesEarly reports whether every required spread of p off hostname
// passes on existing node h against the early counts (p not counted yet).
func (t *Tracker) passesEarly(p *Pod, h *Host) bool { return t.spreadsPass(p, h, true) }

// passesLate reports whether every required spread of p off hostname
// passes on existing node h against every count (p not counted yet).
func (t *Tracker) passesLate(p *Pod, h *Host) bool { return t.spreadsPass(p, h, false) }

func (t *Tracker) spreadsPass(p *Pod, h *Host, early bool) bool {
	for i := range p.Terms {
		tm := &p.Terms[i]
		if tm.Kind != Spread || !tm.Required || tm.Key == requirements.LabelHostname || !tm.g.hostPasses(h, t.schema) {
			continue
		}
		d, ok := t.domainOf(tm.g.ks, h)
		if !ok {
			return false
		}
		self := int32(0)
		if tm.self {
			self = 1
		}
		count, least := tm.g.get(d), t.minCount(tm, false)
		if early {
			count, least = tm.g.early(d), tm.g.earlyMin(tm.early)
		}
		if count+self-least > tm.g.maxSkew {
			return false
		}
	}
	return true
}

// EarlyMattered reports whether some placement recorded so far binds in
// the first phase where every count would refuse it: without two-phase
// binding the plan would differ.
func (t *Tracker) EarlyMattered() bool { return t.earlyMattered }

// recordEarly decides, before p's counts change, whether p placed on h (or
// taken off it) binds in the first phase.
func (t *Tracker) recordEarly(p *Pod, h *Host, add bool) bool {
	if !p.canEarly || !bindsEarly(h) {
		return false
	}
	k := earlyRec{p, h.Node}
	if add {
		if !t.passesEarly(p, h) {
			return false
		}
		if !t.earlyMattered && !t.passesLate(p, h) {
			t.earlyMattered = true
		}
		if t.earlyRecs == nil {
			t.earlyRecs = map[earlyRec]int32{}
		}
		t.earlyRecs[k]++
		return true
	}
	if t.earlyRecs[k] == 0 {
		return false
	}
	if t.earlyRecs[k]--; t.earlyRecs[k] == 0 {
		delete(t.earlyRecs, k)
	}
	return true
}

func (g *group) lateIn(d int32) int32 {
	if int(d) < len(g.late) {
		return g.late[d]
	}
	return 0
}

func (g *group) lateOwnersIn(d int32) int32 {
	if int(d) < len(g.lateOwners) {
		return g.lateOwners[d]
	}
	return 0
}

// early is d's count as an early owner sees it.
func (g *group) early(d int32) int32 { return g.get(d) - g.lateIn(d) }

// countLate follows a counted pod placed on (or taken off) a NodeClaim.
func (g *group) countLate(d int32, add bool) {
	for int(d) >= len(g.late) {
		g.late = append(g.late, 0)
	}
	if add {
		g.late[d]++
	} else if g.late[d] > 0 {
		g.late[d]--
	}
}

// ownLate follows an owner that binds late.
func (g *group) ownLate(d int32, add bool) {
	for int(d) >= len(g.lateOwners) {
		g.lateOwners = append(g.lateOwners, 0)
	}
	if add {
		g.lateOwners[d]++
	} else if g.lateOwners[d] > 0 {
		g.lateOwners[d]--
	}
}

// earlyMin is the global minimum an early owner binds against: the least
// early count over the eligible domains of the existing nodes (the
// NodeClaims' nodes have not joined), zero when they are fewer than
// minDomains.
// Once the plan's nodes are known (CloseDomains), the domains are those of
// ds among the closed ones (sorted).
func (g *group) earlyMin(ds []int32) int32 {
	m, n := int32(math.MaxInt32), int32(0)
	for _, d := range ds {
		if _, in := slices.BinarySearch(g.closed, d); g.isClosed && !in {
			continue
		}
		m, n = min(m, g.early(d)), n+1
	}
	if n == 0 || n < g.minDoms {
		return 0
	}
	return m
}

// ownersFit reports whether extra more counted pods in d (binding in the
// second phase when late: on a NodeClaim, or on an existing node where
// their spreads pass only against every count) keep every owner of group
// g in d within its skew, each owner judged by the counts it binds
// against; m is the group's global minimum. Without two-phase binding (and
// on hostname, where an existing node and a NodeClaim never share a
// domain) every owner sees every count.
func (t *Tracker) ownersFit(g *group, d, extra, m int32, late bool) bool {
	all := g.ownersIn(d)
	if all == 0 {
		return true
	}
	if !t.existingFirst || g.ks.key == requirements.LabelHostname {
		return g.get(d)+extra-m <= g.maxSkew
	}
	lateOwners := g.lateOwnersIn(d)
	if lateOwners > 0 && g.get(d)+extra-m > g.maxSkew {
		return false
	}
	if all == lateOwners || late {
		return true // early owners bind before the pod
	}
	return g.early(d)+extra-g.earlyMin(g.earlyEligible) <= g.maxSkew
}
