package instancetypes

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// Decode reads a catalog in the JSON format of docs/CATALOG.md and builds a
// Catalog from it. The file's region, source and provider are recorded
// (WithRegion, WithSource and WithProvider in opts override them); a
// provider's label vocabulary must be given with WithVocabulary (see
// [WithProvider]: aws.Vocabulary() for "aws"). opts are those of
// [NewCatalog], and a [WithTransform] function edits the decoded types
// before they are validated.
//
// Errors: malformed JSON is a [*SyntaxError] (with line and column), and
// nothing past it is read. Everything else is collected and returned
// together as a field.ErrorList aggregate whose paths name the instance type
// and the field, e.g. instanceTypes[m5.large].capacity[cpu]: unknown or
// repeated fields, values of the wrong JSON type, unparsable quantities, a
// missing price, a reserved offering without reservationCapacity, and every
// check of NewCatalog. When the file itself has errors, the transform is
// not run and the file's types are validated as written.
//
// Format details the format document leaves open: an absent "available"
// means true; "price" is required; "null" reads as an absent field, except
// as a label value or quantity; a quantity may be a JSON string or number
// (as resource.Quantity's own JSON decoding allows). Empty maps decode as
// nil.
func Decode(data []byte, opts ...CatalogOption) (Catalog, error) {
	d := decoder{
		scanner:    scanner{data: data},
		strs:       map[string]string{},
		quantities: map[string]resource.Quantity{},
		floats:     map[string]float64{},
	}
	f, err := d.file()
	if err != nil {
		return Catalog{}, err
	}
	cfg := catalogConfig{region: f.region, source: f.source, provider: f.provider}
	for _, o := range opts {
		o(&cfg)
	}
	types := f.types
	var errs field.ErrorList
	if cfg.transform != nil && len(d.errs) == 0 && f.clean() {
		// The decoded types are this call's own: transform them in place,
		// then validate once.
		if types, err = cfg.applyTransform(types); err != nil {
			return Catalog{}, err
		}
		errs = validateTypes(types)
	} else {
		// Report the file's own errors, type by type: what decoding found,
		// then what validation finds.
		errs = d.errs
		v := newValidator()
		for i := range types {
			errs = append(errs, f.typeErrs[i]...)
			if !f.flaws[i].notObject {
				errs = append(errs, v.instanceType(i, &types[i], &f.flaws[i])...)
			}
		}
	}
	if len(errs) > 0 {
		return Catalog{}, errs.ToAggregate()
	}
	return buildCatalog(types, cfg)
}

// decoder reads the catalog format with a scanner. It keeps the field path
// of the value being read as a stack (built into a field.Path only when an
// error is reported), and interns strings, quantities and prices: a catalog
// repeats the same label keys and values, zones and overheads thousands of
// times, so each distinct text is parsed and allocated once.
type decoder struct {
	scanner
	stack      []pathElem
	strs       map[string]string
	quantities map[string]resource.Quantity
	floats     map[string]float64
	errs       field.ErrorList // errors outside any instance type
}

// file is a decoded catalog file: the types as written, and per type the
// errors and flaws decoding found.
type file struct {
	region, source, provider string
	types                    []InstanceType
	typeErrs                 []field.ErrorList
	flaws                    []flaws
}

// pathElem is one step of a field path: .child, [key] or [index].
type pathElem struct {
	child string
	key   string
	index int
	isKey bool
}

func (d *decoder) push(e pathElem) { d.stack = append(d.stack, e) }
func (d *decoder) pop()            { d.stack = d.stack[:len(d.stack)-1] }

func (d *decoder) path() *field.Path {
	var p *field.Path
	for _, e := range d.stack {
		switch {
		case e.child != "":
			p = p.Child(e.child)
		case e.isKey:
			p = p.Key(e.key)
		default:
			p = p.Index(e.index)
		}
	}
	return p
}

func (d *decoder) intern(b []byte) string {
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	d.strs[s] = s
	return s
}

