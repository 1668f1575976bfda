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

// karpenterIntersect is the requirements of a required term (with the
// node selector) and the preferred term Karpenter enforces with it, as
// Karpenter intersects them: on a key where they leave no value and one of
// them lists values (In, or DoesNotExist) with the other In, NotIn or
// DoesNotExist, its intersection is an In of nothing, which it takes for
// DoesNotExist (karpenterReading), so the preference costs nothing where
// the label is absent. Karpenter then places a pod whose required
// gpu-name DoesNotExist meets a preferred gpu-name In [fake nvid] on a
// node without a GPU, the preference dropped unseen, where relaxing the
// required term first would take a GPU node (karpdiff seed 73699: 98 pods
// on $0.79/h GPU nodes where Karpenter's cpu-8 cost $0.24).
func karpenterIntersect(alt, pref requirements.Requirements) requirements.Requirements {
	r := alt.Intersect(pref)
	for _, key := range pref.Keys() {
		if !r.Get(key).IsEmpty() || !alt.Has(key) {
			continue
		}
		if x, y := alt.Get(key), pref.Get(key); readsAbsentWhenEmpty(x, y) {
			r = r.Without(key).Add(requirements.DoesNotExist(key))
		}
	}
	return r
}

// readsAbsentWhenEmpty reports whether Karpenter reads the empty
// intersection of x and y as DoesNotExist: neither bounds a number nor is
// Exists (those clashes stay empty for Karpenter, as karpenterReading
// says), and one of them is a list of values (In, or DoesNotExist).
func readsAbsentWhenEmpty(x, y requirements.Requirement) bool {
	plain := func(r requirements.Requirement) bool {
		_, lo, _, hi := r.Bounds()
		return !lo && !hi && !r.IsEmpty() && (r.IsFinite() || !r.RequiresPresent())
	}
	return plain(x) && plain(y) && (x.IsFinite() || y.IsFinite())
}
