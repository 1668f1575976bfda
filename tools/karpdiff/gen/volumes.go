package gen

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const storageClassName = "zonal"

// volumes gives a group storage: a StatefulSet whose claims a zonal
// WaitForFirstConsumer StorageClass provisions (in some of the zones), or
// bare pods each with a claim bound to a PersistentVolume in one zone.
func (b *builder) volumes(grp *group) {
	if b.g.chance(0.5) {
		b.storageClass()
		grp.claimClass = storageClassName
		return
	}
	grp.bound = true
}

// storageClass writes the zonal StorageClass once.
func (b *builder) storageClass() {
	for _, o := range b.storage {
		if sc, ok := o.(*storagev1.StorageClass); ok && sc.Name == storageClassName {
			return
		}
	}
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		ObjectMeta: metav1.ObjectMeta{Name: storageClassName}, Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &mode}
	if b.g.chance(0.5) {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: corev1.LabelTopologyZone, Values: subset(b.g, b.v.zones, len(b.v.zones))}}}}
	}
	b.storage = append([]any{sc}, b.storage...)
}

func claimTemplate(class string) corev1.PersistentVolumeClaim {
	c := class
	return corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &c, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}
}

// boundClaim writes a PersistentVolume in a random zone and a claim bound
// to it, and returns the claim's name.
func (b *builder) boundClaim(pod string) string {
	name := "data-" + pod
	pvName := "pv-" + pod
	zone := pick(b.g, b.v.zones)
	class := "static"
	pv := &corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}, ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: fmt.Sprintf("vol-%s", pod)}},
			ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: "default", Name: name},
			StorageClassName:       class,
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}},
		},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}
	pvc := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Annotations: map[string]string{"pv.kubernetes.io/bind-completed": "yes"}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, VolumeName: pvName, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	b.storage = append(b.storage, pv, pvc)
	return name
}