// snippet shortens a raw JSON value for an error message.
func snippet(raw []byte) string {
	const maxLen = 40
	if len(raw) > maxLen {
		return string(raw[:maxLen]) + "..."
	}
	return string(raw)
}

// wrongType skips the next value and reports that it is not of the type want.
func (d *decoder) wrongType(want string) error {
	raw, err := d.skip()
	if err != nil {
		return err
	}
	d.errs = append(d.errs, field.Invalid(d.path(), snippet(raw), "must be "+want))
	return nil
}

// members reads an object whose keys are the known names: read is called
// with the index of each known key and must consume its value. Unknown and
// repeated keys are reported (naming the known ones) and their values skipped.
func (d *decoder) members(known []string, read func(i int) error) error {
	var seen uint64
	return d.object(func(key []byte) error {
		i := 0
		for i < len(known) && known[i] != string(key) {
			i++
		}
		if i == len(known) {
			d.push(pathElem{child: string(key)})
			defer d.pop()
			_, err := d.skip()
			if err == nil {
				d.errs = append(d.errs, field.Invalid(d.path(), string(key),
					"unknown field (known fields: "+strings.Join(known, ", ")+")"))
			}
			return err
		}
		d.push(pathElem{child: known[i]})
		defer d.pop()
		if seen&(1<<i) != 0 {
			_, err := d.skip()
			if err == nil {
				d.errs = append(d.errs, field.Duplicate(d.path(), known[i]))
			}
			return err
		}
		seen |= 1 << i
		return read(i)
	})
}

// str reads a string; null reads as "" when nullOK.
func (d *decoder) str(nullOK bool) (string, error) {
	switch d.peek() {
	case '"':
		b, err := d.stringBytes()
		if err != nil {
			return "", err
		}
		return d.intern(b), nil
	case 'n':
		if nullOK {
			_, err := d.null()
			return "", err
		}
	}
	return "", d.wrongType("a string")
}

// float reads a number. present is false only for null; a value of the
// wrong type or out of range is reported and reads as 0, present.
func (d *decoder) float() (f float64, present bool, err error) {
	switch c := d.peek(); {
	case c == 'n':
		_, err := d.null()
		return 0, false, err
	case c != '-' && (c < '0' || c > '9'):
		return 0, true, d.wrongType("a number")
	}
	text, err := d.number()
	if err != nil {
		return 0, true, err
	}
	if f, ok := d.floats[string(text)]; ok {
		return f, true, nil
	}
	f, perr := strconv.ParseFloat(string(text), 64)
	if perr != nil {
		d.errs = append(d.errs, field.Invalid(d.path(), string(text), "number out of range"))
		return 0, true, nil
	}
	d.floats[string(text)] = f
	return f, true, nil
}

// integer reads a whole number, like float.
func (d *decoder) integer() (n int, present bool, err error) {
	f, present, err := d.float()
	if err != nil || !present {
		return 0, present, err
	}
	if f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		d.errs = append(d.errs, field.Invalid(d.path(), f, "must be an integer"))
		return 0, true, nil
	}
	return int(f), true, nil
}

// boolean reads true or false; ok is false for null or a reported error.
func (d *decoder) boolean() (b, ok bool, err error) {
	switch d.peek() {
	case 't':
		return true, true, d.literal("true")
	case 'f':
		return false, true, d.literal("false")
	case 'n':
		_, err := d.null()
		return false, false, err
	}
	return false, false, d.wrongType("true or false")
}

// quantity reads a resource quantity, written as a JSON string or number
// and parsed with resource.ParseQuantity; ok is false after a reported error.
func (d *decoder) quantity() (q resource.Quantity, ok bool, err error) {
	var text []byte
	switch c := d.peek(); {
	case c == '"':
		text, err = d.stringBytes()
	case c == '-' || ('0' <= c && c <= '9'):
		text, err = d.number()
	default:
		return q, false, d.wrongType("a quantity string")
	}
	if err != nil {
		return q, false, err
	}
	if q, ok := d.quantities[string(text)]; ok {
		return q.DeepCopy(), true, nil
	}
	q, perr := resource.ParseQuantity(string(text))
	if perr != nil {
		d.errs = append(d.errs, field.Invalid(d.path(), string(text), perr.Error()))
		return q, false, nil
	}
	d.quantities[string(text)] = q
	return q.DeepCopy(), true, nil
}

