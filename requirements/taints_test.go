package requirements_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

func TestTolerates(t *testing.T) {
	t.Parallel()
	taint := corev1.Taint{Key: "test-key", Value: "test-value", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name        string
		tolerations []corev1.Toleration
		want        bool
	}{
		{name: "B-074 Exists, key and effect", tolerations: []corev1.Toleration{{Key: "test-key", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, want: true},
		{name: "B-074 Equal, key, value and effect", tolerations: []corev1.Toleration{{Key: "test-key", Operator: corev1.TolerationOpEqual, Value: "test-value", Effect: corev1.TaintEffectNoSchedule}}, want: true},
		{name: "B-074 empty operator means Equal", tolerations: []corev1.Toleration{{Key: "test-key", Value: "test-value"}}, want: true},
		{name: "B-074 Exists and key, any effect", tolerations: []corev1.Toleration{{Key: "test-key", Operator: corev1.TolerationOpExists}}, want: true},
		{name: "B-074 empty key Exists tolerates everything", tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, want: true},
		{name: "B-074 no toleration", tolerations: nil},
		{name: "B-074 wrong key", tolerations: []corev1.Toleration{{Key: "other-key", Operator: corev1.TolerationOpExists}}},
		{name: "B-074 Equal without the value", tolerations: []corev1.Toleration{{Key: "test-key", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule}}},
		{name: "wrong effect", tolerations: []corev1.Toleration{{Key: "test-key", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}},
		{name: "any of several", tolerations: []corev1.Toleration{{Key: "other-key", Operator: corev1.TolerationOpExists}, {Key: "test-key", Operator: corev1.TolerationOpExists}}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, requirements.Tolerates(tt.tolerations, &taint)); diff != "" {
				t.Errorf("Tolerates() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToleratesComparison: comparison operators follow Kubernetes' own
// ToleratesTaint, which this package enables.
func TestToleratesComparison(t *testing.T) {
	t.Parallel()
	taint := corev1.Taint{Key: "generation", Value: "5", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name       string
		toleration corev1.Toleration
		want       bool
	}{
		{name: "Gt below the taint", toleration: corev1.Toleration{Key: "generation", Operator: corev1.TolerationOpGt, Value: "4"}, want: true},
		{name: "Gt at the taint", toleration: corev1.Toleration{Key: "generation", Operator: corev1.TolerationOpGt, Value: "5"}},
		{name: "Lt above the taint", toleration: corev1.Toleration{Key: "generation", Operator: corev1.TolerationOpLt, Value: "6"}, want: true},
		{name: "Lt with a word", toleration: corev1.Toleration{Key: "generation", Operator: corev1.TolerationOpLt, Value: "six"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tt.want, requirements.Tolerates([]corev1.Toleration{tt.toleration}, &taint)); diff != "" {
				t.Errorf("Tolerates() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUntoleratedTaint(t *testing.T) {
	t.Parallel()
	noSchedule := corev1.Taint{Key: "test", Value: "bar", Effect: corev1.TaintEffectNoSchedule}
	noExecute := corev1.Taint{Key: "evict", Effect: corev1.TaintEffectNoExecute}
	prefer := corev1.Taint{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}
	tests := []struct {
		name           string
		taints         []corev1.Taint
		tolerations    []corev1.Toleration
		wantTaint      corev1.Taint
		wantFound      bool
		wantPreference corev1.Taint
		wantPrefFound  bool
	}{
		{name: "no taints"},
		{
			name:   "B-073 NoSchedule tolerated with Exists",
			taints: []corev1.Taint{noSchedule}, tolerations: []corev1.Toleration{{Key: "test", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		},
		{name: "NoSchedule not tolerated", taints: []corev1.Taint{noSchedule}, wantTaint: noSchedule, wantFound: true},
		{name: "NoExecute not tolerated", taints: []corev1.Taint{noExecute}, wantTaint: noExecute, wantFound: true},
		{
			name:   "PreferNoSchedule is never returned by UntoleratedTaint",
			taints: []corev1.Taint{prefer}, wantPreference: prefer, wantPrefFound: true,
		},
		{
			name:   "the first untolerated taint in order",
			taints: []corev1.Taint{prefer, noSchedule, noExecute}, tolerations: []corev1.Toleration{{Key: "test", Operator: corev1.TolerationOpExists}},
			wantTaint: noExecute, wantFound: true, wantPreference: prefer, wantPrefFound: true,
		},
		{
			name:   "empty-key Exists tolerates everything",
			taints: []corev1.Taint{prefer, noSchedule, noExecute}, tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		},
		{
			name:   "B-076 a toleration for an unknown key changes nothing",
			taints: []corev1.Taint{noSchedule}, tolerations: []corev1.Toleration{{Key: "unknown", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			wantTaint: noSchedule, wantFound: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			taint, found := requirements.UntoleratedTaint(tt.taints, tt.tolerations)
			if diff := gocmp.Diff([]any{tt.wantTaint, tt.wantFound}, []any{taint, found}); diff != "" {
				t.Errorf("UntoleratedTaint() mismatch (-want +got):\n%s", diff)
			}
			pref, prefFound := requirements.UntoleratedPreference(tt.taints, tt.tolerations)
			if diff := gocmp.Diff([]any{tt.wantPreference, tt.wantPrefFound}, []any{pref, prefFound}); diff != "" {
				t.Errorf("UntoleratedPreference() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
