package gen

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// vocab is what a catalog offers to select on, derived from it.
type vocab struct {
	zones, capacityTypes, arches, typeNames []string
	// labels are the catalog's label keys other than instance type and os,
	// each with its values, sorted.
	labels []labelDomain
	// extended are the extended resources some type has (GPUs).
	extended []corev1.ResourceName
	// types are the catalog's types, for sizing pods and existing nodes.
	types []instancetypes.InstanceType
}

type labelDomain struct {
	key     string
	values  []string
	numeric bool
}

func newVocab(types []instancetypes.InstanceType) vocab {
	v := vocab{types: types}
	zones, cts := map[string]bool{}, map[string]bool{}
	values := map[string]map[string]bool{}
	ext := map[corev1.ResourceName]bool{}
	for _, it := range types {
		v.typeNames = append(v.typeNames, it.Name)
		for _, o := range it.Offerings {
			zones[o.Zone], cts[o.CapacityType] = true, true
		}
		for k, val := range it.Labels {
			if k == corev1.LabelInstanceTypeStable || k == corev1.LabelOSStable {
				continue
			}
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][val] = true
		}
		for name := range it.Capacity {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourcePods && name != corev1.ResourceEphemeralStorage && !slices.Contains([]corev1.ResourceName{"vpc.amazonaws.com/pod-eni"}, name) {
				ext[name] = true
			}
		}
	}
	v.zones, v.capacityTypes = sortedKeys(zones), sortedKeys(cts)
	for _, k := range sortedKeys(values) {
		d := labelDomain{key: k, values: sortedKeys(values[k]), numeric: true}
		for _, val := range d.values {
			if _, err := strconv.Atoi(val); err != nil {
				d.numeric = false
			}
		}
		if k == corev1.LabelArchStable {
			v.arches = d.values
		}
		v.labels = append(v.labels, d)
	}
	v.extended = sortedKeys(ext)
	return v
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// numericLabels returns the label domains with integer values.
func (v vocab) numericLabels() []labelDomain {
	var out []labelDomain
	for _, d := range v.labels {
		if d.numeric && len(d.values) > 1 {
			out = append(out, d)
		}
	}
	return out
}

// customLabels returns the non-numeric label domains other than arch with
// more than one value.
func (v vocab) customLabels() []labelDomain {
	var out []labelDomain
	for _, d := range v.labels {
		if !d.numeric && d.key != corev1.LabelArchStable && len(d.values) > 1 {
			out = append(out, d)
		}
	}
	return out
}

// instancetypesT abbreviates the catalog type in comparators.
type instancetypesT = instancetypes.InstanceType
