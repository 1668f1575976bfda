package karp

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/utils/daemonset"
)

// daemonPod mirrors Provisioner.getDaemonSetPods for one DaemonSet: the
// pod the cluster saw running for it, else one made from its template; the
// template's required node affinity replaces the pod's (the DaemonSet
// controller overrides it per node).
func daemonPod(cluster *state.Cluster, ds *appsv1.DaemonSet) *corev1.Pod {
	pod := cluster.GetDaemonSetPod(ds)
	if pod == nil {
		pod = daemonset.PodForDaemonSet(ds)
	}
	tmpl := ds.Spec.Template.Spec.Affinity
	if tmpl != nil && tmpl.NodeAffinity != nil && tmpl.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if pod.Spec.Affinity == nil {
			pod.Spec.Affinity = &corev1.Affinity{}
		}
		if pod.Spec.Affinity.NodeAffinity == nil {
			pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = tmpl.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return pod
}
