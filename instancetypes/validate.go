package instancetypes

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// typePath is the field path of an instance type: instanceTypes[NAME], or
// instanceTypes[INDEX] when it has no name.
func typePath(i int, name string) *field.Path {
	if name == "" {
		return field.NewPath("instanceTypes").Index(i)
	}
	return field.NewPath("instanceTypes").Key(name)
}

// lazyPath is the path of an instance type, built on first use: most types
// have no error.
type lazyPath struct {
	i    int
	name string
	p    *field.Path
}

func (l *lazyPath) Child(name string, more ...string) *field.Path {
	if l.p == nil {
		l.p = typePath(l.i, l.name)
	}
	return l.p.Child(name, more...)
}

// validator checks instance types one at a time, remembering the names seen
// (for duplicates) and the label keys, values and resource names already
// found valid: a catalog repeats the same few thousand strings many times,
// and each is checked by regular expression only once.
type validator struct {
	seen     map[string]int
	okNames  map[string]struct{} // qualified names: label keys, resource names
	okValues map[string]struct{} // label values
}

func newValidator() *validator {
	return &validator{seen: map[string]int{}, okNames: map[string]struct{}{}, okValues: map[string]struct{}{}}
}

func validateTypes(types []InstanceType) field.ErrorList {
	v := newValidator()
	var errs field.ErrorList
	for i := range types {
		errs = append(errs, v.instanceType(i, &types[i], nil)...)
	}
	return errs
}

// instanceType checks one type (the i-th). f says what the decoder reported
// already (nil when there was no decoder).
func (v *validator) instanceType(i int, it *InstanceType, f *flaws) field.ErrorList {
	var errs field.ErrorList
	p := &lazyPath{i: i, name: it.Name}
	if it.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "instance type needs a name"))
	} else if j, dup := v.seen[it.Name]; dup {
		errs = append(errs, field.Duplicate(p.Child("name"), fmt.Sprintf("%s (also instanceTypes[%d])", it.Name, j)))
	} else {
		v.seen[it.Name] = i
	}
	errs = append(errs, v.labels(p, it.Labels)...)
	var unparsed []corev1.ResourceName
	if f != nil {
		unparsed = f.resources
	}
	errs = append(errs, v.resources(p, it, unparsed)...)
	errs = append(errs, needed(p, it, unparsed)...)
	if f == nil || !f.offerings {
		if len(it.Offerings) == 0 {
			errs = append(errs, field.Required(p.Child("offerings"), "an instance type needs at least one offering (zone, capacity type, price)"))
		}
		errs = append(errs, v.offerings(p, it.Offerings)...)
	}
	return errs
}

// needed checks that the type has the capacity every pod asks for: cpu and
// memory, both positive (a type without them could host no pod, and the
// mistake would show only as pods that fit nowhere). Resources in unparsed
// were reported by the decoder.
func needed(p *lazyPath, it *InstanceType, unparsed []corev1.ResourceName) field.ErrorList {
	var errs field.ErrorList
	for _, name := range [...]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if slices.Contains(unparsed, name) {
			continue
		}
		switch q, ok := it.Capacity[name]; {
		case !ok:
			errs = append(errs, field.Required(p.Child("capacity").Key(string(name)), "an instance type needs cpu and memory capacity"))
		case q.Sign() == 0:
			errs = append(errs, field.Invalid(p.Child("capacity").Key(string(name)), q.String(), "must be positive"))
		}
	}
	return errs
}

func (v *validator) isQualifiedName(s string) bool {
	if _, ok := v.okNames[s]; ok {
		return true
	}
	if len(validation.IsQualifiedName(s)) > 0 {
		return false
	}
	v.okNames[s] = struct{}{}
	return true
}

func (v *validator) isLabelValue(s string) bool {
	if _, ok := v.okValues[s]; ok {
		return true
	}
	if len(validation.IsValidLabelValue(s)) > 0 {
		return false
	}
	v.okValues[s] = struct{}{}
	return true
}

