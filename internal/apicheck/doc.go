// Package apicheck rejects what the Kubernetes API server would reject in
// the objects nodeplan reads: label keys and values, label and node
// selectors (operators, values per operator, Gt/Lt with one integer),
// taints and tolerations (keys, effects, operators), topology spread and
// pod (anti-)affinity terms, preferred-term weights, resource quantities
// (negative, requests above limits, fractional extended resources), host
// ports and PodDisruptionBudget budgets. It follows
// k8s.io/kubernetes/pkg/apis/core/validation (policy's for budgets) for
// these fields and nothing else: rules that are Karpenter's (restricted
// labels, well-known keys) belong to requirements and nodepool.
//
// Every check returns a field.ErrorList whose paths name the field, in a
// deterministic order (map keys sorted). The command line's manifest
// decoder (internal/manifest) reports them as input errors; Solve
// (scheduler) reports a pending pod that fails them as unplaced with code
// InvalidPod, and existing nodes that fail them as input errors.
//
// Flow: apicheck sits on k8s.io/api and apimachinery only; internal/manifest
// and scheduler use it.
package apicheck
