package testutil

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OwnedBy adds a controller owner reference (kind "DaemonSet" marks a
// DaemonSet's pod).
func (b *PodBuilder) OwnedBy(kind, name string) *PodBuilder {
	yes := true
	b.p.OwnerReferences = append(b.p.OwnerReferences, metav1.OwnerReference{APIVersion: "apps/v1", Kind: kind, Name: name, Controller: &yes})
	return b
}

// Phase sets status.phase.
func (b *PodBuilder) Phase(phase corev1.PodPhase) *PodBuilder {
	b.p.Status.Phase = phase
	return b
}

// HostPortOn adds a container port with a host port on one host IP.
func (b *PodBuilder) HostPortOn(ip string, port int32) *PodBuilder {
	c := &b.p.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, HostIP: ip, Protocol: corev1.ProtocolTCP})
	return b
}

// PodAffinityTerm adds a fully specified required pod-affinity term.
func (b *PodBuilder) PodAffinityTerm(term corev1.PodAffinityTerm) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	return b
}

// PodAntiAffinityTerm adds a fully specified required pod-anti-affinity term.
func (b *PodBuilder) PodAntiAffinityTerm(term corev1.PodAffinityTerm) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term)
	return b
}
