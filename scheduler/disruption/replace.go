package disruption

import (
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// replacement is a NodeClaim the simulation planned, narrowed by the
// replacement rules before it becomes part of a command.
type replacement struct {
	nc    scheduler.NodeClaim
	reqs  requirements.Requirements
	types []*instancetypes.InstanceType // in price order
	// worst is the cheapest worst launch price among the types as planned,
	// for "no cheaper replacement" messages.
	worst float64
}

func (m *model) newReplacement(nc scheduler.NodeClaim) (*replacement, error) {
	reqs, err := m.claimRequirements(nc.Requirements)
	if err != nil {
		return nil, err
	}
	r := &replacement{nc: nc, reqs: reqs, worst: math.MaxFloat64}
	for _, name := range nc.InstanceTypeOptions {
		if it, ok := m.catalog.Get(name); ok {
			r.types = append(r.types, it)
			r.worst = min(r.worst, worstLaunchPrice(it, reqs))
		}
	}
	return r, nil
}

// filterByPrice keeps the types whose worst launch price is below max
// (RemoveInstanceTypeOptionsByPriceAndMinValues).
func (r *replacement) filterByPrice(maxPrice float64) {
	r.types = slices.DeleteFunc(r.types, func(it *instancetypes.InstanceType) bool {
		return worstLaunchPrice(it, r.reqs) >= maxPrice
	})
}

// allowsSpot reports whether the replacement's capacity-type requirement
// admits spot; allowsOnDemand likewise.
func (r *replacement) allows(ct string) bool {
	return r.reqs.Get(requirements.LabelCapacityType).Has(ct)
}

// pinSpot narrows the capacity type to spot and keeps the types that have
// an available spot offering there, in spot price order.
func (r *replacement) pinSpot() {
	r.reqs = r.reqs.Add(requirements.In(requirements.LabelCapacityType, "spot"))
	r.types = slices.DeleteFunc(r.types, func(it *instancetypes.InstanceType) bool {
		_, ok := cheapestOffering(it, r.reqs)
		return !ok
	})
	sortByPrice(r.types, r.reqs)
}

// minValuesOK reports whether the types still meet every minValues of the
// pool (minValues are never relaxed by consolidation, D-227).
func (m *model) minValuesOK(r *replacement) bool {
	return minValuesPrefix(r.types, m.minValuesReqs(r)) >= 0
}

// minValuesReqs are the pool's requirements that carry minValues, on the
// replacement's requirements (for offering values).
func (m *model) minValuesReqs(r *replacement) requirements.Requirements {
	p := m.poolByName[r.nc.NodePool]
	if p == nil {
		return requirements.Requirements{}
	}
	var out []requirements.Requirement
	for req := range p.tmpl.Requirements.All() {
		if req.MinValues() > 0 {
			out = append(out, req)
		}
	}
	return requirements.NewRequirements(out...)
}

// finish turns the replacement into the NodeClaim of a command: its options
// are the remaining types (the instance-type requirement says so too), the
// chosen offering is the cheapest of the first, labels carry every key
// pinned to one value, and requests are its pods' plus the DaemonSets that
// run on the chosen type.
func (m *model) finish(r *replacement, pods []*corev1.Pod) scheduler.NodeClaim {
	nc := r.nc
	names := make([]string, len(r.types))
	for i, it := range r.types {
		names[i] = it.Name
	}
	old := r.reqs.Get(requirements.LabelInstanceType)
	it := requirements.In(requirements.LabelInstanceType, names...).WithMinValues(old.MinValues())
	reqs := r.reqs.Add(it)
	// Add intersects: an In of the same names keeps them; an empty list
	// cannot happen (a command never has a replacement without options).
	nc.Requirements = reqs.Expressions()
	nc.InstanceTypeOptions = names
	if len(r.types) > 0 {
		if o, ok := cheapestOffering(r.types[0], reqs); ok {
			nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price = r.types[0].Name, o.Zone, o.CapacityType, o.Price
			nc.ZoneID, nc.ReservationID = o.ZoneID, o.ReservationID
		}
		nc.Requests = m.claimRequests(nc.NodePool, r.types[0], pods)
	}
	nc.Labels = m.claimLabels(nc, reqs)
	return nc
}

// claimLabels are the labels a planned NodeClaim's node will carry, as the
// plan states them: the pool's template labels, every key the requirements
// pin to one value, and those of the chosen offering (its instance type's
// labels, the instance type, zone, zone ID, capacity type, reservation).
func (m *model) claimLabels(nc scheduler.NodeClaim, reqs requirements.Requirements) map[string]string {
	out := map[string]string{}
	if p := m.poolByName[nc.NodePool]; p != nil {
		maps.Copy(out, p.np.Spec.Template.ObjectMeta.Labels)
	}
	maps.Copy(out, reqs.Labels())
	if it, ok := m.catalog.Get(nc.InstanceType); ok {
		for k, v := range it.Labels {
			if v != "" {
				out[k] = v
			}
		}
		out[requirements.LabelInstanceType] = it.Name
		out[requirements.LabelTopologyZone] = nc.Zone
		out[requirements.LabelCapacityType] = nc.CapacityType
		if nc.ZoneID != "" {
			out[instancetypes.LabelZoneID] = nc.ZoneID
		}
		if nc.ReservationID != "" {
			out[instancetypes.LabelReservationID] = nc.ReservationID
		}
	}
	return out
}

// claimRequests are the pods' requests plus the DaemonSets that run on a
// node of the pool with this instance type.
func (m *model) claimRequests(pool string, it *instancetypes.InstanceType, pods []*corev1.Pod) corev1.ResourceList {
	sum := corev1.ResourceList{}
	add := func(l corev1.ResourceList) {
		for n, q := range l {
			s := sum[n]
			s.Add(q)
			sum[n] = s
		}
	}
	for _, p := range pods {
		add(podrequests.OfPod(p))
	}
	if p := m.poolByName[pool]; p != nil {
		add(p.tmpl.DaemonSetOverhead(m.daemonSets, it.Requirements()))
	}
	return canonical(sum)
}
