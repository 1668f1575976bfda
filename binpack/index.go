package binpack

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Index answers a solve's questions about a catalog: which instance types
// a requirement set allows (Filter), in which price order (PriceOrder), at
// which prices. It reads a [Tables], shared and read-only, and keeps memos
// of its own answers (per requirement and per offering filter), so it is
// for one goroutine; any number of Indexes of one Tables may run at once.
// Nothing an Index memoises outlives it.
type Index struct {
	*Tables
	matchMemo map[string]TypeSet
	orderMemo map[string][]int32
	priceMemo map[string][]float64
}

// NewIndex returns an Index reading t, with empty memos of its own.
func NewIndex(t *Tables) *Index {
	return &Index{Tables: t, matchMemo: map[string]TypeSet{}, orderMemo: map[string][]int32{}, priceMemo: map[string][]float64{}}
}

// Len returns the number of instance types.
func (x *Tables) Len() int { return len(x.types) }

// Type returns instance type t.
func (x *Tables) Type(t int) *instancetypes.InstanceType { return x.types[t] }

// Allocatable returns the allocatable vector of type t.
func (x *Tables) Allocatable(t int) Vec { return x.alloc[t] }

// Capacity returns the capacity vector of type t.
func (x *Tables) Capacity(t int) Vec { return x.capacity[t] }

// Dims returns the dimensions of the index's vectors.
func (x *Tables) Dims() Dims { return x.dims }

// Zones returns the zones of the catalog's offerings, sorted.
func (x *Tables) Zones() []string { return x.zones }

// CapacityTypes returns the capacity types of the catalog's offerings, sorted.
func (x *Tables) CapacityTypes() []string { return x.capTypes }

// All returns the set of every type. Do not modify it.
func (x *Tables) All() TypeSet { return x.all }

// IsLabelKey reports whether some instance type of the catalog defines key.
func (x *Tables) IsLabelKey(key string) bool { _, ok := x.keys[key]; return ok }

// LabelValues returns the distinct values of a label key among the types of set.
func (x *Tables) LabelValues(key string, set TypeSet) []string {
	ki, ok := x.keys[key]
	if !ok {
		return nil
	}
	var out []string
	for _, v := range ki.distinct {
		if slices.ContainsFunc(ki.values[v], func(t int32) bool { return set.Has(int(t)) }) {
			out = append(out, v)
		}
	}
	return out
}

// Filter returns the types compatible with reqs: on every label key of the
// catalog that reqs defines, the type's value (or its absence) satisfies the
// requirement, and the type has an available offering that satisfies the
// requirements on zone, zone ID, capacity type and reservation ID. Keys the
// catalog does not know (custom labels, the NodePool name) are ignored, as
// an instance type does not decide them. The result is a fresh set.
func (x *Index) Filter(reqs requirements.Requirements) TypeSet {
	set := x.FilterLabels(reqs)
	set.AndInto(x.offerSet(NewOfferFilter(x, reqs)))
	return set
}

// FilterLabels is Filter without the offering check: the types whose labels
// satisfy reqs, whether or not they can be bought where reqs allow.
func (x *Index) FilterLabels(reqs requirements.Requirements) TypeSet {
	set := x.all.Clone()
	for r := range reqs.All() {
		if _, ok := x.keys[r.Key()]; ok {
			set.AndInto(x.match(r))
		}
	}
	return set
}

// match returns the types whose label satisfies r (memoised per
// requirement; the set is shared and must not be modified).
func (x *Index) match(r requirements.Requirement) TypeSet {
	fp := requirements.NewRequirements(r.WithMinValues(0)).Fingerprint()
	if s, ok := x.matchMemo[fp]; ok {
		return s
	}
	s := x.Tables.match(r)
	x.matchMemo[fp] = s
	return s
}

// OfferFilter is the part of a requirement set that decides offerings:
// which zones and capacity types are allowed, and which reservations.
type OfferFilter struct {
	zoneOK []bool
	ctOK   []bool
	res    requirements.Requirement
	hasRes bool
	sig    string
}

