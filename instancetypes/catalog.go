package instancetypes

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Catalog is an ordered, validated list of instance types: the cloud layer a
// plan draws from. It is an immutable value; the instance types it returns
// are shared and must not be modified.
type Catalog struct {
	region    string
	source    string
	provider  string
	types     []*InstanceType
	byName    map[string]int
	labelKeys []string
	schema    requirements.Schema
}

// CatalogOption configures NewCatalog.
type CatalogOption func(*catalogConfig)

type catalogConfig struct {
	region       string
	source       string
	provider     string
	schema       *requirements.Schema
	vocabularies map[string]requirements.Schema
	transform    func(*Document) error
}

// Document is what a [WithTransform] function edits: a catalog's region,
// source, provider and instance types before validation. The types are the
// catalog's own copy: a transform may change, drop, add or reorder them in
// place.
type Document struct {
	Region        string
	Source        string
	Provider      string
	InstanceTypes []InstanceType
}

// WithRegion records the catalog's region.
func WithRegion(region string) CatalogOption { return func(c *catalogConfig) { c.region = region } }

// WithSource records where the catalog's facts came from.
func WithSource(source string) CatalogOption { return func(c *catalogConfig) { c.source = source } }

// WithBaseSchema sets the label vocabulary the catalog extends outright,
// whatever provider it names (default: the provider's vocabulary given with
// WithVocabulary, or requirements.DefaultSchema when it names none).
func WithBaseSchema(s requirements.Schema) CatalogOption {
	return func(c *catalogConfig) { c.schema = &s }
}

// WithTransform lets a provider edit a catalog before it is validated and
// its requirements and allocatable derived: transform receives the region,
// source and the catalog's own copy of the instance types (decoded by
// Decode, or copied by NewCatalog, after the other options were applied)
// and may change any of them in place. Its error is returned as is. The
// types it leaves are validated like any others, once; they become the
// catalog's, so they must not share maps or slices with anything the
// transform keeps. A later WithTransform replaces an earlier one.
func WithTransform(transform func(*Document) error) CatalogOption {
	return func(c *catalogConfig) { c.transform = transform }
}

// NewCatalog validates types and builds a catalog in the given order. The
// types are copied (the caller keeps its own), and each type's offerings are
// sorted cheapest first (ties: zone, capacity type, reservation ID).
//
// Zero values mean the common case: an offering is available unless
// Unavailable is set, and a type whose capacity has no "pods" can host
// [DefaultPods] pods (the kubelet's default maxPods; the catalog's copy of
// the type gets that capacity).
//
// What cannot work is rejected, naming the type. Errors are aggregated into
// one field.ErrorList whose paths name the instance type and the field
// (instanceTypes[m5.large].offerings[2].price): an empty or duplicate name;
// no cpu or no memory capacity, or a zero one; no offering; a label key
// that is not a qualified name, or that is decided per offering (zone, zone
// ID, capacity type, reservation ID); a label value that is not a valid
// label value; a resource name that is not a qualified name; a negative
// quantity; overhead (kubeReserved + systemReserved + evictionThreshold)
// larger than capacity, or of a resource without capacity; an offering
// without zone or capacity type, with an unknown capacity type, with a zone
// or zone ID that is not a valid label value, with a negative or
// non-finite price; a reserved offering without reservation ID or with a
// negative reservation capacity; a reservation ID or capacity on an
// offering that is not reserved; and two offerings of one type with the
// same zone, capacity type and reservation ID.
func NewCatalog(types []InstanceType, opts ...CatalogOption) (Catalog, error) {
	cfg := catalogConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	owned := make([]InstanceType, len(types))
	for i := range types {
		owned[i] = types[i].clone()
	}
	if cfg.transform != nil {
		var err error
		if owned, err = cfg.applyTransform(owned); err != nil {
			return Catalog{}, err
		}
	}
	if errs := validateTypes(owned); len(errs) > 0 {
		return Catalog{}, errs.ToAggregate()
	}
	return buildCatalog(owned, cfg)
}

