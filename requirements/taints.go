package requirements

import (
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
)

// UntoleratedTaint returns the first taint in taints whose effect keeps pods
// off a node (NoSchedule, NoExecute) and that no toleration tolerates.
// PreferNoSchedule taints are preferences and never returned here; see
// UntoleratedPreference. Matching is Kubernetes' own
// (corev1.Toleration.ToleratesTaint), comparison operators included.
func UntoleratedTaint(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return untolerated(taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	})
}

// UntoleratedPreference returns the first PreferNoSchedule taint not tolerated.
func UntoleratedPreference(taints []corev1.Taint, tolerations []corev1.Toleration) (corev1.Taint, bool) {
	return untolerated(taints, tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectPreferNoSchedule
	})
}

func untolerated(taints []corev1.Taint, tolerations []corev1.Toleration, include func(*corev1.Taint) bool) (corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if !include(t) {
			continue
		}
		if !Tolerates(tolerations, t) {
			return *t, true
		}
	}
	return corev1.Taint{}, false
}

// Tolerates reports whether any toleration tolerates taint.
func Tolerates(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(logr.Discard(), taint, true) {
			return true
		}
	}
	return false
}