// NewOfferFilter extracts the offering constraints of reqs.
func NewOfferFilter(x *Index, reqs requirements.Requirements) OfferFilter {
	return newOfferFilter(x.Tables, reqs)
}

// newOfferFilter is NewOfferFilter on the tables alone.
func newOfferFilter(x *Tables, reqs requirements.Requirements) OfferFilter {
	f := OfferFilter{zoneOK: make([]bool, len(x.zones)), ctOK: make([]bool, len(x.capTypes))}
	zr := reqs.Get(requirements.LabelTopologyZone)
	zidr := reqs.Get(instancetypes.LabelZoneID)
	var sig strings.Builder
	for i, z := range x.zones {
		f.zoneOK[i] = zr.Has(z) && zidr.Matches(x.zoneIDs[i], x.zoneIDs[i] != "")
		sig.WriteByte('0' + boolByte(f.zoneOK[i]))
	}
	sig.WriteByte('|')
	ctr := reqs.Get(requirements.LabelCapacityType)
	for i, c := range x.capTypes {
		f.ctOK[i] = ctr.Has(c)
		sig.WriteByte('0' + boolByte(f.ctOK[i]))
	}
	if reqs.Has(instancetypes.LabelReservationID) {
		f.res, f.hasRes = reqs.Get(instancetypes.LabelReservationID), true
		sig.WriteString("|" + requirements.NewRequirements(f.res).Fingerprint())
	}
	f.sig = sig.String()
	return f
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Signature identifies the filter: equal signatures allow the same offerings.
func (f OfferFilter) Signature() string { return f.sig }

// ZoneAllowed reports whether zone index z is allowed.
func (f OfferFilter) ZoneAllowed(z int) bool { return f.zoneOK[z] }

func (f OfferFilter) allows(o offer) bool {
	if !o.available || !f.zoneOK[o.zone] || !f.ctOK[o.ct] {
		return false
	}
	if f.hasRes {
		return f.res.Matches(o.resID, o.resID != "")
	}
	return true
}

func (x *Tables) offerSet(f OfferFilter) TypeSet {
	s := NewTypeSet(len(x.types))
	if f.hasRes {
		for t := range x.types {
			if _, _, ok := x.Cheapest(t, f, nil); ok {
				s.Set(t)
			}
		}
		return s
	}
	for z := range x.zones {
		if !f.zoneOK[z] {
			continue
		}
		for c := range x.capTypes {
			if f.ctOK[c] {
				s.OrInto(x.offerBits[z][c])
			}
		}
	}
	return s
}

// ReservationsLeft says how many instances a reservation can still host;
// nil means no reservation is exhausted.
type ReservationsLeft func(id string) int

// Cheapest returns the price and position of type t's cheapest offering
// that f allows and that is available (a reserved offering also needs room
// in its reservation per left).
func (x *Tables) Cheapest(t int, f OfferFilter, left ReservationsLeft) (price float64, offering int, ok bool) {
	for i, o := range x.offerings[t] { // sorted by price (NewCatalog)
		if !f.allows(o) {
			continue
		}
		if o.resID != "" && left != nil && left(o.resID) <= 0 {
			continue
		}
		return o.price, i, true
	}
	return math.Inf(1), -1, false
}

// Offering returns offering i of type t as zone, capacity type, price and
// reservation ID.
func (x *Tables) Offering(t, i int) (zone, capacityType string, price float64, reservationID string) {
	o := x.offerings[t][i]
	return x.zones[o.zone], x.capTypes[o.ct], o.price, o.resID
}

// ZoneID returns the zone ID of a zone ("" when unknown).
func (x *Tables) ZoneID(zone string) string {
	if i, ok := x.zoneIdx[zone]; ok {
		return x.zoneIDs[i]
	}
	return ""
}

// PriceOrder returns every type sorted by its cheapest offering under f
// (types without one last), ties by catalog order. The slice is memoised
// per filter signature (or prepared with the Tables) and must not be
// modified.
func (x *Index) PriceOrder(f OfferFilter) []int32 {
	if o, ok := x.orderMemo[f.sig]; ok {
		return o
	}
	po := x.Tables.priceOrder(f)
	x.orderMemo[f.sig], x.priceMemo[f.sig] = po.order, po.prices
	return po.order
}

// Prices returns, per type, the price of its cheapest available offering
// under f (+Inf when it has none), ignoring reservation counts. The slice is
// memoised per filter signature and must not be modified.
func (x *Index) Prices(f OfferFilter) []float64 {
	if p, ok := x.priceMemo[f.sig]; ok {
		return p
	}
	x.PriceOrder(f)
	return x.priceMemo[f.sig]
}

// Describe renders a vector for people, e.g. "cpu=2, memory=4Gi".
func (x *Tables) Describe(v Vec) string {
	var parts []string
	for i := 0; i < x.dims.Len(); i++ {
		if v[i] != 0 {
			parts = append(parts, string(x.dims.Name(i))+"="+x.dims.Format(i, v[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// ResourceNames returns every resource name any type has capacity for,
// sorted: the dimensions a solve needs beyond cpu, memory and pods.
func ResourceNames(catalog instancetypes.Catalog) []corev1.ResourceName {
	seen := map[corev1.ResourceName]bool{}
	var out []corev1.ResourceName
	for _, it := range catalog.Types() {
		for n := range it.Capacity {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// MarkOffered sets zones[z] and capacityTypes[c] for every available
// offering of type t that f allows (indexes as in Zones and CapacityTypes).
func (x *Tables) MarkOffered(t int, f OfferFilter, zones, capacityTypes []bool) {
	for _, o := range x.offerings[t] {
		if f.allows(o) {
			zones[o.zone] = true
			capacityTypes[o.ct] = true
		}
	}
}

// MarkOfferedSet sets zones[z] and capacityTypes[c] when some type of set
// has an available offering in zone z with capacity type c that f allows
// (reservation filters aside).
func (x *Tables) MarkOfferedSet(set TypeSet, f OfferFilter, zones, capacityTypes []bool) {
	for z := range x.zones {
		if !f.zoneOK[z] {
			continue
		}
		for c := range x.capTypes {
			if f.ctOK[c] && x.offerBits[z][c].Intersects(set) {
				zones[z] = true
				capacityTypes[c] = true
			}
		}
	}
}

// MarkOfferedLeft is MarkOffered counting a reserved offering only while
// its reservation has room per left.
func (x *Tables) MarkOfferedLeft(t int, f OfferFilter, left ReservationsLeft, zones, capacityTypes []bool) {
	for _, o := range x.offerings[t] {
		if f.allows(o) && (o.resID == "" || left == nil || left(o.resID) > 0) {
			zones[o.zone] = true
			capacityTypes[o.ct] = true
		}
	}
}

// ReservedOfferings returns the positions (for Offering) of type t's
// available reserved offerings that f allows and whose reservation has room
// per left, cheapest first.
func (x *Tables) ReservedOfferings(t int, f OfferFilter, left ReservationsLeft) []int {
	var out []int
	for i, o := range x.offerings[t] { // sorted by price (NewCatalog)
		if o.resID == "" || !f.allows(o) || (left != nil && left(o.resID) <= 0) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// HasReservation reports whether type t has an available offering in the
// capacity reservation id.
func (x *Tables) HasReservation(t int, id string) bool {
	for _, o := range x.offerings[t] {
		if o.available && o.resID == id {
			return true
		}
	}
	return false
}

// ZoneIndex returns the index of a zone in Zones (-1 when unknown).
func (x *Tables) ZoneIndex(zone string) int {
	if i, ok := x.zoneIdx[zone]; ok {
		return i
	}
	return -1
}

// CapacityTypeIndex returns the index of a capacity type in CapacityTypes
// (-1 when unknown).
func (x *Tables) CapacityTypeIndex(ct string) int {
	if i, ok := x.ctIdx[ct]; ok {
		return i
	}
	return -1
}
