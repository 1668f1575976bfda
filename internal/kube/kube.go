// Package kube holds the few Kubernetes object conventions that several
// packages apply, so that each rule is written once: the namespace of a
// namespaced object that names none, the "namespace/name" key that
// identifies it, whether a bound pod still holds its node, which
// DaemonSets own a pod, and a pod narrowed by one more required node
// requirement.
//
// Flow: kube sits on k8s.io/api alone; internal/manifest, nodepool,
// topology, scheduler and scheduler/verify use it.
package kube

import corev1 "k8s.io/api/core/v1"

// DefaultNamespace is the namespace of a namespaced object whose
// metadata.namespace is empty, as the API server defaults it.
const DefaultNamespace = "default"

// Namespace returns ns, or DefaultNamespace when ns is empty.
func Namespace(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}

// Key returns "namespace/name" of a namespaced object, its namespace
// defaulted (Namespace).
func Key(namespace, name string) string { return Namespace(namespace) + "/" + name }

// IsGone reports whether a bound pod no longer holds its node: it has
// finished (phase Succeeded or Failed) or is being deleted. Such a pod
// takes no room and counts for no topology.
func IsGone(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil
}

// DaemonSetOwners returns the names of the DaemonSets among the pod's
// owners (in the pod's namespace), in order; none for a pod no DaemonSet
// owns. A DaemonSet's pod goes with its node: it is never pending elsewhere.
func DaemonSetOwners(p *corev1.Pod) []string {
	var out []string
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			out = append(out, o.Name)
		}
	}
	return out
}

// WithRequired returns a copy of p that also requires r: r is added to
// every term of its required node affinity, or is the one term when it has
// none. An empty term matches no node, and stays empty: adding r to it
// would let the pod onto nodes it refused.
func WithRequired(p *corev1.Pod, r corev1.NodeSelectorRequirement) *corev1.Pod {
	p = p.DeepCopy()
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := p.Spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}}}
		return p
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for j := range terms {
		if len(terms[j].MatchExpressions) > 0 || len(terms[j].MatchFields) > 0 {
			terms[j].MatchExpressions = append(terms[j].MatchExpressions, r)
		}
	}
	return p
}
