package verify

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// vres is a resource list in the integer units kube-scheduler adds up per
// pod: millicores for cpu, Value() (rounded up) for everything else.
type vres map[corev1.ResourceName]int64

func vresOf(list corev1.ResourceList) vres {
	out := make(vres, len(list))
	for name, q := range list {
		out[name] = verifyUnits(name, q)
	}
	return out
}

func verifyUnits(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// add adds o into r (r is changed).
func (r vres) add(o vres) {
	for name, x := range o {
		r[name] += x
	}
}

// sub subtracts o from r (r is changed).
func (r vres) sub(o vres) {
	for name, x := range o {
		r[name] -= x
	}
}

func (r vres) clone() vres { return maps.Clone(r) }

// short returns, sorted, the resources of need that have does not hold
// (a missing resource holds 0; a zero request always fits).
func (need vres) short(have vres) []corev1.ResourceName {
	var out []corev1.ResourceName
	for name, x := range need {
		if x > 0 && x > have[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// describe renders named quantities of r, e.g. "cpu 1500m".
func (r vres) describe(names []corev1.ResourceName) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = string(n) + " " + verifyFormat(n, r[n])
	}
	return strings.Join(parts, ", ")
}

func verifyFormat(name corev1.ResourceName, x int64) string {
	if name == corev1.ResourceCPU {
		return resource.NewMilliQuantity(x, resource.DecimalSI).String()
	}
	if name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
		return resource.NewQuantity(x, resource.BinarySI).String()
	}
	return resource.NewQuantity(x, resource.DecimalSI).String()
}

// equalRes reports whether a and b hold the same amounts, a missing
// resource reading as 0.
func equalRes(a, b vres) bool {
	for name, x := range a {
		if b[name] != x {
			return false
		}
	}
	for name, x := range b {
		if a[name] != x {
			return false
		}
	}
	return true
}

// String renders r sorted by name, for messages.
func (r vres) String() string {
	names := slices.Sorted(maps.Keys(r))
	names = slices.DeleteFunc(names, func(n corev1.ResourceName) bool { return r[n] == 0 })
	return "{" + r.describe(names) + "}"
}

func metaWithLabels(name string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: labels}
}
