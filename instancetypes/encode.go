package instancetypes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Encode writes c in the JSON format of docs/CATALOG.md, one instance type
// per line (so a diff shows which types changed), such that
// Decode(Encode(c)) is a catalog equal to c: its region, source, provider
// (when it names one; decode with the provider's vocabulary) and types.
//
// The output is deterministic: types in catalog order, label and resource
// names sorted, offerings in catalog order (cheapest first), quantities in
// canonical form, prices in the shortest form that reads back exactly. The
// three overhead lists are always written, and a reserved offering always
// carries reservationCapacity (Decode requires it). The error reports a
// price JSON cannot hold (NaN or infinite), which NewCatalog never accepts.
func Encode(c Catalog) ([]byte, error) {
	b := make([]byte, 0, 2400*len(c.types)+512)
	b = append(b, `{"region":`...)
	b = appendString(b, c.region)
	b = append(b, ",\n\"source\":"...)
	b = appendString(b, c.source)
	if c.provider != "" {
		b = append(b, ",\n\"provider\":"...)
		b = appendString(b, c.provider)
	}
	b = append(b, ",\n\"instanceTypes\":["...)
	for i, it := range c.types {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		var err error
		if b, err = appendInstanceType(b, it); err != nil {
			return nil, fmt.Errorf("encoding instanceTypes[%s]: %w", it.Name, err)
		}
	}
	if len(c.types) > 0 {
		b = append(b, '\n')
	}
	return append(b, "]}\n"...), nil
}

func appendInstanceType(b []byte, it *InstanceType) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = appendString(b, it.Name)
	b = append(b, `,"labels":{`...)
	for i, k := range slices.Sorted(maps.Keys(it.Labels)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, it.Labels[k])
	}
	b = append(b, `},"capacity":`...)
	b = appendResources(b, it.Capacity)
	b = append(b, `,"overhead":{"kubeReserved":`...)
	b = appendResources(b, it.Overhead.KubeReserved)
	b = append(b, `,"systemReserved":`...)
	b = appendResources(b, it.Overhead.SystemReserved)
	b = append(b, `,"evictionThreshold":`...)
	b = appendResources(b, it.Overhead.EvictionThreshold)
	b = append(b, `},"offerings":[`...)
	for j, o := range it.Offerings {
		if j > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendOffering(b, o); err != nil {
			return nil, fmt.Errorf("offerings[%d]: %w", j, err)
		}
	}
	return append(b, "]}"...), nil
}

func appendOffering(b []byte, o Offering) ([]byte, error) {
	if math.IsNaN(o.Price) || math.IsInf(o.Price, 0) {
		return nil, fmt.Errorf("price %v cannot be written as JSON", o.Price)
	}
	b = append(b, `{"zone":`...)
	b = appendString(b, o.Zone)
	if o.ZoneID != "" {
		b = append(b, `,"zoneID":`...)
		b = appendString(b, o.ZoneID)
	}
	b = append(b, `,"capacityType":`...)
	b = appendString(b, o.CapacityType)
	b = append(b, `,"price":`...)
	b = appendFloat(b, o.Price)
	b = append(b, `,"available":`...)
	b = strconv.AppendBool(b, !o.Unavailable)
	if o.ReservationID != "" {
		b = append(b, `,"reservationID":`...)
		b = appendString(b, o.ReservationID)
	}
	if o.ReservationCapacity != 0 || o.CapacityType == requirements.CapacityTypeReserved {
		b = append(b, `,"reservationCapacity":`...)
		b = strconv.AppendInt(b, int64(o.ReservationCapacity), 10)
	}
	return append(b, '}'), nil
}

func appendResources(b []byte, l corev1.ResourceList) []byte {
	b = append(b, '{')
	for i, name := range slices.Sorted(maps.Keys(l)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(name))
		b = append(b, ':')
		q := l[name]
		b = appendString(b, q.String())
	}
	return append(b, '}')
}

// appendFloat writes f as encoding/json does: the shortest decimal that
// reads back exactly, with an exponent only for very small or large values.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString writes s as a JSON string. Invalid UTF-8 is written as
// U+FFFD (Decode accepts only valid UTF-8, and NewCatalog only valid label
// values, so this concerns names at most).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
