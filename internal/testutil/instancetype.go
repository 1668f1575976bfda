package testutil

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// InstanceTypeBuilder builds an instancetypes.InstanceType.
type InstanceTypeBuilder struct{ it instancetypes.InstanceType }

// InstanceType starts a type with its node.kubernetes.io/instance-type label
// and nothing else.
func InstanceType(name string) *InstanceTypeBuilder {
	return &InstanceTypeBuilder{it: instancetypes.InstanceType{
		Name:   name,
		Labels: map[string]string{requirements.LabelInstanceType: name},
	}}
}

// Obj returns a deep copy of the type built so far.
func (b *InstanceTypeBuilder) Obj() instancetypes.InstanceType {
	out := b.it
	out.Labels = map[string]string{}
	for k, v := range b.it.Labels {
		out.Labels[k] = v
	}
	out.Capacity = b.it.Capacity.DeepCopy()
	out.Overhead = instancetypes.Overhead{
		KubeReserved:      b.it.Overhead.KubeReserved.DeepCopy(),
		SystemReserved:    b.it.Overhead.SystemReserved.DeepCopy(),
		EvictionThreshold: b.it.Overhead.EvictionThreshold.DeepCopy(),
	}
	out.Offerings = append([]instancetypes.Offering(nil), b.it.Offerings...)
	return out
}

// Label sets a label.
func (b *InstanceTypeBuilder) Label(k, v string) *InstanceTypeBuilder {
	b.it.Labels[k] = v
	return b
}

// quantity sets one quantity of a list of the type.
func (b *InstanceTypeBuilder) quantity(l *corev1.ResourceList, name corev1.ResourceName, q string) {
	if *l == nil {
		*l = corev1.ResourceList{}
	}
	(*l)[name] = resource.MustParse(q)
}

// Capacity sets a capacity quantity.
func (b *InstanceTypeBuilder) Capacity(name corev1.ResourceName, q string) *InstanceTypeBuilder {
	b.quantity(&b.it.Capacity, name, q)
	return b
}

// CPU sets the cpu capacity.
func (b *InstanceTypeBuilder) CPU(q string) *InstanceTypeBuilder {
	return b.Capacity(corev1.ResourceCPU, q)
}

// Memory sets the memory capacity.
func (b *InstanceTypeBuilder) Memory(q string) *InstanceTypeBuilder {
	return b.Capacity(corev1.ResourceMemory, q)
}

// Pods sets the pods capacity.
func (b *InstanceTypeBuilder) Pods(q string) *InstanceTypeBuilder {
	return b.Capacity(corev1.ResourcePods, q)
}

// KubeReserved sets a kube-reserved quantity.
func (b *InstanceTypeBuilder) KubeReserved(name corev1.ResourceName, q string) *InstanceTypeBuilder {
	b.quantity(&b.it.Overhead.KubeReserved, name, q)
	return b
}

// SystemReserved sets a system-reserved quantity.
func (b *InstanceTypeBuilder) SystemReserved(name corev1.ResourceName, q string) *InstanceTypeBuilder {
	b.quantity(&b.it.Overhead.SystemReserved, name, q)
	return b
}

// EvictionThreshold sets an eviction threshold.
func (b *InstanceTypeBuilder) EvictionThreshold(name corev1.ResourceName, q string) *InstanceTypeBuilder {
	b.quantity(&b.it.Overhead.EvictionThreshold, name, q)
	return b
}

// Offering adds an available offering.
func (b *InstanceTypeBuilder) Offering(zone, capacityType string, price float64) *InstanceTypeBuilder {
	return b.OfferingOf(instancetypes.Offering{Zone: zone, CapacityType: capacityType, Price: price})
}

// UnavailableOffering adds an offering that exists but cannot be launched.
func (b *InstanceTypeBuilder) UnavailableOffering(zone, capacityType string, price float64) *InstanceTypeBuilder {
	return b.OfferingOf(instancetypes.Offering{Zone: zone, CapacityType: capacityType, Price: price, Unavailable: true})
}

// OfferingOf adds an offering as given (zone IDs, reservations).
func (b *InstanceTypeBuilder) OfferingOf(o instancetypes.Offering) *InstanceTypeBuilder {
	b.it.Offerings = append(b.it.Offerings, o)
	return b
}

// ReservedTypes are two amd64 instance types in zone z1 with 2 cpu each,
// for tests of capacity reservations: r.large (16Gi) has a reservation
// "cr-1" of one instance at $0.01/h, cheaper than everything else, then
// spot at $0.03 and on-demand at $0.12; m.small (4Gi) has spot at $0.02
// and on-demand at $0.05.
func ReservedTypes() []instancetypes.InstanceType {
	r := InstanceType("r.large").Label(requirements.LabelArch, "amd64").CPU("2").Memory("16Gi").Pods("10").
		OfferingOf(instancetypes.Offering{Zone: "z1", CapacityType: requirements.CapacityTypeReserved, Price: 0.01,
			ReservationID: "cr-1", ReservationCapacity: 1}).
		Offering("z1", requirements.CapacityTypeSpot, 0.03).Offering("z1", requirements.CapacityTypeOnDemand, 0.12).Obj()
	m := InstanceType("m.small").Label(requirements.LabelArch, "amd64").CPU("2").Memory("4Gi").Pods("10").
		Offering("z1", requirements.CapacityTypeSpot, 0.02).Offering("z1", requirements.CapacityTypeOnDemand, 0.05).Obj()
	return []instancetypes.InstanceType{r, m}
}
