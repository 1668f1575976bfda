package instancetypes

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Catalog is an ordered, validated list of instance types: the cloud layer a
// plan draws from. It is an immutable value; the instance types it returns
// are shared and must not be modified.
type Catalog struct {
	region    string
	source    string
	types     []*InstanceType
	byName    map[string]int
	labelKeys []string
	schema    requirements.Schema
}

// CatalogOption configures NewCatalog.
type CatalogOption func(*catalogConfig)

type catalogConfig struct {
	region string
	source string
	schema *requirements.Schema
}

// WithRegion records the catalog's region.
func WithRegion(region string) CatalogOption { return func(c *catalogConfig) { c.region = region } }

// WithSource records where the catalog's facts came from.
func WithSource(source string) CatalogOption { return func(c *catalogConfig) { c.source = source } }

// WithBaseSchema sets the label vocabulary the catalog extends (default
// requirements.DefaultSchema). Providers pass their aliases and restricted
// domains here.
func WithBaseSchema(s requirements.Schema) CatalogOption {
	return func(c *catalogConfig) { c.schema = &s }
}

// NewCatalog validates types and builds a catalog in the given order. The
// types are copied. Errors name the instance type and the field:
// duplicate names, an empty name, negative capacity or prices, non-finite
// prices, offerings without zone or capacity type, an unknown capacity type,
// a reserved offering without reservation ID or capacity, and overhead larger
// than capacity.
func NewCatalog(types []InstanceType, opts ...CatalogOption) (Catalog, error) {
	cfg := catalogConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if errs := validateTypes(types); len(errs) > 0 {
		return Catalog{}, errs.ToAggregate()
	}
	c := Catalog{region: cfg.region, source: cfg.source, byName: make(map[string]int, len(types))}
	keys := map[string]struct{}{}
	for i := range types {
		for k := range types[i].Labels {
			keys[k] = struct{}{}
		}
	}
	c.labelKeys = slices.Sorted(maps.Keys(keys))
	c.types = make([]*InstanceType, len(types))
	for i := range types {
		it := types[i].clone()
		slices.SortStableFunc(it.Offerings, func(a, b Offering) int {
			switch {
			case offeringLess(a, b):
				return -1
			case offeringLess(b, a):
				return 1
			}
			return 0
		})
		it.derive(c.labelKeys)
		c.types[i] = it
		c.byName[it.Name] = i
	}
	base := requirements.DefaultSchema()
	if cfg.schema != nil {
		base = *cfg.schema
	}
	c.schema = base.WithWellKnown(c.labelKeys...).WithWellKnown(LabelZoneID, LabelReservationID)
	return c, nil
}

func validateTypes(types []InstanceType) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]int{}
	for i := range types {
		it := &types[i]
		p := field.NewPath("instanceTypes").Index(i)
		if it.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "instance type needs a name"))
		} else {
			p = field.NewPath("instanceTypes").Key(it.Name)
			if j, dup := seen[it.Name]; dup {
				errs = append(errs, field.Duplicate(p.Child("name"), fmt.Sprintf("%s (also instanceTypes[%d])", it.Name, j)))
			}
			seen[it.Name] = i
		}
		for name, q := range it.Capacity {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child("capacity").Key(string(name)), q.String(), "must not be negative"))
			}
		}
		total := it.Overhead.Total()
		for name, q := range total {
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child("overhead").Key(string(name)), q.String(), "must not be negative"))
				continue
			}
			c, ok := it.Capacity[name]
			if q.Sign() > 0 && (!ok || q.Cmp(c) > 0) {
				errs = append(errs, field.Invalid(p.Child("overhead").Key(string(name)), q.String(),
					fmt.Sprintf("overhead is larger than capacity %s", c.String())))
			}
		}
		for j, o := range it.Offerings {
			op := p.Child("offerings").Index(j)
			if o.Zone == "" {
				errs = append(errs, field.Required(op.Child("zone"), "offering needs a zone"))
			}
			switch o.CapacityType {
			case "":
				errs = append(errs, field.Required(op.Child("capacityType"), "offering needs a capacity type"))
			case requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot:
			case requirements.CapacityTypeReserved:
				if o.ReservationID == "" {
					errs = append(errs, field.Required(op.Child("reservationID"), "a reserved offering needs a reservation ID"))
				}
				if o.ReservationCapacity < 0 {
					errs = append(errs, field.Invalid(op.Child("reservationCapacity"), o.ReservationCapacity, "must not be negative"))
				}
			default:
				errs = append(errs, field.NotSupported(op.Child("capacityType"), o.CapacityType,
					[]string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot, requirements.CapacityTypeReserved}))
			}
			if math.IsNaN(o.Price) || math.IsInf(o.Price, 0) || o.Price < 0 {
				errs = append(errs, field.Invalid(op.Child("price"), o.Price, "price must be a non-negative number"))
			}
		}
	}
	return errs
}

// Region returns the catalog's region ("" when unknown).
func (c Catalog) Region() string { return c.region }

// Source returns where the catalog's facts came from.
func (c Catalog) Source() string { return c.source }

// Len returns the number of instance types.
func (c Catalog) Len() int { return len(c.types) }

// Types returns the instance types in catalog order. The slice and the types
// are shared: do not modify them.
func (c Catalog) Types() []*InstanceType { return c.types }

// Get returns the instance type named name.
func (c Catalog) Get(name string) (*InstanceType, bool) {
	i, ok := c.byName[name]
	if !ok {
		return nil, false
	}
	return c.types[i], true
}

// Index returns the position of the instance type named name.
func (c Catalog) Index(name string) (int, bool) {
	i, ok := c.byName[name]
	return i, ok
}

// LabelKeys returns every label key any instance type carries, sorted: the
// catalog's well-known labels.
func (c Catalog) LabelKeys() []string { return slices.Clone(c.labelKeys) }

// Schema returns the label vocabulary to solve with: the base schema plus
// every label key of the catalog and the offering keys (zone ID,
// reservation ID) as well-known labels.
func (c Catalog) Schema() requirements.Schema { return c.schema }

// Compatible reports whether it can satisfy reqs: its labels intersect reqs
// on the keys both define, and it has an available offering that satisfies
// reqs.
func Compatible(it *InstanceType, reqs requirements.Requirements) bool {
	if it.requirements.Intersects(reqs) != nil {
		return false
	}
	_, ok := it.CheapestOffering(reqs)
	return ok
}

// Filter returns the instance types compatible with reqs, in catalog order.
func (c Catalog) Filter(reqs requirements.Requirements) []*InstanceType {
	var out []*InstanceType
	for _, it := range c.types {
		if Compatible(it, reqs) {
			out = append(out, it)
		}
	}
	return out
}

// Cheapest returns the instance type and offering with the lowest price among
// types compatible with reqs (ties: catalog order).
func (c Catalog) Cheapest(reqs requirements.Requirements) (*InstanceType, Offering, bool) {
	var best *InstanceType
	var bestOffering Offering
	for _, it := range c.types {
		if it.requirements.Intersects(reqs) != nil {
			continue
		}
		o, ok := it.CheapestOffering(reqs)
		if ok && (best == nil || o.Price < bestOffering.Price) {
			best, bestOffering = it, o
		}
	}
	return best, bestOffering, best != nil
}
