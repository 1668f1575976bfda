package nodepool

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// An existing node, as a NodePool's node is seen while it starts: whether
// it has initialised, the taints that keep new pods off it, and its labels
// as requirements read them. The solver and the plan checker
// (scheduler/verify) both read existing nodes through these rules.

// IsInitialized reports whether an existing node has finished initialising
// as Karpenter decides: a node without the karpenter.sh/nodepool label is
// not Karpenter's and counts as initialised; a Karpenter node is once it is
// labelled karpenter.sh/initialized=true.
func IsInitialized(n *corev1.Node) bool {
	if _, managed := n.Labels[requirements.LabelNodePool]; !managed {
		return true
	}
	return n.Labels[requirements.LabelNodeInitialized] == "true"
}

// IsEphemeralTaint reports whether a node carries the taint only while it
// starts (Karpenter's list, B-079): node.kubernetes.io/not-ready
// (NoSchedule, NoExecute), node.kubernetes.io/unreachable (NoSchedule),
// node.cloudprovider.kubernetes.io/uninitialized=true (NoSchedule),
// karpenter.sh/unregistered (NoExecute), and any readiness.k8s.io/ taint.
func IsEphemeralTaint(t corev1.Taint) bool {
	switch {
	case t.Key == corev1.TaintNodeNotReady:
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	case t.Key == corev1.TaintNodeUnreachable:
		return t.Effect == corev1.TaintEffectNoSchedule
	case t.Key == "node.cloudprovider.kubernetes.io/uninitialized":
		return t.Value == "true" && t.Effect == corev1.TaintEffectNoSchedule
	case t.Key == "karpenter.sh/unregistered":
		return t.Effect == corev1.TaintEffectNoExecute
	}
	return strings.HasPrefix(t.Key, "readiness.k8s.io/")
}

// EffectiveTaints returns the taints that keep new pods off an existing
// node: all of them, but on a node still initialising (IsInitialized) the
// ephemeral taints (IsEphemeralTaint) and its NodePool's startup taints are
// expected to go away, so they keep nothing off. startupTaints are the
// NodePool's (nil when the node's pool is unknown); one covers a taint of
// the same key and effect, and of the same value unless it leaves the value
// empty. The result is a fresh slice, in the node's order.
func EffectiveTaints(n *corev1.Node, startupTaints []corev1.Taint) []corev1.Taint {
	if IsInitialized(n) {
		return slices.Clone(n.Spec.Taints)
	}
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if IsEphemeralTaint(t) || slices.ContainsFunc(startupTaints, func(s corev1.Taint) bool {
			return s.Key == t.Key && s.Effect == t.Effect && (s.Value == "" || s.Value == t.Value)
		}) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// BindsNow reports whether kube-scheduler binds new pods to an existing
// node as it is now, before any node the plan launches joins: an
// initialised node, or one still initialising whose Ready condition, when
// reported, is True and that carries no NoSchedule or NoExecute taint
// EffectiveTaints drops (a startup or ephemeral taint keeps pods off it
// until it goes). kube-scheduler reads neither karpenter.sh/initialized
// nor the NodePool; a node still initialising without such a taint takes
// pods at once.
func BindsNow(n *corev1.Node, startupTaints []corev1.Taint) bool {
	if IsInitialized(n) {
		return true
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return false
		}
	}
	kept := EffectiveTaints(n, startupTaints)
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !slices.ContainsFunc(kept, func(k corev1.Taint) bool { return k.MatchTaint(&t) }) {
			return false
		}
	}
	return true
}

// NodeLabels returns an existing node's labels as requirements read them:
// keys normalised (Schema.NormalizeLabels: a stable key wins over its
// alias) and kubernetes.io/hostname set to the node's name when the node
// has none. The result is a fresh map.
func NodeLabels(n *corev1.Node, schema requirements.Schema) map[string]string {
	out := schema.NormalizeLabels(n.Labels)
	if _, ok := out[requirements.LabelHostname]; !ok {
		out[requirements.LabelHostname] = n.Name
	}
	return out
}

// RunsOn reports whether the DaemonSet's pod runs on an existing node with
// these labels (NodeLabels) and taints (EffectiveTaints): it tolerates the
// NoSchedule and NoExecute taints and one of its node constraints
// (Alternatives) matches the labels. A startup taint delays the pod but
// does not keep it away, which is why the effective taints are the ones to
// give.
func (d DaemonSet) RunsOn(labels map[string]string, taints []corev1.Taint) bool {
	if _, untolerated := requirements.UntoleratedTaint(taints, d.tolerations); untolerated {
		return false
	}
	return slices.ContainsFunc(d.alternatives, func(alt requirements.Requirements) bool { return alt.Matches(labels) })
}
