package binpack

import (
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Index is a catalog prepared for the solver's hot path: allocatable and
// capacity as vectors, offerings as small integers, and per-label bitsets,
// so that filtering the catalog by a requirement set is a handful of bitset
// operations and finding the cheapest type that fits a load is a scan over a
// price-sorted list. The tables are built once per catalog and dimensions
// and shared by every Index of them (see instancetypes.Catalog.Derived);
// an Index adds its own memos, so it is not safe for concurrent use, while
// separate Indexes of one catalog are.
type Index struct {
	*tables
	matchMemo map[string]TypeSet
	orderMemo map[string][]int32
	priceMemo map[string][]float64
}

// tables are the read-only part of an Index, and memos shared by all the
// Indexes of a catalog (bounded, so a long-lived catalog does not grow
// without end).
type tables struct {
	dims      Dims
	types     []*instancetypes.InstanceType
	alloc     []Vec
	capacity  []Vec
	zones     []string
	zoneIDs   []string // per zone, "" when unknown
	zoneIdx   map[string]int
	capTypes  []string
	ctIdx     map[string]int
	offerings [][]offer
	keys      map[string]*keyIndex
	offerBits [][]TypeSet // [zone][capacity type], available offerings
	all       TypeSet

	shared      sync.Map // "m"+fingerprint → TypeSet; "o"+signature → priceOrder
	sharedCount atomic.Int64
}

// priceOrder is a memoised PriceOrder with its prices.
type priceOrder struct {
	order  []int32
	prices []float64
}

// maxShared caps the memos shared across solves: past it, Indexes memoise
// only for themselves.
const maxShared = 4096

// share stores v under key in the shared memo while there is room.
func (t *tables) share(key string, v any) {
	if t.sharedCount.Load() >= maxShared {
		return
	}
	if _, loaded := t.shared.LoadOrStore(key, v); !loaded {
		t.sharedCount.Add(1)
	}
}

type offer struct {
	zone, ct  int16
	price     float64
	available bool
	resID     string
	resCap    int
}

type keyIndex struct {
	values   map[string][]int32 // value → the types that carry it
	distinct []string
	absent   TypeSet
}

// indexKey identifies an Index's tables among a catalog's derived values.
type indexKey struct{ dims string }

// NewIndex prepares catalog for a solve over dims; the tables are built
// once per catalog and dims.
func NewIndex(catalog instancetypes.Catalog, dims Dims) *Index {
	var names strings.Builder
	for i := range dims.Len() {
		names.WriteString(string(dims.Name(i)))
		names.WriteByte(0)
	}
	t := catalog.Derived(indexKey{names.String()}, func() any { return newTables(catalog, dims) }).(*tables)
	return &Index{tables: t, matchMemo: map[string]TypeSet{}, orderMemo: map[string][]int32{}, priceMemo: map[string][]float64{}}
}

func newTables(catalog instancetypes.Catalog, dims Dims) *tables {
	types := catalog.Types()
	n := len(types)
	x := &tables{
		dims: dims, types: types,
		alloc: make([]Vec, n), capacity: make([]Vec, n),
		zoneIdx: map[string]int{}, ctIdx: map[string]int{},
		offerings: make([][]offer, n), keys: map[string]*keyIndex{},
		all: FullTypeSet(n),
	}
	zoneID := map[string]string{}
	for _, it := range types {
		for _, o := range it.Offerings {
			if _, ok := x.zoneIdx[o.Zone]; !ok {
				x.zoneIdx[o.Zone] = -1
				x.zones = append(x.zones, o.Zone)
			}
			if o.ZoneID != "" {
				zoneID[o.Zone] = o.ZoneID
			}
			if _, ok := x.ctIdx[o.CapacityType]; !ok {
				x.ctIdx[o.CapacityType] = -1
				x.capTypes = append(x.capTypes, o.CapacityType)
			}
		}
	}
	slices.Sort(x.zones)
	slices.Sort(x.capTypes)
	for i, z := range x.zones {
		x.zoneIdx[z] = i
		x.zoneIDs = append(x.zoneIDs, zoneID[z])
	}
	for i, c := range x.capTypes {
		x.ctIdx[c] = i
	}
	x.offerBits = make([][]TypeSet, len(x.zones))
	for z := range x.zones {
		x.offerBits[z] = make([]TypeSet, len(x.capTypes))
		for c := range x.capTypes {
			x.offerBits[z][c] = NewTypeSet(n)
		}
	}
	for _, k := range catalog.LabelKeys() {
		x.keys[k] = &keyIndex{values: map[string][]int32{}, absent: FullTypeSet(n)}
	}
	for t, it := range types {
		x.alloc[t], _ = dims.Vector(it.Allocatable())
		x.capacity[t], _ = dims.Vector(it.Capacity)
		for _, o := range it.Offerings {
			of := offer{zone: int16(x.zoneIdx[o.Zone]), ct: int16(x.ctIdx[o.CapacityType]), price: o.Price,
				available: !o.Unavailable, resID: o.ReservationID, resCap: o.ReservationCapacity}
			x.offerings[t] = append(x.offerings[t], of)
			if !o.Unavailable {
				x.offerBits[of.zone][of.ct].Set(t)
			}
		}
		for k, v := range it.Labels {
			ki := x.keys[k]
			ki.absent.Clear(t)
			ts, seen := ki.values[v]
			if !seen {
				ki.distinct = append(ki.distinct, v)
			}
			ki.values[v] = append(ts, int32(t))
		}
	}
	for _, ki := range x.keys {
		slices.Sort(ki.distinct)
	}
	return x
}

// Len returns the number of instance types.
func (x *Index) Len() int { return len(x.types) }

// Type returns instance type t.
func (x *Index) Type(t int) *instancetypes.InstanceType { return x.types[t] }

// Allocatable returns the allocatable vector of type t.
func (x *Index) Allocatable(t int) Vec { return x.alloc[t] }

// Capacity returns the capacity vector of type t.
func (x *Index) Capacity(t int) Vec { return x.capacity[t] }

// Dims returns the dimensions of the index's vectors.
func (x *Index) Dims() Dims { return x.dims }

// Zones returns the zones of the catalog's offerings, sorted.
func (x *Index) Zones() []string { return x.zones }

// CapacityTypes returns the capacity types of the catalog's offerings, sorted.
func (x *Index) CapacityTypes() []string { return x.capTypes }

// All returns the set of every type. Do not modify it.
func (x *Index) All() TypeSet { return x.all }

// IsLabelKey reports whether some instance type of the catalog defines key.
func (x *Index) IsLabelKey(key string) bool { _, ok := x.keys[key]; return ok }

// LabelValues returns the distinct values of a label key among the types of set.
func (x *Index) LabelValues(key string, set TypeSet) []string {
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

// match returns the types whose label satisfies r (memoised).
func (x *Index) match(r requirements.Requirement) TypeSet {
	var b strings.Builder
	b.WriteString(requirements.NewRequirements(r.WithMinValues(0)).Fingerprint())
	fp := b.String()
	if s, ok := x.matchMemo[fp]; ok {
		return s
	}
	if v, ok := x.shared.Load("m" + fp); ok {
		x.matchMemo[fp] = v.(TypeSet)
		return v.(TypeSet)
	}
	ki := x.keys[r.Key()]
	s := NewTypeSet(len(x.types))
	if r.AllowsAbsent() {
		s.OrInto(ki.absent)
	}
	if r.IsFinite() {
		for _, v := range r.Values() {
			for _, t := range ki.values[v] {
				s.Set(int(t))
			}
		}
	} else {
		for _, v := range ki.distinct {
			if r.Has(v) {
				for _, t := range ki.values[v] {
					s.Set(int(t))
				}
			}
		}
	}
	x.matchMemo[fp] = s
	x.share("m"+fp, s)
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

func (x *Index) offerSet(f OfferFilter) TypeSet {
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
func (x *Index) Cheapest(t int, f OfferFilter, left ReservationsLeft) (price float64, offering int, ok bool) {
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
func (x *Index) Offering(t, i int) (zone, capacityType string, price float64, reservationID string) {
	o := x.offerings[t][i]
	return x.zones[o.zone], x.capTypes[o.ct], o.price, o.resID
}

// ZoneID returns the zone ID of a zone ("" when unknown).
func (x *Index) ZoneID(zone string) string {
	if i, ok := x.zoneIdx[zone]; ok {
		return x.zoneIDs[i]
	}
	return ""
}

// PriceOrder returns every type sorted by its cheapest offering under f
// (types without one last), ties by catalog order. The slice is memoised
// per filter signature and must not be modified.
func (x *Index) PriceOrder(f OfferFilter) []int32 {
	if o, ok := x.orderMemo[f.sig]; ok {
		return o
	}
	if v, ok := x.shared.Load("o" + f.sig); ok {
		po := v.(priceOrder)
		x.orderMemo[f.sig], x.priceMemo[f.sig] = po.order, po.prices
		return po.order
	}
	prices := make([]float64, len(x.types))
	type entry struct {
		price float64
		t     int32
	}
	entries := make([]entry, len(x.types))
	for t := range x.types {
		prices[t], _, _ = x.Cheapest(t, f, nil)
		entries[t] = entry{prices[t], int32(t)}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		switch {
		case a.price < b.price:
			return -1
		case a.price > b.price:
			return 1
		}
		return int(a.t - b.t)
	})
	order := make([]int32, len(x.types))
	for i, e := range entries {
		order[i] = e.t
	}
	x.orderMemo[f.sig] = order
	x.priceMemo[f.sig] = prices
	x.share("o"+f.sig, priceOrder{order, prices})
	return order
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
func (x *Index) Describe(v Vec) string {
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
func (x *Index) MarkOffered(t int, f OfferFilter, zones, capacityTypes []bool) {
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
func (x *Index) MarkOfferedSet(set TypeSet, f OfferFilter, zones, capacityTypes []bool) {
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
func (x *Index) MarkOfferedLeft(t int, f OfferFilter, left ReservationsLeft, zones, capacityTypes []bool) {
	for _, o := range x.offerings[t] {
		if f.allows(o) && (o.resID == "" || left == nil || left(o.resID) > 0) {
			zones[o.zone] = true
			capacityTypes[o.ct] = true
		}
	}
}

// HasReservation reports whether type t has an available offering in the
// capacity reservation id.
func (x *Index) HasReservation(t int, id string) bool {
	for _, o := range x.offerings[t] {
		if o.available && o.resID == id {
			return true
		}
	}
	return false
}

// ZoneIndex returns the index of a zone in Zones (-1 when unknown).
func (x *Index) ZoneIndex(zone string) int {
	if i, ok := x.zoneIdx[zone]; ok {
		return i
	}
	return -1
}

// CapacityTypeIndex returns the index of a capacity type in CapacityTypes
// (-1 when unknown).
func (x *Index) CapacityTypeIndex(ct string) int {
	if i, ok := x.ctIdx[ct]; ok {
		return i
	}
	return -1
}
