package scheduler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/apicheck"
)

// validatePod returns the failure of a pending pod that the Kubernetes API
// server would reject (internal/apicheck: invalid label keys and values,
// selector operators and values, Gt/Lt without one integer, unknown taint
// effects in tolerations, negative or over-limit requests, ...), or nil.
// Such a pod is never placed: its PodError has code InvalidPod and one
// cause per field at fault. Pods are validated per class (pods of a class
// share labels and spec).
func validatePod(p *corev1.Pod) *failure {
	errs := apicheck.Pod(p)
	if len(errs) == 0 {
		return nil
	}
	causes := make([]Cause, len(errs))
	for i, e := range errs {
		causes[i] = Cause{Code: ReasonInvalidPod, Message: "invalid pod: " + e.Error()}
	}
	return &failure{code: ReasonInvalidPod, causes: causes}
}
