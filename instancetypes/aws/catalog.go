package aws

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Kubelet's memory reservation per node, as Karpenter's AWS provider
// computes it: 11Mi per pod plus 255Mi.
const (
	kubeReservedMemoryPerPodMi = 11
	kubeReservedMemoryBaseMi   = 255
)

// Catalog returns the built-in AWS catalog, decoded afresh from the
// embedded data on every call (the caller owns the result; nothing is
// shared between calls). With no options it is us-east-1 as shipped: 1345
// instance types in six zones, on-demand and (modeled) spot offerings.
//
// Every type carries the label karpenter.k8s.aws/instance-pods, valued
// from its pods capacity: Karpenter lists it as well-known, but the
// reference data has no column for it. The catalog names the provider
// "aws" ([Provider]) and extends [Schema], so Catalog.Schema is the AWS
// vocabulary plus the catalog's keys; Encode writes "provider": "aws", and
// Decode with [Vocabulary] reads it back alike.
//
// Options are resolved first, in any order, then applied: region, zones,
// spot, unavailable offerings, max pods (see each). Invalid options are
// reported together, each under its option's name.
func Catalog(opts ...Option) (instancetypes.Catalog, error) {
	cfg := config{region: DefaultRegion}
	for _, o := range opts {
		o(&cfg)
	}
	errs := cfg.validate()
	if _, ok := zonesOf(cfg.region); !ok {
		return instancetypes.Catalog{}, errs.ToAggregate() // zones and keys depend on the region
	}
	raw, err := readData(catalogFile)
	if err != nil {
		return instancetypes.Catalog{}, err
	}
	// The options are applied to the decoded types before the one
	// validation pass, without another copy.
	c, err := instancetypes.Decode(raw, instancetypes.WithProvider(Provider), Vocabulary(),
		instancetypes.WithTransform(func(doc *instancetypes.Document) error {
			b, berrs := newBuilder(cfg, doc.InstanceTypes)
			if errs = append(errs, berrs...); len(errs) > 0 {
				return errs.ToAggregate()
			}
			b.applyTo(doc)
			return nil
		}))
	if err != nil && len(errs) == 0 {
		return instancetypes.Catalog{}, fmt.Errorf("built-in AWS catalog: %w", err)
	}
	return c, err
}

// applyTo applies the options to a decoded document, in place.
func (b *builder) applyTo(doc *instancetypes.Document) {
	types := doc.InstanceTypes[:0]
	for i := range doc.InstanceTypes {
		it := doc.InstanceTypes[i]
		if b.apply(&it) {
			types = append(types, it)
		}
	}
	doc.InstanceTypes = types
	doc.Region = b.cfg.region
	doc.Source = b.source(doc.Source)
}

// builder applies resolved options to the decoded us-east-1 types, which it
// owns and edits in place.
type builder struct {
	cfg         config
	zones       regionZones
	prices      map[string]float64 // the region's on-demand prices; nil: keep the data's
	factors     map[string]float64 // family → spot factor, when spot is repriced by family
	zoneSet     map[string]bool    // nil: every zone
	unavailable map[OfferingKey]bool
}

func newBuilder(cfg config, types []instancetypes.InstanceType) (*builder, field.ErrorList) {
	b := &builder{cfg: cfg}
	b.zones, _ = zonesOf(cfg.region)
	names := make(map[string]bool, len(types))
	for i := range types {
		names[types[i].Name] = true
	}
	if errs := cfg.validateUnavailable(func(name string) bool { return names[name] }); len(errs) > 0 {
		return nil, errs
	}
	if cfg.region != DefaultRegion {
		all, err := onDemandPrices()
		if err != nil {
			return nil, field.ErrorList{field.InternalError(field.NewPath("WithRegion"), err)}
		}
		b.prices = all[cfg.region]
		if !cfg.repriceSpot {
			b.factors = spotFactors(types)
		}
	}
	if cfg.restrictZones {
		b.zoneSet = map[string]bool{}
		for _, z := range cfg.zones {
			b.zoneSet[z] = true
		}
	}
	if len(cfg.unavailable) > 0 {
		b.unavailable = make(map[OfferingKey]bool, len(cfg.unavailable))
		for _, k := range cfg.unavailable {
			b.unavailable[k] = true
		}
	}
	return b, nil
}

// spotFactors recovers the spot factor of each family from the us-east-1
// data: spot / on-demand of the family's most expensive type with spot,
// rounded to 4 decimals. The data's model prices spot as
// round(on-demand × factor, 6) with a 4-decimal factor per family, so the
// most expensive type gives the factor exactly (the test checks that it
// reproduces every spot price of the data).
func spotFactors(types []instancetypes.InstanceType) map[string]float64 {
	type best struct{ od, spot float64 }
	byFamily := map[string]best{}
	for i := range types {
		od, okOD := offeringPrice(&types[i], requirements.CapacityTypeOnDemand)
		spot, okSpot := offeringPrice(&types[i], requirements.CapacityTypeSpot)
		family := types[i].Labels[LabelInstanceFamily]
		if !okOD || !okSpot || od <= 0 {
			continue
		}
		if b, ok := byFamily[family]; !ok || od > b.od {
			byFamily[family] = best{od, spot}
		}
	}
	out := make(map[string]float64, len(byFamily))
	for family, b := range byFamily {
		out[family] = round(b.spot/b.od, 4)
	}
	return out
}

