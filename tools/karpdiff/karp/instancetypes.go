package karp

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// Label keys an offering decides besides zone and capacity type (the AWS
// provider's names, which the catalog format uses).
const (
	labelZoneID        = "topology.k8s.aws/zone-id"
	labelReservationID = "karpenter.k8s.aws/capacity-reservation-id"
)

// InstanceTypes converts the catalog into Karpenter's instance types, as a
// cloud provider's GetInstanceTypes returns them: requirements In the type's
// value for every label key of the catalog it carries and DoesNotExist for
// the keys it lacks; zone and capacity type In the values of its available
// offerings (zone ID and reservation ID too when every available offering
// has one); one Offering per catalog offering.
func InstanceTypes(cat instancetypes.Catalog) []*cloudprovider.InstanceType {
	keys := catalogLabelKeys(cat)
	out := make([]*cloudprovider.InstanceType, 0, cat.Len())
	for _, it := range cat.Types() {
		out = append(out, convertType(it, keys))
	}
	return out
}

// catalogLabelKeys returns every label key any type of the catalog carries,
// sorted.
func catalogLabelKeys(cat instancetypes.Catalog) []string {
	seen := map[string]bool{}
	var keys []string
	for _, it := range cat.Types() {
		for k := range it.Labels {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func convertType(it *instancetypes.InstanceType, keys []string) *cloudprovider.InstanceType {
	reqs := scheduling.NewRequirements()
	for _, k := range keys {
		if v, ok := it.Labels[k]; ok {
			reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpIn, v))
		} else {
			reqs.Add(scheduling.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	if _, ok := it.Labels[corev1.LabelInstanceTypeStable]; !ok {
		reqs.Add(scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, it.Name))
	}
	var zones, cts, zoneIDs, resIDs []string
	allZoneIDs, allReserved, available := true, true, 0
	offerings := make(cloudprovider.Offerings, 0, len(it.Offerings))
	for _, o := range it.Offerings {
		offerings = append(offerings, convertOffering(o))
		if o.Unavailable {
			continue
		}
		available++
		zones = append(zones, o.Zone)
		cts = append(cts, o.CapacityType)
		allZoneIDs = allZoneIDs && o.ZoneID != ""
		allReserved = allReserved && o.ReservationID != ""
		zoneIDs = append(zoneIDs, o.ZoneID)
		resIDs = append(resIDs, o.ReservationID)
	}
	reqs.Add(scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...))
	reqs.Add(scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...))
	if available > 0 && allZoneIDs {
		reqs.Add(scheduling.NewRequirement(labelZoneID, corev1.NodeSelectorOpIn, zoneIDs...))
	}
	if available > 0 && allReserved {
		reqs.Add(scheduling.NewRequirement(labelReservationID, corev1.NodeSelectorOpIn, resIDs...))
	}
	return &cloudprovider.InstanceType{
		Name:         it.Name,
		Requirements: reqs,
		Offerings:    offerings,
		Capacity:     it.Capacity.DeepCopy(),
		Overhead: &cloudprovider.InstanceTypeOverhead{
			KubeReserved:      orEmpty(it.Overhead.KubeReserved),
			SystemReserved:    orEmpty(it.Overhead.SystemReserved),
			EvictionThreshold: orEmpty(it.Overhead.EvictionThreshold),
		},
	}
}

func convertOffering(o instancetypes.Offering) *cloudprovider.Offering {
	labels := map[string]string{
		corev1.LabelTopologyZone:    o.Zone,
		karpv1.CapacityTypeLabelKey: o.CapacityType,
	}
	if o.ZoneID != "" {
		labels[labelZoneID] = o.ZoneID
	}
	if o.ReservationID != "" {
		labels[labelReservationID] = o.ReservationID
	}
	return &cloudprovider.Offering{
		Requirements:        scheduling.NewLabelRequirements(labels),
		Price:               o.Price,
		Available:           !o.Unavailable,
		ReservationCapacity: o.ReservationCapacity,
	}
}

func orEmpty(l corev1.ResourceList) corev1.ResourceList {
	if l == nil {
		return corev1.ResourceList{}
	}
	return l.DeepCopy()
}
