package podrequests_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/podrequests"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

// list builds a resource list from name, quantity pairs.
func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// ctr builds a container with requests and limits.
func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

// sidecar makes c a restartable init container.
func sidecar(c corev1.Container) corev1.Container {
	always := corev1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

// Quantities compare by value (1Gi equals 1024Mi): cmp uses Quantity.Equal.
func TestOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec corev1.PodSpec
		want corev1.ResourceList
	}{
		{
			name: "no containers: one pod slot",
			want: list("pods", "1"),
		},
		{
			name: "container without requests",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", nil, nil)}},
			want: list("pods", "1"),
		},
		{
			name: "one container",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)}},
			want: list("cpu", "500m", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "containers sum",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("a", list("cpu", "500m", "memory", "1Gi"), nil),
				ctr("b", list("cpu", "250m", "memory", "512Mi"), nil),
				ctr("c", list("cpu", "1"), nil),
			}},
			want: list("cpu", "1750m", "memory", "1536Mi", "pods", "1"),
		},
		{
			name: "init container larger on one resource",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("init", list("cpu", "2", "memory", "512Mi"), nil)},
				Containers:     []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "2", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "init containers: the largest counts, not the sum",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					ctr("init-1", list("cpu", "1", "memory", "3Gi"), nil),
					ctr("init-2", list("cpu", "3", "memory", "1Gi"), nil),
				},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "3", "memory", "3Gi", "pods", "1"),
		},
		{
			name: "sidecar adds to the containers",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{sidecar(ctr("proxy", list("cpu", "100m", "memory", "128Mi"), nil))},
				Containers:     []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "600m", "memory", "1152Mi", "pods", "1"),
		},
		{
			name: "init container after a sidecar runs beside it",
			// init-2 runs while proxy runs: 100m + 1 = 1100m, 128Mi + 2Gi.
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					sidecar(ctr("proxy", list("cpu", "100m", "memory", "128Mi"), nil)),
					ctr("init-2", list("cpu", "1", "memory", "2Gi"), nil),
				},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "1100m", "memory", "2176Mi", "pods", "1"),
		},
		{
			name: "init container before a sidecar runs alone",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					ctr("init-1", list("cpu", "1", "memory", "2Gi"), nil),
					sidecar(ctr("proxy", list("cpu", "100m", "memory", "128Mi"), nil)),
				},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "1", "memory", "2Gi", "pods", "1"),
		},
		{
			name: "sidecars accumulate",
			// init-3 runs beside both sidecars: 100m + 200m + 2 = 2300m.
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{
					sidecar(ctr("s1", list("cpu", "100m"), nil)),
					sidecar(ctr("s2", list("cpu", "200m"), nil)),
					ctr("init-3", list("cpu", "2"), nil),
				},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
			},
			want: list("cpu", "2300m", "pods", "1"),
		},
		{
			name: "overhead added",
			spec: corev1.PodSpec{
				Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)},
				Overhead:   list("cpu", "250m", "memory", "128Mi"),
			},
			want: list("cpu", "750m", "memory", "1152Mi", "pods", "1"),
		},
		{
			name: "overhead added after the init maximum",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("init", list("cpu", "2"), nil)},
				Containers:     []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
				Overhead:       list("cpu", "100m"),
			},
			want: list("cpu", "2100m", "pods", "1"),
		},
		{
			name: "limits only: requests default to limits",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", nil, list("cpu", "1", "memory", "2Gi"))}},
			want: list("cpu", "1", "memory", "2Gi", "pods", "1"),
		},
		{
			name: "a request wins over its limit; a missing one defaults",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("app", list("cpu", "500m"), list("cpu", "1", "memory", "2Gi")),
			}},
			want: list("cpu", "500m", "memory", "2Gi", "pods", "1"),
		},
		{
			name: "an explicit zero request is kept",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("app", list("cpu", "0", "memory", "1Gi"), list("cpu", "1")),
			}},
			want: list("cpu", "0", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "limits-only init container defaults too",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{ctr("init", nil, list("cpu", "3"))},
				Containers:     []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
			},
			want: list("cpu", "3", "pods", "1"),
		},
		{
			name: "limits-only sidecar defaults and adds",
			spec: corev1.PodSpec{
				InitContainers: []corev1.Container{sidecar(ctr("proxy", nil, list("cpu", "200m")))},
				Containers:     []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
			},
			want: list("cpu", "700m", "pods", "1"),
		},
		{
			name: "defaulting in one container leaves the others",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("a", list("cpu", "100m"), nil),
				ctr("b", nil, list("cpu", "1")),
				ctr("c", list("memory", "1Gi"), list("memory", "2Gi")),
			}},
			want: list("cpu", "1100m", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "extended resource requested",
			spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("a", list("cpu", "1", string(gpu), "1"), list(string(gpu), "1")),
				ctr("b", list(string(gpu), "2"), list(string(gpu), "2")),
			}},
			want: list("cpu", "1", string(gpu), "3", "pods", "1"),
		},
		{
			name: "extended resource as a limit only",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", list("cpu", "1"), list(string(gpu), "1"))}},
			want: list("cpu", "1", string(gpu), "1", "pods", "1"),
		},
		{
			name: "a pods request adds to the pod's own slot",
			spec: corev1.PodSpec{Containers: []corev1.Container{ctr("a", list("pods", "2"), nil)}},
			want: list("pods", "3"),
		},
		{
			name: "pod-level requests replace the containers' sum",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "2", "memory", "4Gi")},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi", string(gpu), "1"), nil)},
			},
			want: list("cpu", "2", "memory", "4Gi", string(gpu), "1", "pods", "1"),
		},
		{
			name: "pod-level limits default pod-level requests",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Limits: list("cpu", "3")},
				Containers: []corev1.Container{ctr("app", list("memory", "1Gi"), nil)},
			},
			want: list("cpu", "3", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "pod-level request wins over its limit",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "1"), Limits: list("cpu", "3", "memory", "2Gi")},
				Containers: []corev1.Container{ctr("app", list("cpu", "100m", "memory", "1Gi"), nil)},
			},
			want: list("cpu", "1", "memory", "2Gi", "pods", "1"),
		},
		{
			name: "pod-level requests plus overhead",
			spec: corev1.PodSpec{
				Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "2")},
				Containers: []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
				Overhead:   list("cpu", "250m"),
			},
			want: list("cpu", "2250m", "pods", "1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.spec.DeepCopy()
			got := podrequests.Of(&tt.spec)
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Of (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(before, &tt.spec); diff != "" {
				t.Errorf("Of changed the spec (-before +after):\n%s", diff)
			}
			// The result is the caller's: writing into it leaves the spec.
			for name, q := range got {
				q.Add(resource.MustParse("1"))
				got[name] = q
			}
			got["example.com/new"] = resource.MustParse("1")
			if diff := gocmp.Diff(before, &tt.spec); diff != "" {
				t.Errorf("writing the result changed the spec (-before +after):\n%s", diff)
			}
		})
	}
}

