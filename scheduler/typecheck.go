package scheduler

import (
	"math"

	"github.com/nodeplan/nodeplan/binpack"
)

// The instance-type check: whether a node of one instance type, launched by
// one NodePool under one requirement set, can take a load (the requests and
// host ports of a claim's pods), and if not, the first criterion it fails.
// Finalisation lists a NodeClaim's options with it, and explanation builds
// a NodePool's refusal from it, so a reason never disagrees with a
// decision. Placement's hot loop (cheapestFit in place.go) applies the same
// criteria in the same order, inlined for speed (cpu and memory before the
// other resources, the price bound, reservations looked up once per
// scan); TestTypeCheckAgrees holds the three together.

// typeCriterion is a check an instance type passes or fails for a load, in
// the order they are made: a type that fails one passed every one before.
// The order is also how close a type came, so the refusal of a NodePool is
// the criterion its closest type failed.
type typeCriterion uint8

const (
	// typeRequirements: the type is not in the requirement set's types
	// (its labels, or no available offering the requirements allow).
	typeRequirements typeCriterion = iota
	// typeResources: its allocatable less the NodePool's DaemonSet overhead
	// on it does not hold the load's requests.
	typeResources
	// typeLimits: it would take the NodePool past its limits (or, for an
	// option of a NodeClaim, spend more of them than the NodeClaim is
	// charged).
	typeLimits
	// typeHostPort: a DaemonSet that runs on it holds one of the load's
	// host ports.
	typeHostPort
	// typeOffering: none of its offerings the requirements allow is
	// available (counting the reservations other NodeClaims hold as taken).
	typeOffering
	// typeFits: it passes every check.
	typeFits
)

// typeLoad is what instance types are checked for: a load on a node of
// pool under the requirement set info (whose type set is built).
type typeLoad struct {
	pool  *pool
	info  *reqInfo
	need  binpack.Vec
	ports []hostPort
	// limits is how the NodePool's limits are checked: limitsGrow (the
	// node's capacity may exceed charged by what the pool has left) or
	// limitsCapped (its capacity may not exceed charged on a limited
	// resource: an option of a NodeClaim charged for charged).
	limits  limitsRule
	charged binpack.Vec
	// left counts the places reservations have left; nil: reservations
	// are not counted (only availability, from the price order).
	left binpack.ReservationsLeft
	// prices are info's prices (Index.Prices), looked up once.
	prices []float64
}

// limitsRule says how a load's node is held to its NodePool's limits.
type limitsRule uint8

const (
	// limitsGrow: the node may grow the pool's charged capacity by what
	// the limits have left (placement: withinLimits).
	limitsGrow limitsRule = iota
	// limitsCapped: the node may spend no more of the limits than charged
	// (a NodeClaim's options: spendsNoMore).
	limitsCapped
)

// newTypeLoad prepares the check of loads under requirement set id of pool
// p; reservations are counted when left is set.
func (s *solver) newTypeLoad(p *pool, id int32, need binpack.Vec, ports []hostPort, left binpack.ReservationsLeft) *typeLoad {
	info := s.reqs.info(id)
	info.typeSet(s)
	return &typeLoad{pool: p, info: info, need: need, ports: ports, left: left, prices: s.idx.Prices(info.offer)}
}

// checkType returns the first criterion type t fails for the load
// (typeFits when none), and when it fits, the price of the offering it
// would launch and its position among the type's offerings (-1 when
// reservations are not counted: the price order's price, offering not
// looked up).
func (s *solver) checkType(l *typeLoad, t int) (c typeCriterion, price float64, offering int) {
	p := l.pool
	switch {
	case !l.info.types.Has(t):
		return typeRequirements, 0, -1
	case !l.need.Fits(p.usable[t]):
		return typeResources, 0, -1
	case !s.typeWithinLimits(l, t):
		return typeLimits, 0, -1
	case len(l.ports) > 0 && s.dsPortClash(p, t, l.ports):
		return typeHostPort, 0, -1
	}
	if l.left == nil {
		if price = l.prices[t]; math.IsInf(price, 1) {
			return typeOffering, 0, -1
		}
		return typeFits, price, -1
	}
	price, offering, ok := s.idx.Cheapest(t, l.info.offer, l.left)
	if !ok {
		return typeOffering, 0, -1
	}
	return typeFits, price, offering
}

// typeWithinLimits is the limits criterion of checkType.
func (s *solver) typeWithinLimits(l *typeLoad, t int) bool {
	p := l.pool
	if !p.limited {
		return true
	}
	capT := s.idx.Capacity(t)
	if l.limits == limitsCapped {
		return p.spendsNoMore(capT, l.charged)
	}
	return p.withinLimits(&capT, &l.charged)
}

// closestType returns how close the set's types come to taking the load:
// the furthest criterion any of them reaches (typeFits when one fits).
func (s *solver) closestType(l *typeLoad) typeCriterion {
	best := typeRequirements
	for _, t := range l.info.members {
		if c, _, _ := s.checkType(l, int(t)); c > best {
			if best = c; best == typeFits {
				break
			}
		}
	}
	return best
}
