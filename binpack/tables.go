package binpack

import (
	"slices"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Tables is a catalog prepared for packing over some dimensions:
// allocatable and capacity as vectors, offerings as small integers, a
// bitset per label value, and the price order of every type under the
// offering filters a solve meets most (see prepareOrders). NewTables builds it; from then on it is immutable:
// nothing writes to it, so any number of Indexes, on any goroutines, may
// read one Tables, and a caller that solves many times on one catalog
// builds it once.
type Tables struct {
	dims      Dims
	types     []*instancetypes.InstanceType
	alloc     []Vec
	capacity  []Vec
	zones     []string
	zoneIDs   []string // per zone, "" when unknown
	zoneIdx   map[string]int
	capTypes  []string
	ctIdx     map[string]int
	offerings [][]offer // per type, cheapest first (NewCatalog sorts them)
	keys      map[string]*keyIndex
	offerBits [][]TypeSet // [zone][capacity type], available offerings
	all       TypeSet
	// orders holds the price orders prepared with the tables, by the
	// signature of their offering filter.
	orders map[string]priceOrder
}

// priceOrder is the price order of every type under one offering filter,
// with each type's price.
type priceOrder struct {
	order  []int32
	prices []float64
}

// offer is one offering of a type: zone and capacity type as indexes.
type offer struct {
	zone, ct  int16
	price     float64
	available bool
	resID     string
	resCap    int
}

// keyIndex is one label key: which types carry each value, and which none.
type keyIndex struct {
	values   map[string][]int32 // value → the types that carry it
	distinct []string           // sorted
	absent   TypeSet
}

// NewTables prepares catalog for packing over dims. The tables share the
// catalog's instance types (read-only, like the catalog's own).
func NewTables(catalog instancetypes.Catalog, dims Dims) *Tables {
	types := catalog.Types()
	n := len(types)
	x := &Tables{
		dims: dims, types: types,
		alloc: make([]Vec, n), capacity: make([]Vec, n),
		zoneIdx: map[string]int{}, ctIdx: map[string]int{},
		offerings: make([][]offer, n), keys: map[string]*keyIndex{},
		all: FullTypeSet(n),
	}
	x.indexOfferingKeys()
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
		x.indexOfferings(t)
		x.indexLabels(t)
	}
	for _, ki := range x.keys {
		slices.Sort(ki.distinct)
	}
	x.prepareOrders()
	return x
}

// indexOfferingKeys numbers the zones and capacity types of the catalog's
// offerings, each in sorted order, and records each zone's ID.
func (x *Tables) indexOfferingKeys() {
	zoneID := map[string]string{}
	for _, it := range x.types {
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
}

// indexOfferings records type t's offerings, and its available ones in
// offerBits.
func (x *Tables) indexOfferings(t int) {
	for _, o := range x.types[t].Offerings {
		of := offer{zone: int16(x.zoneIdx[o.Zone]), ct: int16(x.ctIdx[o.CapacityType]), price: o.Price,
			available: !o.Unavailable, resID: o.ReservationID, resCap: o.ReservationCapacity}
		x.offerings[t] = append(x.offerings[t], of)
		if !o.Unavailable {
			x.offerBits[of.zone][of.ct].Set(t)
		}
	}
}

// indexLabels records type t's label values in the per-key indexes.
func (x *Tables) indexLabels(t int) {
	for k, v := range x.types[t].Labels {
		ki := x.keys[k]
		ki.absent.Clear(t)
		ts, seen := ki.values[v]
		if !seen {
			ki.distinct = append(ki.distinct, v)
		}
		ki.values[v] = append(ts, int32(t))
	}
}

// prepareOrders computes the price orders of the offering filters a solve
// meets most: every zone, or one zone (a claim topology spread pins to it),
// each with every capacity type or any subset of them (a NodePool or pod
// that asks for spot, or on-demand). Past maxPreparedOrders filters, only
// those of every zone are prepared; a solve's Index computes the others it
// meets.
func (x *Tables) prepareOrders() {
	x.orders = map[string]priceOrder{}
	var ctSets [][]string
	for mask := 1; mask < 1<<len(x.capTypes) && len(x.capTypes) <= maxPreparedCapTypes; mask++ {
		var set []string
		for i, ct := range x.capTypes {
			if mask&(1<<i) != 0 {
				set = append(set, ct)
			}
		}
		ctSets = append(ctSets, set)
	}
	zoneSets := [][]string{nil} // nil: every zone
	if (len(x.zones)+1)*len(ctSets) <= maxPreparedOrders {
		for _, z := range x.zones {
			zoneSets = append(zoneSets, []string{z})
		}
	}
	x.prepareOrder(requirements.Requirements{})
	for _, zs := range zoneSets {
		for _, cts := range ctSets {
			reqs := requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, cts...))
			if zs != nil {
				reqs = reqs.Add(requirements.In(requirements.LabelTopologyZone, zs...))
			}
			x.prepareOrder(reqs)
		}
	}
}

// maxPreparedCapTypes and maxPreparedOrders bound what NewTables prepares:
// each price order holds a price and a position per type.
const (
	maxPreparedCapTypes = 4
	maxPreparedOrders   = 64
)

// prepareOrder computes the price order under the offering filter of reqs,
// unless one with its signature is prepared already.
func (x *Tables) prepareOrder(reqs requirements.Requirements) {
	f := newOfferFilter(x, reqs)
	if _, ok := x.orders[f.sig]; !ok {
		x.orders[f.sig] = x.computeOrder(f)
	}
}

// match returns the types whose label satisfies r, a label key of the
// catalog (a fresh set).
func (x *Tables) match(r requirements.Requirement) TypeSet {
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
		return s
	}
	for _, v := range ki.distinct {
		if r.Has(v) {
			for _, t := range ki.values[v] {
				s.Set(int(t))
			}
		}
	}
	return s
}

// priceOrder returns the price order under f: the prepared one, or one
// computed now.
func (x *Tables) priceOrder(f OfferFilter) priceOrder {
	if po, ok := x.orders[f.sig]; ok {
		return po
	}
	return x.computeOrder(f)
}

// computeOrder sorts every type by its cheapest offering under f (types
// without one last, at +Inf), ties by catalog order.
func (x *Tables) computeOrder(f OfferFilter) priceOrder {
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
	return priceOrder{order: order, prices: prices}
}
