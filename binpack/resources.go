package binpack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// MaxDims is the number of distinct resource names one solve can track.
const MaxDims = 16

// Vec is a resource vector: one int64 per dimension of a Dims. CPU is in
// millicores, every other resource in its base unit (bytes, count), rounded
// up. Vectors are plain values: arithmetic never allocates.
type Vec [MaxDims]int64

// Dims maps resource names to vector dimensions for one solve. It is built
// once and then only read.
type Dims struct {
	names []corev1.ResourceName
	index map[corev1.ResourceName]int
}

// NewDims returns dimensions for the given names (plus cpu, memory and pods,
// always present), sorted by name after those three. It fails when there are
// more than MaxDims names.
func NewDims(names ...corev1.ResourceName) (Dims, error) {
	d := Dims{index: map[corev1.ResourceName]int{}}
	base := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	rest := slices.Clone(names)
	slices.Sort(rest)
	for _, n := range append(base, rest...) {
		if _, ok := d.index[n]; ok {
			continue
		}
		if len(d.names) == MaxDims {
			return Dims{}, fmt.Errorf("more than %d distinct resource names (%s, ...)", MaxDims, strings.Join(stringsOf(d.names[:3]), ", "))
		}
		d.index[n] = len(d.names)
		d.names = append(d.names, n)
	}
	return d, nil
}

func stringsOf(ns []corev1.ResourceName) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = string(n)
	}
	return out
}

// Len returns the number of dimensions in use.
func (d Dims) Len() int { return len(d.names) }

// Name returns the resource name of dimension i.
func (d Dims) Name(i int) corev1.ResourceName { return d.names[i] }

// Index returns the dimension of a resource name.
func (d Dims) Index(name corev1.ResourceName) (int, bool) {
	i, ok := d.index[name]
	return i, ok
}

// Vector converts a resource list. Names without a dimension are returned in
// unknown (sorted) when their quantity is positive: no vector can hold them.
func (d Dims) Vector(list corev1.ResourceList) (v Vec, unknown []corev1.ResourceName) {
	for name, q := range list {
		i, ok := d.index[name]
		if !ok {
			if q.Sign() > 0 {
				unknown = append(unknown, name)
			}
			continue
		}
		v[i] = toInt(name, q)
	}
	slices.Sort(unknown)
	return v, unknown
}

func toInt(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// List converts a vector back to a resource list (zero dimensions omitted).
func (d Dims) List(v Vec) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i, n := range d.names {
		if v[i] == 0 {
			continue
		}
		if n == corev1.ResourceCPU {
			out[n] = *resource.NewMilliQuantity(v[i], resource.DecimalSI)
		} else if n == corev1.ResourceMemory || strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) || n == corev1.ResourceEphemeralStorage {
			out[n] = *resource.NewQuantity(v[i], resource.BinarySI)
		} else {
			out[n] = *resource.NewQuantity(v[i], resource.DecimalSI)
		}
	}
	return out
}

// Format renders dimension i of v for people (cpu as millicores or cores,
// bytes in Mi/Gi).
func (d Dims) Format(i int, x int64) string {
	n := d.names[i]
	if n == corev1.ResourceCPU {
		if x%1000 == 0 {
			return strconv.FormatInt(x/1000, 10) // whole cores: "1000", not "1k"
		}
		return resource.NewMilliQuantity(x, resource.DecimalSI).String()
	}
	if n == corev1.ResourceMemory || n == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
		return resource.NewQuantity(x, resource.BinarySI).String()
	}
	return resource.NewQuantity(x, resource.DecimalSI).String()
}

// Add returns v + o.
func (v Vec) Add(o Vec) Vec {
	for i := range v {
		v[i] += o[i]
	}
	return v
}

// Sub returns v − o.
func (v Vec) Sub(o Vec) Vec {
	for i := range v {
		v[i] -= o[i]
	}
	return v
}

// Fits reports whether v ≤ capacity in every dimension.
func (v Vec) Fits(capacity Vec) bool {
	for i := range v {
		if v[i] > capacity[i] {
			return false
		}
	}
	return true
}

// FitsSum reports whether v + o ≤ capacity in every dimension, without
// building the sum or copying a vector (the solver's hot paths call it per
// candidate node); cpu and memory, where most candidates fail, come first.
func (v *Vec) FitsSum(o, capacity *Vec) bool {
	if v[0]+o[0] > capacity[0] || v[1]+o[1] > capacity[1] {
		return false
	}
	for i := 2; i < len(v); i++ {
		if v[i]+o[i] > capacity[i] {
			return false
		}
	}
	return true
}

// FirstShort returns the first dimension where v exceeds capacity, or -1.
func (v Vec) FirstShort(capacity Vec) int {
	for i := range v {
		if v[i] > capacity[i] {
			return i
		}
	}
	return -1
}

// Max returns the componentwise maximum.
func (v Vec) Max(o Vec) Vec {
	for i := range v {
		v[i] = max(v[i], o[i])
	}
	return v
}

// IsZero reports whether every dimension is zero.
func (v Vec) IsZero() bool { return v == Vec{} }

// AnyNegative reports whether some dimension is below zero.
func (v Vec) AnyNegative() bool {
	for i := range v {
		if v[i] < 0 {
			return true
		}
	}
	return false
}