// clean reports whether decoding found no error in any type.
func (f *file) clean() bool {
	for _, errs := range f.typeErrs {
		if len(errs) > 0 {
			return false
		}
	}
	return true
}

func (d *decoder) file() (file, error) {
	var f file
	if d.peek() != '{' {
		return f, d.unexpected("a JSON object")
	}
	hasTypes := false
	err := d.members([]string{"region", "source", "provider", "instanceTypes"}, func(i int) error {
		var err error
		switch i {
		case 0:
			f.region, err = d.str(true)
		case 1:
			f.source, err = d.str(true)
		case 2:
			f.provider, err = d.str(true)
		case 3:
			hasTypes, err = d.instanceTypes(&f)
		}
		return err
	})
	if err != nil {
		return f, err
	}
	if err := d.end(); err != nil {
		return f, err
	}
	if !hasTypes {
		d.errs = append(d.errs, field.Required(field.NewPath("instanceTypes"), "a catalog lists its instance types"))
	}
	return f, nil
}

func (d *decoder) instanceTypes(f *file) (present bool, err error) {
	switch d.peek() {
	case 'n':
		_, err := d.null()
		return false, err
	case '[':
	default:
		return false, d.wrongType("an array of instance types")
	}
	err = d.array(func(i int) error {
		d.push(pathElem{index: i})
		defer d.pop()
		start := len(d.errs)
		it, flaws, err := d.instanceType()
		if err != nil {
			return err
		}
		var typeErrs field.ErrorList
		if len(d.errs) > start {
			typeErrs = slices.Clone(d.errs[start:])
			d.errs = d.errs[:start]
			if it.Name != "" {
				// Reported under instanceTypes[i] before the name was
				// known; name the type instead.
				from := field.NewPath("instanceTypes").Index(i).String()
				to := typePath(i, it.Name).String()
				for _, e := range typeErrs {
					e.Field = to + strings.TrimPrefix(e.Field, from)
				}
			}
		}
		f.types = append(f.types, it)
		f.typeErrs = append(f.typeErrs, typeErrs)
		f.flaws = append(f.flaws, flaws)
		return nil
	})
	return true, err
}

// flaws records what the decoder reported already in one instance type, so
// validation does not report it again in other words.
type flaws struct {
	notObject bool                  // the type was not a JSON object
	resources []corev1.ResourceName // quantities that did not parse
	offerings bool                  // an offering was not a JSON object
}

// instanceType reads one instance type.
func (d *decoder) instanceType() (it InstanceType, f flaws, err error) {
	if d.peek() != '{' {
		f.notObject = true
		return it, f, d.wrongType("an instance type object")
	}
	err = d.members([]string{"name", "labels", "capacity", "overhead", "offerings"}, func(i int) error {
		var err error
		switch i {
		case 0:
			it.Name, err = d.str(true)
		case 1:
			it.Labels, err = d.labels()
		case 2:
			it.Capacity, err = d.resources(&f)
		case 3:
			it.Overhead, err = d.overhead(&f)
		case 4:
			it.Offerings, err = d.offerings(&f)
		}
		return err
	})
	return it, f, err
}

func (d *decoder) labels() (map[string]string, error) {
	switch d.peek() {
	case 'n':
		_, err := d.null()
		return nil, err
	case '{':
	default:
		return nil, d.wrongType("an object of label values")
	}
	var out map[string]string
	err := d.object(func(key []byte) error {
		k := d.intern(key)
		d.push(pathElem{key: k, isKey: true})
		defer d.pop()
		if _, dup := out[k]; dup {
			_, err := d.skip()
			if err == nil {
				d.errs = append(d.errs, field.Duplicate(d.path(), k))
			}
			return err
		}
		v, err := d.str(false)
		if out == nil {
			out = make(map[string]string, 32)
		}
		out[k] = v
		return err
	})
	return out, err
}

