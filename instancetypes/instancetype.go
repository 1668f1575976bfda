package instancetypes

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/requirements"
)

// Offering-derived label keys: they vary per offering, so they are never in
// an instance type's Labels.
const (
	LabelZoneID        = "topology.k8s.aws/zone-id"
	LabelReservationID = "karpenter.k8s.aws/capacity-reservation-id"
)

// Offering is one way to buy an instance type: a zone, a capacity type and a
// price. The zero value of every optional field is the common case: an
// offering is available unless Unavailable is set. An Unavailable offering
// exists but cannot be launched now (an exhausted spot pool); it never hosts
// a new NodeClaim.
//
// In the catalog JSON (docs/CATALOG.md) Unavailable is written as
// "available": false, and a missing "available" means available; the
// offering's MarshalJSON and UnmarshalJSON keep that form for
// encoding/json too.
type Offering struct {
	Zone         string  `json:"zone"`
	ZoneID       string  `json:"zoneID,omitempty"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Unavailable  bool    `json:"-"`
	// ReservationID and ReservationCapacity describe a capacity reservation
	// (CapacityType "reserved"): a plan may use at most ReservationCapacity
	// instances of it, across all its NodeClaims.
	ReservationID       string `json:"reservationID,omitempty"`
	ReservationCapacity int    `json:"reservationCapacity,omitempty"`
}

// offeringJSON is an Offering in the catalog format: "available" where the
// Go value says Unavailable.
type offeringJSON struct {
	Zone                string  `json:"zone"`
	ZoneID              string  `json:"zoneID,omitempty"`
	CapacityType        string  `json:"capacityType"`
	Price               float64 `json:"price"`
	Available           *bool   `json:"available,omitempty"`
	ReservationID       string  `json:"reservationID,omitempty"`
	ReservationCapacity int     `json:"reservationCapacity,omitempty"`
}

// MarshalJSON writes the offering as the catalog format does, with
// "available".
func (o Offering) MarshalJSON() ([]byte, error) {
	available := !o.Unavailable
	return json.Marshal(offeringJSON{Zone: o.Zone, ZoneID: o.ZoneID, CapacityType: o.CapacityType, Price: o.Price,
		Available: &available, ReservationID: o.ReservationID, ReservationCapacity: o.ReservationCapacity})
}

// UnmarshalJSON reads the catalog format's offering: a missing "available"
// means available.
func (o *Offering) UnmarshalJSON(data []byte) error {
	var j offeringJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*o = Offering{Zone: j.Zone, ZoneID: j.ZoneID, CapacityType: j.CapacityType, Price: j.Price,
		Unavailable: j.Available != nil && !*j.Available, ReservationID: j.ReservationID, ReservationCapacity: j.ReservationCapacity}
	return nil
}

// Overhead is what kubelet and the system keep of a machine's capacity.
type Overhead struct {
	KubeReserved      corev1.ResourceList `json:"kubeReserved,omitempty"`
	SystemReserved    corev1.ResourceList `json:"systemReserved,omitempty"`
	EvictionThreshold corev1.ResourceList `json:"evictionThreshold,omitempty"`
}

// Total returns kubeReserved + systemReserved + evictionThreshold.
func (o Overhead) Total() corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, l := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range l {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	return out
}

// of returns kubeReserved + systemReserved + evictionThreshold of one
// resource, without building the Total list.
func (o Overhead) of(name corev1.ResourceName) resource.Quantity {
	var sum resource.Quantity
	for _, l := range [...]corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		if q, ok := l[name]; ok {
			sum.Add(q)
		}
	}
	return sum
}

// InstanceType is one machine type of a catalog. Build it with the exported
// fields, then let NewCatalog derive requirements and allocatable; an
// InstanceType obtained from a Catalog must not be modified (it is shared),
// nor a copy of one used after changing its Offerings: the copy still
// believes them sorted. Pass changed types through NewCatalog again.
type InstanceType struct {
	Name string `json:"name"`
	// Labels holds every single-valued label of the type (arch, OS, family,
	// cpu, memory, ...). Zone, zone ID and capacity type are not labels:
	// they come from Offerings.
	Labels    map[string]string   `json:"labels"`
	Capacity  corev1.ResourceList `json:"capacity"`
	Overhead  Overhead            `json:"overhead"`
	Offerings []Offering          `json:"offerings"`

	requirements requirements.Requirements
	allocatable  corev1.ResourceList
	// sorted is set by NewCatalog once Offerings are in compareOfferings
	// order, so the first match is the cheapest.
	sorted bool
}

// Requirements returns the type's requirements, derived by NewCatalog: an In
// requirement per label, DoesNotExist for every label key of the catalog the
// type lacks, and zone, zone ID and capacity type In the values of its
// available offerings (plus the reservation IDs of available reserved ones).
func (it *InstanceType) Requirements() requirements.Requirements { return it.requirements }

// Allocatable returns capacity − kubeReserved − systemReserved −
// evictionThreshold, never below zero, derived once by NewCatalog.
func (it *InstanceType) Allocatable() corev1.ResourceList { return it.allocatable }

// OfferingRequirements returns the requirements that describe one offering:
// its zone, zone ID (when set), capacity type and reservation ID (when set).
func OfferingRequirements(o Offering) requirements.Requirements {
	reqs := []requirements.Requirement{
		requirements.In(requirements.LabelTopologyZone, o.Zone),
		requirements.In(requirements.LabelCapacityType, o.CapacityType),
	}
	if o.ZoneID != "" {
		reqs = append(reqs, requirements.In(LabelZoneID, o.ZoneID))
	}
	if o.ReservationID != "" {
		reqs = append(reqs, requirements.In(LabelReservationID, o.ReservationID))
	}
	return requirements.NewRequirements(reqs...)
}

// OfferingMatches reports whether an offering satisfies reqs on the keys an
// offering decides (zone, zone ID, capacity type, reservation ID). A key the
// offering does not carry (no zone ID, no reservation) must allow absence.
func OfferingMatches(o Offering, reqs requirements.Requirements) bool {
	m := newOfferingMatcher(reqs)
	return m.matches(&o)
}

// offeringMatcher holds the requirements on the keys an offering decides,
// looked up once per query rather than once per offering.
type offeringMatcher struct {
	zone, capacityType, zoneID, reservationID requirements.Requirement
}

func newOfferingMatcher(reqs requirements.Requirements) offeringMatcher {
	return offeringMatcher{
		zone:          reqs.Get(requirements.LabelTopologyZone),
		capacityType:  reqs.Get(requirements.LabelCapacityType),
		zoneID:        reqs.Get(LabelZoneID),
		reservationID: reqs.Get(LabelReservationID),
	}
}

func (m *offeringMatcher) matches(o *Offering) bool {
	return m.zone.Matches(o.Zone, true) &&
		m.capacityType.Matches(o.CapacityType, true) &&
		m.zoneID.Matches(o.ZoneID, o.ZoneID != "") &&
		m.reservationID.Matches(o.ReservationID, o.ReservationID != "")
}

// CheapestOffering returns the cheapest available offering of it that
// satisfies reqs (ties: zone, then capacity type, then reservation ID). It
// does not allocate; on a type of a Catalog, whose offerings are sorted, it
// stops at the first match.
func (it *InstanceType) CheapestOffering(reqs requirements.Requirements) (Offering, bool) {
	m := newOfferingMatcher(reqs)
	return it.cheapestOffering(&m)
}

func (it *InstanceType) cheapestOffering(m *offeringMatcher) (Offering, bool) {
	best := -1
	for i := range it.Offerings {
		o := &it.Offerings[i]
		if o.Unavailable || !m.matches(o) {
			continue
		}
		if it.sorted {
			return *o, true
		}
		if best < 0 || compareOfferings(*o, it.Offerings[best]) < 0 {
			best = i
		}
	}
	if best < 0 {
		return Offering{}, false
	}
	return it.Offerings[best], true
}

// compareOfferings orders offerings cheapest first; ties by zone, capacity
// type, then reservation ID.
func compareOfferings(a, b Offering) int {
	if c := cmp.Compare(a.Price, b.Price); c != 0 {
		return c
	}
	if c := strings.Compare(a.Zone, b.Zone); c != 0 {
		return c
	}
	if c := strings.Compare(a.CapacityType, b.CapacityType); c != 0 {
		return c
	}
	return strings.Compare(a.ReservationID, b.ReservationID)
}

// labelRequirements hands out the requirement In(key, value) of a label,
// building each distinct one once per catalog: the same labels recur on
// hundreds of types, and a Requirement is immutable, so types share it.
type labelRequirements map[[2]string]requirements.Requirement

func (l labelRequirements) in(key, value string) requirements.Requirement {
	r, ok := l[[2]string{key, value}]
	if !ok {
		r = requirements.In(key, value)
		l[[2]string{key, value}] = r
	}
	return r
}

// derive computes requirements and allocatable. labelKeys are every label key
// of the catalog (sorted).
func (it *InstanceType) derive(labelKeys []string, labels labelRequirements) {
	reqs := make([]requirements.Requirement, 0, len(labelKeys)+4)
	for _, k := range labelKeys {
		if v, ok := it.Labels[k]; ok {
			reqs = append(reqs, labels.in(k, v))
		} else {
			reqs = append(reqs, requirements.DoesNotExist(k))
		}
	}
	// One scratch array for the four value lists; In copies what it keeps.
	n := len(it.Offerings)
	scratch := make([]string, 4*n)
	zones, capacityTypes, zoneIDs, reservations := scratch[:0:n], scratch[n:n:2*n], scratch[2*n:2*n:3*n], scratch[3*n:3*n]
	// Zone IDs and reservation IDs are requirements of the type only when
	// every available offering has one: an offering without is bought with
	// no such label, so `DoesNotExist` or `NotIn` must still find the type
	// (the offering-level check then picks the right offering).
	allZoneIDs, allReserved, available := true, true, 0
	for _, o := range it.Offerings {
		if o.Unavailable {
			continue
		}
		available++
		zones = append(zones, o.Zone)
		capacityTypes = append(capacityTypes, o.CapacityType)
		if o.ZoneID != "" {
			zoneIDs = append(zoneIDs, o.ZoneID)
		} else {
			allZoneIDs = false
		}
		if o.ReservationID != "" {
			reservations = append(reservations, o.ReservationID)
		} else {
			allReserved = false
		}
	}
	reqs = append(reqs,
		requirements.In(requirements.LabelTopologyZone, zones...),
		requirements.In(requirements.LabelCapacityType, capacityTypes...))
	if available > 0 && allZoneIDs {
		reqs = append(reqs, requirements.In(LabelZoneID, zoneIDs...))
	}
	if available > 0 && allReserved {
		reqs = append(reqs, requirements.In(LabelReservationID, reservations...))
	}
	it.requirements = requirements.NewRequirements(reqs...)

	alloc := make(corev1.ResourceList, len(it.Capacity))
	for name, q := range it.Capacity {
		a := q.DeepCopy()
		a.Sub(it.Overhead.of(name))
		if name == corev1.ResourceMemory {
			// Memory set aside as huge pages is not ordinary memory (the
			// kubelet takes it out of allocatable memory, B-095).
			for n, h := range it.Capacity {
				if strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
					a.Sub(h)
				}
			}
		}
		if a.Sign() < 0 {
			a = *resource.NewQuantity(0, q.Format)
		}
		alloc[name] = a
	}
	it.allocatable = alloc
	it.sorted = true
}

// clone returns a deep copy of the exported fields.
func (it *InstanceType) clone() InstanceType {
	return InstanceType{
		Name:      it.Name,
		Labels:    maps.Clone(it.Labels),
		Capacity:  it.Capacity.DeepCopy(),
		Offerings: slices.Clone(it.Offerings),
		Overhead: Overhead{
			KubeReserved:      it.Overhead.KubeReserved.DeepCopy(),
			SystemReserved:    it.Overhead.SystemReserved.DeepCopy(),
			EvictionThreshold: it.Overhead.EvictionThreshold.DeepCopy(),
		},
	}
}

func (it *InstanceType) String() string { return fmt.Sprintf("InstanceType(%s)", it.Name) }
