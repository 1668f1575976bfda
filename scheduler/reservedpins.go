package scheduler

import "github.com/nodeplan/nodeplan/requirements"

// Reserved pins: a pod that a topology group counts, with no rule of its
// own on the group's key, pins its claim to one domain of the key
// (topology/pod.go), and among equally loaded domains the ranker picks
// the one where the claim is cheapest for that pod alone, the first by
// value on a tie. Capacity reservations make the price of a type depend on
// the zone: the claim of the first pod of a class pinned to a zone whose
// cheapest offering holds that pod alone (a small spot type) cannot grow
// into the reservation of a larger type another zone offers for the same
// price, and the class's followers open claims of their own off the
// reservations. Karpenter leaves such a claim's zone open until its type
// decides it. The plan with reservedPins ranks the domains of every key
// but hostname as densePins ranks those of an instance type's label: by
// the price per pod of the claim's cheapest type once filled with the
// class's pods still to place, so that the pin leaves room for them on the
// reservation. It is one more plan Solve compares (portfolio.go), made
// when the input has capacity reservations and a topology group counts on
// a key other than hostname; it is kept only when it places more pods, or
// the same pods for less (bestPlan).

// reservedDensePin reports whether the plan ranks the domains of key by
// price per pod (reservedPins): every key but hostname.
func (s *solver) reservedDensePin(key string) bool {
	return s.cfg.reservedPins && key != requirements.LabelHostname
}

// countsOffHostname reports whether some topology group counts on a key
// other than hostname (a pod it counts may pin its claim to a domain).
func (s *solver) countsOffHostname() bool {
	for _, k := range s.topo.Keys() {
		if k != requirements.LabelHostname {
			return true
		}
	}
	return false
}