func (d *decoder) resources(f *flaws) (corev1.ResourceList, error) {
	switch d.peek() {
	case 'n':
		_, err := d.null()
		return nil, err
	case '{':
	default:
		return nil, d.wrongType("an object of resource quantities")
	}
	var out corev1.ResourceList
	err := d.object(func(key []byte) error {
		name := corev1.ResourceName(d.intern(key))
		d.push(pathElem{key: string(name), isKey: true})
		defer d.pop()
		if _, dup := out[name]; dup {
			_, err := d.skip()
			if err == nil {
				d.errs = append(d.errs, field.Duplicate(d.path(), string(name)))
			}
			return err
		}
		q, ok, err := d.quantity()
		if err != nil {
			return err
		}
		if !ok {
			f.resources = append(f.resources, name)
			return nil
		}
		if out == nil {
			out = make(corev1.ResourceList, 8)
		}
		out[name] = q
		return nil
	})
	return out, err
}

func (d *decoder) overhead(f *flaws) (Overhead, error) {
	var o Overhead
	switch d.peek() {
	case 'n':
		_, err := d.null()
		return o, err
	case '{':
	default:
		return o, d.wrongType("an overhead object")
	}
	err := d.members([]string{"kubeReserved", "systemReserved", "evictionThreshold"}, func(i int) error {
		var err error
		switch i {
		case 0:
			o.KubeReserved, err = d.resources(f)
		case 1:
			o.SystemReserved, err = d.resources(f)
		case 2:
			o.EvictionThreshold, err = d.resources(f)
		}
		return err
	})
	return o, err
}

func (d *decoder) offerings(f *flaws) ([]Offering, error) {
	switch d.peek() {
	case 'n':
		_, err := d.null()
		return nil, err
	case '[':
	default:
		return nil, d.wrongType("an array of offerings")
	}
	var out []Offering
	err := d.array(func(i int) error {
		d.push(pathElem{index: i})
		defer d.pop()
		o, isObject, err := d.offering()
		f.offerings = f.offerings || !isObject
		if out == nil {
			out = make([]Offering, 0, 16)
		}
		out = append(out, o)
		return err
	})
	return out, err
}

func (d *decoder) offering() (o Offering, isObject bool, err error) {
	if d.peek() != '{' {
		return o, false, d.wrongType("an offering object")
	}
	var hasPrice, hasReservationCapacity bool
	known := []string{"zone", "zoneID", "capacityType", "price", "available", "reservationID", "reservationCapacity"}
	err = d.members(known, func(i int) error {
		var err error
		var ok bool
		switch i {
		case 0:
			o.Zone, err = d.str(true)
		case 1:
			o.ZoneID, err = d.str(true)
		case 2:
			o.CapacityType, err = d.str(true)
		case 3:
			o.Price, hasPrice, err = d.float()
		case 4:
			var b bool
			if b, ok, err = d.boolean(); ok {
				o.Unavailable = !b
			}
		case 5:
			o.ReservationID, err = d.str(true)
		case 6:
			o.ReservationCapacity, hasReservationCapacity, err = d.integer()
		}
		return err
	})
	if err != nil {
		return o, true, err
	}
	if !hasPrice {
		d.errs = append(d.errs, field.Required(d.path().Child("price"), "an offering needs a price (USD per hour)"))
	}
	if o.CapacityType == requirements.CapacityTypeReserved && !hasReservationCapacity {
		d.errs = append(d.errs, field.Required(d.path().Child("reservationCapacity"),
			"a reserved offering needs the number of instances still free in the reservation"))
	}
	return o, true, nil
}