// offeringPrice returns the price of the type's first offering of a
// capacity type (the data prices a type alike in every zone).
func offeringPrice(it *instancetypes.InstanceType, capacityType string) (float64, bool) {
	for _, o := range it.Offerings {
		if o.CapacityType == capacityType {
			return o.Price, true
		}
	}
	return 0, false
}

// apply edits one type; false leaves it out.
func (b *builder) apply(it *instancetypes.InstanceType) bool {
	od, _ := offeringPrice(it, requirements.CapacityTypeOnDemand)
	if b.prices != nil {
		p, ok := b.prices[it.Name]
		if !ok {
			return false
		}
		od = p
	}
	factor, reprice := b.cfg.spotFactor, b.cfg.repriceSpot
	if !reprice && b.factors != nil {
		factor, reprice = b.factors[it.Labels[LabelInstanceFamily]], true
	}
	offerings := it.Offerings[:0]
	for _, o := range it.Offerings {
		i := zoneIndex(o.Zone)
		if i < 0 || i >= b.zones.count {
			continue
		}
		if b.cfg.region != DefaultRegion {
			o.Zone, o.ZoneID = b.zones.zone(b.cfg.region, i), b.zones.zoneID(i)
		}
		if b.zoneSet != nil && !b.zoneSet[o.Zone] {
			continue
		}
		switch o.CapacityType {
		case requirements.CapacityTypeOnDemand:
			o.Price = od
		case requirements.CapacityTypeSpot:
			if b.cfg.withoutSpot {
				continue
			}
			if reprice {
				o.Price = round(od*factor, 6)
			}
		}
		if b.isUnavailable(OfferingKey{InstanceType: it.Name, Zone: o.Zone, CapacityType: o.CapacityType}) {
			o.Unavailable = true
		}
		offerings = append(offerings, o)
	}
	if len(offerings) == 0 {
		return false // not offered in the region's or the chosen zones
	}
	it.Offerings = offerings
	it.Labels[requirements.LabelTopologyRegion] = b.cfg.region
	if b.cfg.overrideMaxPods && !setMaxPods(it, b.cfg.maxPods) {
		return false
	}
	pods := it.Capacity[corev1.ResourcePods]
	it.Labels[LabelInstancePods] = strconv.FormatInt(pods.Value(), 10)
	return true
}

func (b *builder) isUnavailable(k OfferingKey) bool {
	if b.unavailable[k] {
		return true
	}
	for _, f := range b.cfg.unavailableFuncs {
		if f(k) {
			return true
		}
	}
	return false
}

// zoneIndex returns the position of a us-east-1 zone of the data (a → 0).
func zoneIndex(zone string) int {
	letter, ok := strings.CutPrefix(zone, DefaultRegion)
	if !ok || len(letter) != 1 || letter[0] < 'a' || letter[0] > 'z' {
		return -1
	}
	return int(letter[0] - 'a')
}

// setMaxPods sets pods capacity n and kube-reserved memory 11Mi × n +
// 255Mi; false when the type's memory cannot hold the reserved memory.
func setMaxPods(it *instancetypes.InstanceType, n int) bool {
	it.Capacity[corev1.ResourcePods] = *resource.NewQuantity(int64(n), resource.DecimalSI)
	if it.Overhead.KubeReserved == nil {
		it.Overhead.KubeReserved = corev1.ResourceList{}
	}
	mem := int64(kubeReservedMemoryPerPodMi*n+kubeReservedMemoryBaseMi) << 20
	it.Overhead.KubeReserved[corev1.ResourceMemory] = *resource.NewQuantity(mem, resource.BinarySI)
	total := it.Overhead.Total()
	reserved := total[corev1.ResourceMemory]
	return reserved.Cmp(it.Capacity[corev1.ResourceMemory]) <= 0
}

// source extends the data's provenance with what the options changed.
func (b *builder) source(base string) string {
	var notes []string
	if b.cfg.region != DefaultRegion {
		notes = append(notes, fmt.Sprintf("region %s: on-demand prices from prices-on-demand.csv (same sources), zones %s..%s with zone IDs %s-az1..az%d assumed, types without a price there dropped",
			b.cfg.region, b.zones.zone(b.cfg.region, 0), b.zones.zone(b.cfg.region, b.zones.count-1), b.zones.idPrefix, b.zones.count))
		if !b.cfg.repriceSpot {
			notes = append(notes, "spot = on-demand × the family's us-east-1 spot factor (MODELED)")
		}
	}
	if b.cfg.repriceSpot {
		notes = append(notes, fmt.Sprintf("spot = on-demand × %s", strconv.FormatFloat(b.cfg.spotFactor, 'f', -1, 64)))
	}
	if b.cfg.overrideMaxPods {
		notes = append(notes, fmt.Sprintf("max pods %d (kube-reserved memory 11Mi × pods + 255Mi)", b.cfg.maxPods))
	}
	notes = append(notes, "label karpenter.k8s.aws/instance-pods added from capacity pods")
	return base + " nodeplan: " + strings.Join(notes, "; ") + "."
}

// round rounds to the given number of decimals correctly, by way of the
// decimal text (as Python's round, which the data's generator used).
func round(x float64, decimals int) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64)
	if err != nil {
		return x
	}
	return f
}