// isOfferingKey reports whether key is decided per offering, so it cannot be
// a label of the type.
func isOfferingKey(key string) bool {
	switch key {
	case requirements.LabelTopologyZone, requirements.LabelCapacityType, LabelZoneID, LabelReservationID:
		return true
	}
	return false
}

// labels checks label keys (qualified names, not decided per offering) and
// values (valid label values).
func (v *validator) labels(p *lazyPath, labels map[string]string) field.ErrorList {
	var errs field.ErrorList
	for k, val := range labels {
		if !v.isQualifiedName(k) {
			for _, msg := range validation.IsQualifiedName(k) {
				errs = append(errs, field.Invalid(p.Child("labels").Key(k), k, msg))
			}
		}
		if isOfferingKey(k) {
			errs = append(errs, field.Forbidden(p.Child("labels").Key(k),
				"zone, zone ID, capacity type and reservation ID vary per offering: they come from offerings, not labels"))
		}
		if !v.isLabelValue(val) {
			for _, msg := range validation.IsValidLabelValue(val) {
				errs = append(errs, field.Invalid(p.Child("labels").Key(k), val, msg))
			}
		}
	}
	return sortedByField(errs)
}

// resources checks capacity and overhead: qualified resource names, no
// negative quantity, and overhead (summed over its three lists) no larger
// than capacity. Resources in unparsed were reported by the decoder.
func (v *validator) resources(p *lazyPath, it *InstanceType, unparsed []corev1.ResourceName) field.ErrorList {
	var errs field.ErrorList
	check := func(lp func() *field.Path, l corev1.ResourceList) {
		for name, q := range l {
			if !v.isQualifiedName(string(name)) {
				for _, msg := range validation.IsQualifiedName(string(name)) {
					errs = append(errs, field.Invalid(lp().Key(string(name)), string(name), msg))
				}
			}
			if q.Sign() < 0 {
				errs = append(errs, field.Invalid(lp().Key(string(name)), q.String(), "must not be negative"))
			}
		}
	}
	check(func() *field.Path { return p.Child("capacity") }, it.Capacity)
	check(func() *field.Path { return p.Child("overhead", "kubeReserved") }, it.Overhead.KubeReserved)
	check(func() *field.Path { return p.Child("overhead", "systemReserved") }, it.Overhead.SystemReserved)
	check(func() *field.Path { return p.Child("overhead", "evictionThreshold") }, it.Overhead.EvictionThreshold)
	lists := [...]corev1.ResourceList{it.Overhead.KubeReserved, it.Overhead.SystemReserved, it.Overhead.EvictionThreshold}
	for li, l := range lists {
		for name := range l {
			if _, earlier := lists[0][name]; li > 0 && earlier {
				continue
			}
			if _, earlier := lists[1][name]; li > 1 && earlier {
				continue
			}
			errs = append(errs, v.overheadFits(p, it, name, unparsed)...)
		}
	}
	return sortedByField(errs)
}

// overheadFits checks that the overhead of one resource fits its capacity.
func (v *validator) overheadFits(p *lazyPath, it *InstanceType, name corev1.ResourceName, unparsed []corev1.ResourceName) field.ErrorList {
	q := it.Overhead.of(name)
	if q.Sign() <= 0 || slices.Contains(unparsed, name) {
		return nil
	}
	switch c, ok := it.Capacity[name]; {
	case !ok:
		return field.ErrorList{field.Invalid(p.Child("overhead").Key(string(name)), q.String(),
			"overhead of a resource the type has no capacity of")}
	case q.Cmp(c) > 0:
		return field.ErrorList{field.Invalid(p.Child("overhead").Key(string(name)), q.String(),
			fmt.Sprintf("overhead is larger than capacity %s", c.String()))}
	}
	return nil
}

