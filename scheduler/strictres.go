package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Karpenter's packing that keeps a claim on its reservations. Karpenter's
// provisioner schedules with reserved capacity in strict mode: a NodeClaim
// holds every compatible reserved offering it can, and a pod whose
// addition would leave it none is refused by that NodeClaim (it goes to
// another, or relaxes a preference that wanted it there) rather than
// growing it off the reservation onto on-demand or spot. nodeplan's
// packings let a claim grow into whatever type holds its pods, which may
// cost more than the pods' reservations would (a preferred pod affinity
// that gathers a class on one spot node, where Karpenter keeps the pods on
// reserved nodes two by two). Where the input has capacity reservations,
// the plan in Karpenter's order of in-flight NodeClaims (karpenter.go) is
// made a second time with claims kept on their reservations
// (strictReserved), finished, and kept instead when it places more pods or
// the same pods for less. It is compared only once finished: judged
// before, at as many pods and a lower price, it displaced plans whose
// finishing placed more pods (run19 seeds 3573, 3675, 3755).

// orStrictReserved returns fewest (the finished plan of cfg, in
// Karpenter's order of in-flight NodeClaims), or, when the input has
// capacity reservations, the plan of cfg made with claims kept on their
// reservations when it places more pods, or the same pods for less.
func (fewest *solver) orStrictReserved(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if !fewest.hasReservations {
		return fewest, nil
	}
	sc := cfg
	sc.strictReserved = true
	strict, err := planFewest(pods, nodePools, catalog, sc)
	if err != nil || strict == nil {
		return fewest, err
	}
	n, fn := strict.finalPlaced(), fewest.finalPlaced()
	if n > fn || (n == fn && samePlaced(fewest, strict) && strict.planPrice() < fewest.planPrice()-priceEps) {
		return strict, nil
	}
	return fewest, nil
}

// leavesReservations reports whether, in the plan that keeps claims on
// their reservations, claim cl (holding a reservation) would take the pods
// of need, with requirements id, only off every reservation: no type of
// the set that holds need has a reserved offering with a place for cl.
func (s *solver) leavesReservations(cl *claim, id int32, need binpack.Vec) bool {
	if !s.cfg.strictReserved || !s.hasReservations || cl.resID == "" {
		return false
	}
	info := s.reqs.info(id)
	info.typeSet(s)
	left := s.leftFor(cl)
	for _, t32 := range info.members {
		t := int(t32)
		if !need.Fits(cl.pool.usable[t]) {
			continue
		}
		if len(s.idx.ReservedOfferings(t, info.offer, left)) > 0 {
			return false
		}
	}
	return true
}
