package testutil

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PVC returns a claim in namespace "default" bound to volume (unbound when
// volume is "") of storage class class ("" leaves it unset).
func PVC(name, volume, class string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PersistentVolumeClaimSpec{VolumeName: volume},
	}
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	if volume != "" {
		c.Status.Phase = corev1.ClaimBound
	}
	return c
}

// ZonalPV returns a volume whose node affinity requires one of zones.
func ZonalPV(name string, zones ...string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: zones}}}}}}},
	}
}

// WaitForFirstConsumerClass returns a storage class that binds when a pod
// is placed, in one of zones (any zone when none is given).
func WaitForFirstConsumerClass(name string, zones ...string) *storagev1.StorageClass {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{
		TypeMeta:          metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta:        metav1.ObjectMeta{Name: name},
		Provisioner:       "ebs.csi.aws.com",
		VolumeBindingMode: &mode,
	}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: "topology.kubernetes.io/zone", Values: zones}}}}
	}
	return sc
}
