// Package podrequests computes what a pod asks of a node, the way the kubelet
// and kube-scheduler count it: k8s.io/component-helpers' PodRequests (init
// containers, restartable sidecars, pod overhead, pod-level resources) after
// the API server's defaulting of requests from limits, plus one "pods" slot.
// It is shared by nodepool (DaemonSet overhead) and binpack (pods).
package podrequests

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Of returns the effective requests of a pod spec, including one "pods".
// The spec is not modified.
//
// Defaulting: a container (or init container) that sets a limit but no
// request for a resource requests its limit, as the API server defaults it;
// pod-level limits default pod-level requests likewise. Limits are otherwise
// ignored.
func Of(spec *corev1.PodSpec) corev1.ResourceList {
	return of(&corev1.Pod{Spec: *spec}, false)
}

// OfPod is Of for a pod that may be running: while an in-place resize is
// in progress, a container counts the larger of its spec and the resources
// the kubelet has allocated it (status.containerStatuses[].allocatedResources),
// as kube-scheduler does.
func OfPod(p *corev1.Pod) corev1.ResourceList {
	return of(&corev1.Pod{Spec: p.Spec, Status: p.Status}, true)
}

func of(pod *corev1.Pod, useStatus bool) corev1.ResourceList {
	spec := &pod.Spec
	pod.Spec.Containers = defaultContainers(spec.Containers)
	pod.Spec.InitContainers = defaultContainers(spec.InitContainers)
	if r := spec.Resources; r != nil && len(r.Limits) > 0 {
		rr := r.DeepCopy()
		rr.Requests = defaultList(rr.Requests, rr.Limits)
		pod.Spec.Resources = rr
	}
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{UseStatusResources: useStatus})
	pods := reqs[corev1.ResourcePods]
	pods.Add(*resource.NewQuantity(1, resource.DecimalSI))
	reqs[corev1.ResourcePods] = pods
	return reqs
}

func defaultContainers(cs []corev1.Container) []corev1.Container {
	needs := false
	for i := range cs {
		for name := range cs[i].Resources.Limits {
			if _, ok := cs[i].Resources.Requests[name]; !ok {
				needs = true
			}
		}
	}
	if !needs {
		return cs
	}
	out := make([]corev1.Container, len(cs))
	for i := range cs {
		out[i] = cs[i]
		out[i].Resources = *cs[i].Resources.DeepCopy()
		out[i].Resources.Requests = defaultList(out[i].Resources.Requests, out[i].Resources.Limits)
	}
	return out
}

func defaultList(requests, limits corev1.ResourceList) corev1.ResourceList {
	if len(limits) == 0 {
		return requests
	}
	out := requests.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for name, q := range limits {
		if _, ok := out[name]; !ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}
