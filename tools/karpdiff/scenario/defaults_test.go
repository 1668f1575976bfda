package scenario

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// TestDefaultPods: limits become requests where a request is missing (as
// the API server stores pods); requests that are set stay; the namespace
// defaults to "default"; the caller's pods are not modified.
func TestDefaultPods(t *testing.T) {
	q := resource.MustParse
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("2")}}}},
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("500m")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("1"), corev1.ResourceMemory: q("1Gi")}}}},
	}}
	in := manifest.Input{Pods: []*corev1.Pod{pod}}
	DefaultPods(&in)
	got := in.Pods[0]
	want := []corev1.ResourceList{{corev1.ResourceCPU: q("2")}, {corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("1Gi")}}
	if diff := cmp.Diff(want, []corev1.ResourceList{got.Spec.InitContainers[0].Resources.Requests, got.Spec.Containers[0].Resources.Requests}); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if got.Namespace != "default" || pod.Namespace != "" || pod.Spec.Containers[0].Resources.Requests.Memory().Value() != 0 {
		t.Errorf("namespace %q, the input pod was modified: %v", got.Namespace, pod)
	}
}
