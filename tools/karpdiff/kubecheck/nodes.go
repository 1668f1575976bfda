package kubecheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

// Well-known label keys of Karpenter nodes.
const (
	labelNodePool     = "karpenter.sh/nodepool"
	labelCapacityType = "karpenter.sh/capacity-type"
	labelInitialized  = "karpenter.sh/initialized"
	labelRegistered   = "karpenter.sh/registered"
	labelZoneID       = "topology.k8s.aws/zone-id"
	labelReservation  = "karpenter.k8s.aws/capacity-reservation-id"
)

// claimNode returns the Node a NodeClaim becomes once it has registered and
// initialised: labels from the catalog type, the plan (custom values the
// plan decided), the NodePool template and the chosen offering; the
// NodePool's taints (startup taints are gone after initialisation); the
// type's allocatable.
func claimNode(nc plan.NodeClaim, it *instancetypes.InstanceType, o instancetypes.Offering, pool *nodepool.NodePool) *corev1.Node {
	labels := map[string]string{}
	maps.Copy(labels, nc.Labels)
	maps.Copy(labels, it.Labels)
	if pool != nil {
		maps.Copy(labels, pool.Spec.Template.ObjectMeta.Labels)
	}
	labels[corev1.LabelTopologyZone] = o.Zone
	labels[labelCapacityType] = o.CapacityType
	labels[corev1.LabelInstanceTypeStable] = it.Name
	labels[labelNodePool] = nc.NodePool
	labels[corev1.LabelHostname] = nc.Name
	labels[labelInitialized] = "true"
	labels[labelRegistered] = "true"
	if o.ZoneID != "" {
		labels[labelZoneID] = o.ZoneID
	}
	if o.ReservationID != "" {
		labels[labelReservation] = o.ReservationID
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, Labels: labels},
		Status: corev1.NodeStatus{
			Capacity:    it.Capacity.DeepCopy(),
			Allocatable: it.Allocatable().DeepCopy(),
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	if pool != nil {
		n.Spec.Taints = slices.Clone(pool.Spec.Template.Spec.Taints)
	}
	return n
}

// existingNode returns a scenario Node as kube-scheduler will see it when
// the plan's pods arrive: a Karpenter node still initialising has lost its
// NodePool's startup taints and the well-known ephemeral taints (the plan
// counts on its initialisation), a cordoned node carries the
// node.kubernetes.io/unschedulable taint the node lifecycle controller adds
// (a spread under nodeTaintsPolicy Honor counts no pod there; Karpenter's
// side of the differential sees the node so too), every node has its
// hostname label and an allocatable (its capacity when the input gives
// none).
func existingNode(n *corev1.Node, pool *nodepool.NodePool) *corev1.Node {
	c := n.DeepCopy()
	if c.Spec.Unschedulable && !slices.ContainsFunc(c.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeUnschedulable }) {
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	if _, ok := c.Labels[corev1.LabelHostname]; !ok {
		c.Labels[corev1.LabelHostname] = c.Name
	}
	if len(c.Status.Allocatable) == 0 {
		c.Status.Allocatable = c.Status.Capacity.DeepCopy()
	}
	_, managed := c.Labels[labelNodePool]
	if managed && c.Labels[labelInitialized] != "true" {
		var keep []corev1.Taint
		for _, t := range c.Spec.Taints {
			if isEphemeralTaint(t) || (pool != nil && slices.ContainsFunc(pool.Spec.Template.Spec.StartupTaints, func(s corev1.Taint) bool { return s.MatchTaint(&t) })) {
				continue
			}
			keep = append(keep, t)
		}
		c.Spec.Taints = keep
	}
	return c
}

// isEphemeralTaint reports the taints a node loses by itself as it becomes
// ready (Karpenter's list of known ephemeral taints).
func isEphemeralTaint(t corev1.Taint) bool {
	switch {
	case t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule:
		return true
	case t.Key == corev1.TaintNodeUnreachable && t.Effect == corev1.TaintEffectNoSchedule:
		return true
	case t.Key == "node.cloudprovider.kubernetes.io/uninitialized" && t.Value == "true" && t.Effect == corev1.TaintEffectNoSchedule:
		return true
	case t.Key == "karpenter.sh/unregistered" && t.Effect == corev1.TaintEffectNoExecute:
		return true
	}
	return strings.HasPrefix(t.Key, "readiness.k8s.io/")
}

// daemonPods returns the pods the DaemonSets run on node and that are not
// there yet (no bound pod of node is owned by that DaemonSet): the
// DaemonSet controller's rule, required node affinity and nodeSelector
// match the node, and the pod tolerates its NoSchedule and NoExecute taints
// (the controller makes its pods tolerate a cordoned node's
// node.kubernetes.io/unschedulable).
func daemonPods(dss []*appsv1.DaemonSet, node *corev1.Node, bound []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ds := range dss {
		if slices.ContainsFunc(bound, func(p *corev1.Pod) bool { return ownedBy(p, ds) }) {
			continue
		}
		spec := *ds.Spec.Template.Spec.DeepCopy()
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
		if ok, _ := nodeaffinity.GetRequiredNodeAffinity(&corev1.Pod{Spec: spec}).Match(node); !ok {
			continue
		}
		if !toleratesAll(spec.Tolerations, node.Spec.Taints) {
			continue
		}
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-%s", ds.Name, node.Name), Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels,
				UID:             typesUID("ds", ds.Namespace, ds.Name, node.Name),
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: ptrTrue()}},
			},
			Spec:   spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		p.Spec.NodeName = node.Name
		out = append(out, p)
	}
	return out
}

func ownedBy(p *corev1.Pod, ds *appsv1.DaemonSet) bool {
	if p.Namespace != ds.Namespace {
		return false
	}
	return slices.ContainsFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" && o.Name == ds.Name })
}

func toleratesAll(tols []corev1.Toleration, taints []corev1.Taint) bool {
	for _, t := range taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !slices.ContainsFunc(tols, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(klog.Background(), &t, false) }) {
			return false
		}
	}
	return true
}

func ptrTrue() *bool { b := true; return &b }

// pools indexes the scenario's NodePools by name.
func pools(s *scenario.Scenario) map[string]*nodepool.NodePool {
	out := map[string]*nodepool.NodePool{}
	for i := range s.Input.NodePools {
		out[s.Input.NodePools[i].Name] = &s.Input.NodePools[i]
	}
	return out
}