// applyTransform runs the transform on types, which the caller owns, and
// takes the region, source and provider it leaves.
func (cfg *catalogConfig) applyTransform(types []InstanceType) ([]InstanceType, error) {
	doc := Document{Region: cfg.region, Source: cfg.source, Provider: cfg.provider, InstanceTypes: types}
	if err := cfg.transform(&doc); err != nil {
		return nil, err
	}
	cfg.region, cfg.source, cfg.provider = doc.Region, doc.Source, doc.Provider
	return doc.InstanceTypes, nil
}

// buildCatalog builds a catalog of validated types it takes ownership of:
// it sorts their offerings in place and derives requirements and
// allocatable. The error is a provider without a vocabulary.
func buildCatalog(types []InstanceType, cfg catalogConfig) (Catalog, error) {
	base, ferr := cfg.baseSchema()
	if ferr != nil {
		return Catalog{}, field.ErrorList{ferr}.ToAggregate()
	}
	c := Catalog{region: cfg.region, source: cfg.source, provider: cfg.provider, byName: make(map[string]int, len(types))}
	keys := map[string]struct{}{}
	for i := range types {
		for k := range types[i].Labels {
			keys[k] = struct{}{}
		}
	}
	c.labelKeys = slices.Sorted(maps.Keys(keys))
	c.types = make([]*InstanceType, len(types))
	labels := labelRequirements{}
	for i := range types {
		it := &types[i]
		defaultPods(it)
		slices.SortStableFunc(it.Offerings, compareOfferings)
		it.derive(c.labelKeys, labels)
		c.types[i] = it
		c.byName[it.Name] = i
	}
	c.schema = base.WithWellKnown(c.labelKeys...).WithWellKnown(LabelZoneID, LabelReservationID)
	return c, nil
}

// DefaultPods is the pods capacity of an instance type whose capacity does
// not say: the kubelet's default maxPods.
const DefaultPods = 110

// defaultPods gives a type without pods capacity the kubelet's default, so
// that it can host pods (every pod asks for one "pods").
func defaultPods(it *InstanceType) {
	if _, ok := it.Capacity[corev1.ResourcePods]; ok {
		return
	}
	if it.Capacity == nil {
		it.Capacity = corev1.ResourceList{}
	}
	it.Capacity[corev1.ResourcePods] = *resource.NewQuantity(DefaultPods, resource.DecimalSI)
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
// reqs. It does not allocate.
func Compatible(it *InstanceType, reqs requirements.Requirements) bool {
	q := newQuery(reqs)
	return it.compatible(&q)
}

// query is reqs prepared for matching many instance types: the offering
// keys looked up once.
type query struct {
	reqs     requirements.Requirements
	offering offeringMatcher
}

func newQuery(reqs requirements.Requirements) query {
	return query{reqs: reqs, offering: newOfferingMatcher(reqs)}
}

// compatible is Compatible. It checks the keys both sides define with
// Requirement.Intersects, as Requirements.Intersects does, but without
// building the error that explains a mismatch: most types of a catalog do
// not match, and the caller only asks whether.
func (it *InstanceType) compatible(q *query) bool {
	for r := range q.reqs.All() {
		if !it.requirements.Has(r.Key()) {
			continue
		}
		if !it.requirements.Get(r.Key()).Intersects(r) {
			return false
		}
	}
	_, ok := it.cheapestOffering(&q.offering)
	return ok
}

// Filter returns the instance types compatible with reqs, in catalog order.
// The types are shared: do not modify them.
func (c Catalog) Filter(reqs requirements.Requirements) []*InstanceType {
	var out []*InstanceType
	q := newQuery(reqs)
	for _, it := range c.types {
		if it.compatible(&q) {
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
	q := newQuery(reqs)
	for _, it := range c.types {
		if !it.compatible(&q) {
			continue
		}
		o, ok := it.cheapestOffering(&q.offering)
		if ok && (best == nil || o.Price < bestOffering.Price) {
			best, bestOffering = it, o
		}
	}
	return best, bestOffering, best != nil
}
