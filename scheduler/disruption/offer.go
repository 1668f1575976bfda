package disruption

import (
	"cmp"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// claimRequirements parses a planned NodeClaim's requirements back into a
// requirement set.
func (m *model) claimRequirements(exprs []requirements.Expression) (requirements.Requirements, error) {
	schema := m.catalog.Schema()
	var rs []requirements.Requirement
	for _, e := range exprs {
		r, err := schema.Parse(e.Key, e.Operator, e.Values, e.MinValues)
		if err != nil {
			return requirements.Requirements{}, err
		}
		rs = append(rs, r)
	}
	return requirements.NewRequirements(rs...), nil
}

// cheapestOffering is the cheapest available offering of a type that the
// requirements allow (ok false: none).
func cheapestOffering(it *instancetypes.InstanceType, reqs requirements.Requirements) (instancetypes.Offering, bool) {
	var best instancetypes.Offering
	found := false
	for _, o := range it.Offerings {
		if o.Unavailable || !instancetypes.OfferingMatches(o, reqs) {
			continue
		}
		if !found || o.Price < best.Price || (o.Price == best.Price && offeringKey(o) < offeringKey(best)) {
			best, found = o, true
		}
	}
	return best, found
}

func offeringKey(o instancetypes.Offering) string {
	return o.Zone + "\x00" + o.CapacityType + "\x00" + o.ReservationID
}

// worstLaunchPrice is the most a launch of the type under the requirements
// can cost (Karpenter's WorstLaunchPrice): the most expensive available
// compatible offering of the capacity type a launch would take — reserved
// if any reserved offering fits, else spot, else on-demand. Zones count: a
// type at 0.2 in one zone and 1.0 in another is priced 1.0.
func worstLaunchPrice(it *instancetypes.InstanceType, reqs requirements.Requirements) float64 {
	for _, ct := range []string{"reserved", "spot", "on-demand"} {
		worst, found := 0.0, false
		for _, o := range it.Offerings {
			if !o.Unavailable && o.CapacityType == ct && instancetypes.OfferingMatches(o, reqs) {
				worst, found = max(worst, o.Price), true
			}
		}
		if found {
			return worst
		}
	}
	return math.MaxFloat64
}

// sortByPrice orders instance types by their cheapest available compatible
// offering, ties by name (the order of a NodeClaim's options).
func sortByPrice(types []*instancetypes.InstanceType, reqs requirements.Requirements) {
	p := make(map[string]float64, len(types))
	for _, it := range types {
		p[it.Name] = math.MaxFloat64
		if o, ok := cheapestOffering(it, reqs); ok {
			p[it.Name] = o.Price
		}
	}
	slices.SortStableFunc(types, func(a, b *instancetypes.InstanceType) int {
		return cmp.Or(cmp.Compare(p[a.Name], p[b.Name]), strings.Compare(a.Name, b.Name))
	})
}

// minValuesPrefix returns how many of the first types (in order) it takes
// to meet every minValues of the requirements, or -1 when all of them do
// not. Values of a key are the types' own (their labels, or the zones and
// capacity types of their compatible offerings).
func minValuesPrefix(types []*instancetypes.InstanceType, reqs requirements.Requirements) int {
	need := 0
	for r := range reqs.All() {
		if r.MinValues() == 0 {
			continue
		}
		seen := map[string]bool{}
		n := -1
		for i, it := range types {
			for _, v := range typeValues(it, r, reqs) {
				seen[v] = true
			}
			if len(seen) >= r.MinValues() {
				n = i + 1
				break
			}
		}
		if n < 0 {
			return -1
		}
		need = max(need, n)
	}
	return need
}

// typeValues are the values an instance type offers for a requirement's key
// that the requirement allows.
func typeValues(it *instancetypes.InstanceType, r requirements.Requirement, reqs requirements.Requirements) []string {
	var vals []string
	switch r.Key() {
	case requirements.LabelTopologyZone, requirements.LabelCapacityType, instancetypes.LabelZoneID:
		for _, o := range it.Offerings {
			if o.Unavailable || !instancetypes.OfferingMatches(o, reqs) {
				continue
			}
			switch r.Key() {
			case requirements.LabelTopologyZone:
				vals = append(vals, o.Zone)
			case requirements.LabelCapacityType:
				vals = append(vals, o.CapacityType)
			default:
				vals = append(vals, o.ZoneID)
			}
		}
	case requirements.LabelInstanceType:
		vals = []string{it.Name}
	default:
		if v, ok := it.Labels[r.Key()]; ok {
			vals = []string{v}
		}
	}
	return slices.DeleteFunc(vals, func(v string) bool { return !r.Has(v) })
}

// canonical renders requests as the plan does: cpu in millicores, bytes in
// binary units, zero entries dropped.
func canonical(l corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for n, q := range l {
		switch {
		case q.IsZero():
		case n == corev1.ResourceCPU:
			out[n] = *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI)
		case n == corev1.ResourceMemory || n == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix):
			out[n] = *resource.NewQuantity(q.Value(), resource.BinarySI)
		default:
			out[n] = *resource.NewQuantity(q.Value(), resource.DecimalSI)
		}
	}
	return out
}
