package scheduler_test

import (
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// TestSolvePodGivenTwice: a pending pod given twice (same namespace and
// name, wherever in the list) is invalid input naming it; a pod of the
// same name in another namespace is another pod.
func TestSolvePodGivenTwice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pods    []*corev1.Pod
		wantErr string
	}{
		{name: "same name and namespace, apart", pods: []*corev1.Pod{examplePod("b", "1"), examplePod("a", "1"), examplePod("c", "1"), examplePod("b", "1")},
			wantErr: "pods: pod default/b is given twice"},
		{name: "first of two duplicates in name order", pods: []*corev1.Pod{examplePod("d", "1"), examplePod("c", "1"), examplePod("d", "1"), examplePod("c", "1")},
			wantErr: "pods: pod default/c is given twice"},
		{name: "same name in another namespace", pods: []*corev1.Pod{examplePod("a", "1"), inNamespace(examplePod("a", "1"), "other")}},
	}
	pools := []nodepool.NodePool{testutil.NodePool("default").Obj()}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := scheduler.Solve(tc.pods, pools, exampleCatalog())
			got := ""
			var ie *scheduler.InputError
			if errors.As(err, &ie) {
				got = ie.Error()
			} else if err != nil {
				t.Fatalf("Solve: %v, want an *InputError or none", err)
			}
			if diff := gocmp.Diff(tc.wantErr, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func inNamespace(p *corev1.Pod, ns string) *corev1.Pod {
	p.Namespace = ns
	return p
}
