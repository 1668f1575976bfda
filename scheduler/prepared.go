package scheduler

import (
	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
)

// PreparedCatalog is a catalog indexed for Solve: its resource dimensions,
// the binpack tables of its instance types (labels as bitsets, offerings,
// allocatable and capacity as vectors, the price orders most solves use)
// and the capacity of its capacity reservations. It depends on the catalog
// alone, never on pods, NodePools or options.
//
// Solve prepares the catalog it is given on every call, unless
// [WithPrepared] passes a PreparedCatalog: a caller that solves many times
// on one catalog (an autoscaler every few seconds, a test table) calls
// [Prepare] once and passes the result to each Solve. A PreparedCatalog is
// immutable once Prepare returns; any number of Solves, on any goroutines,
// may read one. Solve keeps nothing between calls: what it memoises while
// planning lives and dies with the call.
type PreparedCatalog struct {
	catalog instancetypes.Catalog
	dims    binpack.Dims
	tables  *binpack.Tables
	// reservations is the capacity of each capacity reservation an
	// offering names (the smallest any of them states); empty when none.
	reservations map[string]int
	// offers are the distinct places of the available offerings (zone,
	// capacity type, zone ID), each with the types that offer it, in
	// the order first met (poolOfferings).
	offers []offerSet
}

// offerSet is one place some instance types offer.
type offerSet struct {
	zone, capacityType, zoneID string
	types                      binpack.TypeSet
}

// Prepare indexes catalog for Solve. The error is a catalog whose resources
// are more than Solve can count (binpack.MaxDims dimensions).
func Prepare(catalog instancetypes.Catalog) (*PreparedCatalog, error) {
	dims, err := binpack.NewDims(binpack.ResourceNames(catalog)...)
	if err != nil {
		return nil, err
	}
	p := &PreparedCatalog{catalog: catalog, dims: dims, tables: binpack.NewTables(catalog, dims), reservations: map[string]int{}}
	p.offers = offerSets(p.tables)
	for _, it := range catalog.Types() {
		for _, o := range it.Offerings {
			if o.ReservationID == "" {
				continue
			}
			if c, ok := p.reservations[o.ReservationID]; !ok || o.ReservationCapacity < c {
				p.reservations[o.ReservationID] = o.ReservationCapacity
			}
		}
	}
	return p, nil
}

// offerSets lists the places the available offerings of the tables'
// types are in, with the types that offer each.
func offerSets(t *binpack.Tables) []offerSet {
	var out []offerSet
	at := map[[3]string]int{}
	for ti := range t.Len() {
		for _, o := range t.Type(ti).Offerings {
			if o.Unavailable {
				continue
			}
			k := [3]string{o.Zone, o.CapacityType, o.ZoneID}
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				out = append(out, offerSet{zone: o.Zone, capacityType: o.CapacityType, zoneID: o.ZoneID, types: binpack.NewTypeSet(t.Len())})
			}
			out[i].types.Set(ti)
		}
	}
	return out
}

// Catalog returns the catalog p was prepared from.
func (p *PreparedCatalog) Catalog() instancetypes.Catalog { return p.catalog }

// isOf reports whether p was prepared from catalog (or a copy of the
// value): the two hold the same instance types, the very same ones.
func (p *PreparedCatalog) isOf(catalog instancetypes.Catalog) bool {
	mine, theirs := p.catalog.Types(), catalog.Types()
	if len(mine) != len(theirs) {
		return false
	}
	for i := range mine {
		if mine[i] != theirs[i] {
			return false
		}
	}
	return true
}

// WithPrepared makes Solve read p, prepared by [Prepare] from the catalog
// Solve is given (or a copy of that value), instead of preparing the
// catalog itself. A PreparedCatalog of another catalog, even an equal one
// decoded separately, is an *InputError. A nil p is no option (Solve
// prepares its own).
func WithPrepared(p *PreparedCatalog) Option {
	return func(c *config) { c.prepared = p }
}

// PrepareCatalog reports whether Solve can prepare catalog (the error
// Prepare would return). It keeps nothing: Solve no longer caches what it
// derives from a catalog.
//
// Deprecated: use [Prepare] once and pass the result to every Solve with
// [WithPrepared].
func PrepareCatalog(catalog instancetypes.Catalog) error {
	_, err := binpack.NewDims(binpack.ResourceNames(catalog)...)
	return err
}
