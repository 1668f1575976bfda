package nodepool_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestBehaviourB079EphemeralTaints: the ephemeral-taint check (B-079).
// not-ready (NoSchedule or NoExecute), unreachable (NoSchedule),
// cloud-provider uninitialized=true (NoSchedule), karpenter.sh/unregistered
// (NoExecute) and any key starting with readiness.k8s.io/ (any effect) are
// ephemeral; other effects of those keys, and keys that merely contain the
// readiness prefix, are not. An initialising Karpenter node sheds exactly
// the ephemeral ones (EffectiveTaints).
func TestBehaviourB079EphemeralTaints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		taint corev1.Taint
		want  bool
	}{
		{name: "B-079 not-ready NoSchedule", taint: corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}, want: true},
		{name: "B-079 not-ready NoExecute", taint: corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}, want: true},
		{name: "B-079 not-ready PreferNoSchedule is not in the list", taint: corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectPreferNoSchedule}},
		{name: "B-079 unreachable NoSchedule", taint: corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}, want: true},
		{name: "B-079 unreachable NoExecute is not in the list", taint: corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}},
		{
			name:  "B-079 cloud-provider uninitialized=true NoSchedule",
			taint: corev1.Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule}, want: true,
		},
		{
			name:  "B-079 cloud-provider uninitialized NoExecute is not in the list",
			taint: corev1.Taint{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoExecute},
		},
		{name: "B-079 karpenter.sh/unregistered NoExecute", taint: corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute}, want: true},
		{name: "B-079 karpenter.sh/unregistered NoSchedule is not in the list", taint: corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoSchedule}},
		{name: "B-079 readiness.k8s.io/ prefix, NoSchedule", taint: corev1.Taint{Key: "readiness.k8s.io/network", Effect: corev1.TaintEffectNoSchedule}, want: true},
		{name: "B-079 readiness.k8s.io/ prefix, NoExecute", taint: corev1.Taint{Key: "readiness.k8s.io/storage", Value: "pending", Effect: corev1.TaintEffectNoExecute}, want: true},
		{name: "B-079 readiness.k8s.io/ prefix, PreferNoSchedule", taint: corev1.Taint{Key: "readiness.k8s.io/gpu", Effect: corev1.TaintEffectPreferNoSchedule}, want: true},
		{name: "B-079 readiness prefix in the middle of the key", taint: corev1.Taint{Key: "example.com/readiness.k8s.io/network", Effect: corev1.TaintEffectNoSchedule}},
		{name: "B-079 readiness prefix inside the domain", taint: corev1.Taint{Key: "x.readiness.k8s.io/network", Effect: corev1.TaintEffectNoSchedule}},
		{name: "B-079 readiness domain without the slash", taint: corev1.Taint{Key: "readiness.k8s.io", Effect: corev1.TaintEffectNoSchedule}},
		{name: "B-079 an ordinary taint", taint: corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := nodepool.IsEphemeralTaint(tc.taint); got != tc.want {
				t.Errorf("IsEphemeralTaint(%v) = %v, want %v", tc.taint, got, tc.want)
			}
			// On a Karpenter node still initialising, an ephemeral taint
			// keeps no pod off; any other taint does. On an initialised
			// node every taint applies.
			starting := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{requirements.LabelNodePool: "default"}},
				Spec:       corev1.NodeSpec{Taints: []corev1.Taint{tc.taint}},
			}
			if kept := len(nodepool.EffectiveTaints(starting, nil)) == 1; kept == tc.want {
				t.Errorf("initialising node: EffectiveTaints keeps %v = %v, want %v", tc.taint, kept, !tc.want)
			}
			ready := starting.DeepCopy()
			ready.Labels[requirements.LabelNodeInitialized] = "true"
			if len(nodepool.EffectiveTaints(ready, nil)) != 1 {
				t.Errorf("initialised node: EffectiveTaints drops %v, want it kept", tc.taint)
			}
		})
	}
}
