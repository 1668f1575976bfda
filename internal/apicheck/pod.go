package apicheck

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Pod checks a pod's labels and spec (see PodSpec).
func Pod(p *corev1.Pod) field.ErrorList {
	errs := Labels(field.NewPath("metadata", "labels"), p.Labels)
	return append(errs, PodSpec(field.NewPath("spec"), &p.Spec)...)
}

// PodSpec checks the fields of a pod spec that scheduling reads: the node
// selector (labels), node and pod (anti-)affinity, topology spread
// constraints, tolerations, resources of every container and of the pod,
// overhead, and host ports.
func PodSpec(path *field.Path, spec *corev1.PodSpec) field.ErrorList {
	errs := Labels(path.Child("nodeSelector"), spec.NodeSelector)
	if a := spec.Affinity; a != nil {
		errs = append(errs, affinity(path.Child("affinity"), a)...)
	}
	errs = append(errs, spread(path.Child("topologySpreadConstraints"), spec.TopologySpreadConstraints)...)
	errs = append(errs, Tolerations(path.Child("tolerations"), spec.Tolerations)...)
	for i := range spec.InitContainers {
		errs = append(errs, container(path.Child("initContainers").Index(i), &spec.InitContainers[i])...)
	}
	for i := range spec.Containers {
		errs = append(errs, container(path.Child("containers").Index(i), &spec.Containers[i])...)
	}
	if r := spec.Resources; r != nil {
		errs = append(errs, Resources(path.Child("resources"), *r)...)
	}
	errs = append(errs, quantities(path.Child("overhead"), spec.Overhead)...)
	return errs
}

func container(path *field.Path, c *corev1.Container) field.ErrorList {
	errs := Resources(path.Child("resources"), c.Resources)
	for i, p := range c.Ports {
		if p.HostPort < 0 || p.HostPort > 65535 {
			errs = append(errs, field.Invalid(path.Child("ports").Index(i).Child("hostPort"), p.HostPort, "must be between 1 and 65535, inclusive"))
		}
	}
	return errs
}

// Resources checks requests and limits: resource names are qualified
// names, quantities are not negative, a request is not above its limit,
// and an extended resource (nvidia.com/gpu) is a whole number.
func Resources(path *field.Path, r corev1.ResourceRequirements) field.ErrorList {
	errs := quantities(path.Child("limits"), r.Limits)
	errs = append(errs, quantities(path.Child("requests"), r.Requests)...)
	for _, name := range sortedNames(r.Requests) {
		req := r.Requests[name]
		if lim, ok := r.Limits[name]; ok && req.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(path.Child("requests").Key(string(name)), req.String(),
				"must be less than or equal to "+string(name)+" limit of "+lim.String()))
		}
	}
	return errs
}

// quantities checks one resource list.
func quantities(path *field.Path, l corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedNames(l) {
		q, p := l[name], path.Key(string(name))
		errs = append(errs, LabelKey(p, string(name))...)
		switch {
		case q.Sign() < 0:
			errs = append(errs, field.Invalid(p, q.String(), "must be greater than or equal to 0"))
		case isExtended(name) && q.MilliValue()%1000 != 0:
			errs = append(errs, field.Invalid(p, q.String(), "must be an integer (an extended resource is counted in whole units)"))
		}
	}
	return errs
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// isExtended reports whether a resource is an extended resource
// (nvidia.com/gpu), as Kubernetes defines it: a name with a domain that is
// not kubernetes.io (native resources have no domain, or that one).
func isExtended(name corev1.ResourceName) bool {
	n := string(name)
	return strings.Contains(n, "/") && !strings.Contains(n, corev1.ResourceDefaultNamespacePrefix) && !strings.HasPrefix(n, "requests.")
}
