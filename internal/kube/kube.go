// Package kube holds the few Kubernetes object conventions that several
// packages apply, so that each rule is written once: the namespace of a
// namespaced object that names none, and the "namespace/name" key that
// identifies it.
//
// Flow: kube sits on nothing but the standard library; internal/manifest,
// nodepool, topology and scheduler use it.
package kube

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
