package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// karpenterReading is a preferred node-affinity term as Karpenter reads
// it: where the term's In and NotIn expressions on one key leave no value
// (In [b] with NotIn [b], or In [a] with In [b]), Karpenter's intersection
// is an In of nothing, which it takes for DoesNotExist, so a node without
// the label meets the term. kube-scheduler's reading (no node meets it) is
// the term's own; only the plan that relaxes preferences as Karpenter does
// reads it Karpenter's way, which decides which preferences that plan
// keeps, never where a pod may bind.
func karpenterReading(tr requirements.Requirements, term corev1.NodeSelectorTerm) requirements.Requirements {
	for _, key := range tr.Keys() {
		if !tr.Get(key).IsEmpty() || !onlyInNotIn(term, key) {
			continue
		}
		tr = tr.Without(key).Add(requirements.DoesNotExist(key))
	}
	return tr
}

// onlyInNotIn reports whether every expression of term on key is In or
// NotIn (an empty bound or an Exists clash is empty for Karpenter too).
func onlyInNotIn(term corev1.NodeSelectorTerm, key string) bool {
	return !slices.ContainsFunc(term.MatchExpressions, func(e corev1.NodeSelectorRequirement) bool {
		return e.Key == key && e.Operator != corev1.NodeSelectorOpIn && e.Operator != corev1.NodeSelectorOpNotIn
	})
}