// TestOfPod checks that a pod being resized counts the larger of its spec
// and what the kubelet allocated or actuated, as kube-scheduler does, while
// Of ignores the status.
func TestOfPod(t *testing.T) {
	t.Parallel()
	infeasible := []corev1.PodCondition{{Type: corev1.PodResizePending, Status: corev1.ConditionTrue, Reason: corev1.PodReasonInfeasible}}
	tests := []struct {
		name   string
		pod    corev1.Pod
		want   corev1.ResourceList // OfPod
		wantOf corev1.ResourceList // Of(&pod.Spec)
	}{
		{
			name: "no status: the spec",
			pod: corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
				ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)}}},
			want:   list("cpu", "500m", "memory", "1Gi", "pods", "1"),
			wantOf: list("cpu", "500m", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "allocated more than the spec (shrinking)",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", list("cpu", "500m", "memory", "1Gi"), nil)}},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
					{Name: "app", AllocatedResources: list("cpu", "1", "memory", "512Mi")}}},
			},
			want:   list("cpu", "1", "memory", "1Gi", "pods", "1"),
			wantOf: list("cpu", "500m", "memory", "1Gi", "pods", "1"),
		},
		{
			name: "actuated more than the spec and the allocation",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", list("cpu", "500m"), nil)}},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
					Name: "app", AllocatedResources: list("cpu", "750m"),
					Resources: &corev1.ResourceRequirements{Requests: list("cpu", "2")},
				}}},
			},
			want:   list("cpu", "2", "pods", "1"),
			wantOf: list("cpu", "500m", "pods", "1"),
		},
		{
			name: "status of another container does not count",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", list("cpu", "500m"), nil)}},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
					{Name: "gone", AllocatedResources: list("cpu", "4")}}},
			},
			want:   list("cpu", "500m", "pods", "1"),
			wantOf: list("cpu", "500m", "pods", "1"),
		},
		{
			name: "limits-only spec still defaults",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", nil, list("cpu", "1"))}},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
					{Name: "app", AllocatedResources: list("cpu", "250m")}}},
			},
			want:   list("cpu", "1", "pods", "1"),
			wantOf: list("cpu", "1", "pods", "1"),
		},
		{
			name: "init container status counts",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{
					InitContainers: []corev1.Container{sidecar(ctr("proxy", list("cpu", "100m"), nil))},
					Containers:     []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
				},
				Status: corev1.PodStatus{InitContainerStatuses: []corev1.ContainerStatus{
					{Name: "proxy", AllocatedResources: list("cpu", "300m")}}},
			},
			want:   list("cpu", "800m", "pods", "1"),
			wantOf: list("cpu", "600m", "pods", "1"),
		},
		{
			name: "infeasible resize: the allocation, not the spec",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{Containers: []corev1.Container{ctr("app", list("cpu", "4"), nil)}},
				Status: corev1.PodStatus{
					Conditions:        infeasible,
					ContainerStatuses: []corev1.ContainerStatus{{Name: "app", AllocatedResources: list("cpu", "1")}},
				},
			},
			want:   list("cpu", "1", "pods", "1"),
			wantOf: list("cpu", "4", "pods", "1"),
		},
		{
			name: "overhead on top of the status",
			pod: corev1.Pod{
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{ctr("app", list("cpu", "500m"), nil)},
					Overhead:   list("cpu", "100m"),
				},
				Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
					{Name: "app", AllocatedResources: list("cpu", "1")}}},
			},
			want:   list("cpu", "1100m", "pods", "1"),
			wantOf: list("cpu", "600m", "pods", "1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := tt.pod.DeepCopy()
			if diff := gocmp.Diff(tt.want, podrequests.OfPod(&tt.pod)); diff != "" {
				t.Errorf("OfPod (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantOf, podrequests.Of(&tt.pod.Spec)); diff != "" {
				t.Errorf("Of (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(before, &tt.pod); diff != "" {
				t.Errorf("the pod changed (-before +after):\n%s", diff)
			}
		})
	}
}