// offerings checks each offering: a zone (a valid label value, as is the
// zone ID), a known capacity type, a reservation ID and a non-negative
// reservation capacity exactly on reserved offerings, a finite non-negative
// price, and no two offerings with the same zone, capacity type and
// reservation.
func (v *validator) offerings(p *lazyPath, offerings []Offering) field.ErrorList {
	var errs field.ErrorList
	type key struct{ zone, capacityType, reservationID string }
	var seen map[key]int // only for long lists; short ones are scanned
	if len(offerings) > 16 {
		seen = make(map[key]int, len(offerings))
	}
	for j, o := range offerings {
		op := func() *field.Path { return p.Child("offerings").Index(j) } // built only on error
		switch {
		case o.Zone == "":
			errs = append(errs, field.Required(op().Child("zone"), "offering needs a zone"))
		case !v.isLabelValue(o.Zone):
			errs = append(errs, field.Invalid(op().Child("zone"), o.Zone, "must be a valid label value"))
		}
		if o.ZoneID != "" && !v.isLabelValue(o.ZoneID) {
			errs = append(errs, field.Invalid(op().Child("zoneID"), o.ZoneID, "must be a valid label value"))
		}
		errs = append(errs, v.capacityType(op, o)...)
		if math.IsNaN(o.Price) || math.IsInf(o.Price, 0) || o.Price < 0 {
			errs = append(errs, field.Invalid(op().Child("price"), o.Price, "price must be a non-negative number"))
		}
		k := key{o.Zone, o.CapacityType, o.ReservationID}
		other, dup := -1, false
		if seen != nil {
			other, dup = seen[k]
			if !dup {
				seen[k] = j
			}
		} else {
			other = slices.IndexFunc(offerings[:j], func(x Offering) bool { return key{x.Zone, x.CapacityType, x.ReservationID} == k })
			dup = other >= 0
		}
		if dup {
			errs = append(errs, field.Duplicate(op(), fmt.Sprintf("zone %s, capacity type %s (also offerings[%d])", o.Zone, o.CapacityType, other)))
		}
	}
	return errs
}

func (v *validator) capacityType(op func() *field.Path, o Offering) field.ErrorList {
	var errs field.ErrorList
	switch o.CapacityType {
	case "":
		errs = append(errs, field.Required(op().Child("capacityType"), "offering needs a capacity type"))
	case requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot:
		if o.ReservationID != "" {
			errs = append(errs, field.Invalid(op().Child("reservationID"), o.ReservationID, "only a reserved offering has a reservation ID"))
		}
		if o.ReservationCapacity != 0 {
			errs = append(errs, field.Invalid(op().Child("reservationCapacity"), o.ReservationCapacity, "only a reserved offering has a reservation capacity"))
		}
	case requirements.CapacityTypeReserved:
		switch {
		case o.ReservationID == "":
			errs = append(errs, field.Required(op().Child("reservationID"), "a reserved offering needs a reservation ID"))
		case !v.isLabelValue(o.ReservationID):
			errs = append(errs, field.Invalid(op().Child("reservationID"), o.ReservationID, "must be a valid label value"))
		}
		if o.ReservationCapacity < 0 {
			errs = append(errs, field.Invalid(op().Child("reservationCapacity"), o.ReservationCapacity, "must not be negative"))
		}
	default:
		errs = append(errs, field.NotSupported(op().Child("capacityType"), o.CapacityType,
			[]string{requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot, requirements.CapacityTypeReserved}))
	}
	return errs
}

// sortedByField orders errors found while ranging over a map by path, so the
// result does not depend on map order. Errors on one path come from one map
// entry, in a fixed order, so a stable sort is a total order.
func sortedByField(errs field.ErrorList) field.ErrorList {
	if len(errs) > 1 {
		slices.SortStableFunc(errs, func(a, b *field.Error) int { return cmp.Compare(a.Field, b.Field) })
	}
	return errs
}
