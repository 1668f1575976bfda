package scenario

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// DefaultPods applies to every pod and DaemonSet template of in the
// defaulting the API server performs when it stores a pod: a container (or
// init container) with a limit but no request for a resource requests its
// limit, and so do pod-level resources. It also gives pods without a
// namespace the namespace "default". The pods are replaced by copies.
func DefaultPods(in *manifest.Input) {
	for i, p := range in.Pods {
		in.Pods[i] = defaultPod(p)
	}
	for i, p := range in.BoundPods {
		in.BoundPods[i] = defaultPod(p)
	}
	for i, ds := range in.DaemonSets {
		c := ds.DeepCopy()
		defaultSpec(&c.Spec.Template.Spec)
		if c.Namespace == "" {
			c.Namespace = "default"
		}
		in.DaemonSets[i] = c
	}
}

func defaultPod(p *corev1.Pod) *corev1.Pod {
	c := p.DeepCopy()
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	defaultSpec(&c.Spec)
	return c
}

func defaultSpec(spec *corev1.PodSpec) {
	for i := range spec.Containers {
		defaultRequests(&spec.Containers[i].Resources)
	}
	for i := range spec.InitContainers {
		defaultRequests(&spec.InitContainers[i].Resources)
	}
	if spec.Resources != nil {
		defaultRequests(spec.Resources)
	}
}

func defaultRequests(r *corev1.ResourceRequirements) {
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[name] = q.DeepCopy()
	}
}
