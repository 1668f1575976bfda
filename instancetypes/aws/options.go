package aws

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Option configures [Catalog].
type Option func(*config)

// config is the resolved options; its zero value (plus DefaultRegion) is
// the catalog as shipped.
type config struct {
	region           string
	zones            []string
	restrictZones    bool
	withoutSpot      bool
	spotFactor       float64
	repriceSpot      bool
	unavailable      []OfferingKey
	unavailableFuncs []func(OfferingKey) bool
	maxPods          int
	overrideMaxPods  bool
}

// OfferingKey names one offering of the catalog: an instance type in a zone
// with a capacity type.
type OfferingKey struct {
	InstanceType string
	Zone         string
	CapacityType string
}

// WithRegion prices the catalog for a region of the on-demand price table
// (see [Regions]; default us-east-1). For a region other than us-east-1:
//   - on-demand prices are the region's, and types without a price there
//     are left out;
//   - zones are the region's: the offerings of us-east-1a, b, c, ... move
//     to <region>a, b, c, ... with zone IDs <prefix>-az1, -az2, ... (for
//     example usge1-az1), and those of zones the region lacks are dropped
//     (the GovCloud regions have three zones);
//   - the spot price is the region's on-demand price × the spot factor of
//     the type's family in us-east-1 (the ratio of spot to on-demand price
//     there, rounded to 4 decimals as the data's model has it), rounded to
//     6 decimals;
//   - the label topology.kubernetes.io/region is the region.
//
// Which spot pools are unavailable carries over by zone letter. An unknown
// region is an error listing the known ones.
func WithRegion(region string) Option { return func(c *config) { c.region = region } }

// WithZones keeps only the offerings in these zones of the catalog's region
// (a later WithZones replaces an earlier one). A zone the region does not
// have is an error.
func WithZones(zones ...string) Option {
	zones = slices.Clone(zones)
	return func(c *config) { c.zones, c.restrictZones = zones, true }
}

// WithoutSpot drops every spot offering.
func WithoutSpot() Option { return func(c *config) { c.withoutSpot = true } }

// WithSpotPriceFactor prices every spot offering at the on-demand price of
// its type × factor (0 < factor <= 1), rounded to 6 decimals, instead of the
// modeled per-family factor.
func WithSpotPriceFactor(factor float64) Option {
	return func(c *config) { c.spotFactor, c.repriceSpot = factor, true }
}

// WithUnavailable marks offerings unavailable, as an insufficient-capacity
// cache would: they stay in the catalog but never host a new NodeClaim.
// Each key must name an instance type of the built-in data, a zone of the
// catalog's region and a capacity type; a key whose type the region lacks
// is ignored. Calls add up.
func WithUnavailable(offerings ...OfferingKey) Option {
	offerings = slices.Clone(offerings)
	return func(c *config) { c.unavailable = append(c.unavailable, offerings...) }
}

// WithUnavailableFunc marks unavailable every offering for which
// unavailable returns true (it is called once per offering, with the
// offering's final zone name). Calls add up, with each other and with
// WithUnavailable.
func WithUnavailableFunc(unavailable func(OfferingKey) bool) Option {
	return func(c *config) { c.unavailableFuncs = append(c.unavailableFuncs, unavailable) }
}

// WithMaxPods overrides the pods a node may run, as kubelet's maxPods in an
// EC2NodeClass does: every type's pods capacity (and its
// karpenter.k8s.aws/instance-pods label) becomes n, and its kube-reserved
// memory 11Mi × n + 255Mi, so allocatable memory falls by 11Mi for each pod
// more. A type whose memory cannot hold that reservation plus the eviction
// threshold is left out. n must be within 1..1000000.
func WithMaxPods(n int) Option { return func(c *config) { c.maxPods, c.overrideMaxPods = n, true } }

// maxMaxPods bounds WithMaxPods so that the reserved memory cannot overflow.
const maxMaxPods = 1_000_000

// validate checks the options that need no data; zones come with the region.
func (c *config) validate() field.ErrorList {
	var errs field.ErrorList
	// zonesOf knows exactly the regions of the price table (tested).
	if _, ok := zonesOf(c.region); !ok {
		return append(errs, field.NotSupported(field.NewPath("WithRegion"), c.region, Regions()))
	}
	known, _ := Zones(c.region)
	if c.restrictZones && len(c.zones) == 0 {
		errs = append(errs, field.Required(field.NewPath("WithZones"), "at least one zone"))
	}
	for i, zone := range c.zones {
		if !slices.Contains(known, zone) {
			errs = append(errs, field.NotSupported(field.NewPath("WithZones").Index(i), zone, known))
		}
	}
	if c.repriceSpot && !(c.spotFactor > 0 && c.spotFactor <= 1) {
		errs = append(errs, field.Invalid(field.NewPath("WithSpotPriceFactor"), c.spotFactor, "must be within (0, 1]"))
	}
	if c.overrideMaxPods && (c.maxPods < 1 || c.maxPods > maxMaxPods) {
		errs = append(errs, field.Invalid(field.NewPath("WithMaxPods"), c.maxPods, "must be within 1..1000000"))
	}
	for i, f := range c.unavailableFuncs {
		if f == nil {
			errs = append(errs, field.Required(field.NewPath("WithUnavailableFunc").Index(i), "a function"))
		}
	}
	return errs
}

// validateUnavailable checks the keys of WithUnavailable against the types
// of the built-in data.
func (c *config) validateUnavailable(isType func(string) bool) field.ErrorList {
	var errs field.ErrorList
	known, _ := Zones(c.region)
	capacityTypes := []string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot, requirements.CapacityTypeReserved}
	for i, k := range c.unavailable {
		p := field.NewPath("WithUnavailable").Index(i)
		if !isType(k.InstanceType) {
			errs = append(errs, field.NotFound(p.Child("instanceType"), k.InstanceType))
		}
		if !slices.Contains(known, k.Zone) {
			errs = append(errs, field.NotSupported(p.Child("zone"), k.Zone, known))
		}
		if !slices.Contains(capacityTypes, k.CapacityType) {
			errs = append(errs, field.NotSupported(p.Child("capacityType"), k.CapacityType, capacityTypes))
		}
	}
	return errs
}
