package disruption

import (
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// Launch returns the Node and the NodeClaim a planned NodeClaim becomes
// once it runs and is initialized at now: the Node carries the chosen
// instance type's labels, the plan's labels, its zone, capacity type and
// instance type, its name as hostname, the NodePool and
// karpenter.sh/initialized; its capacity and allocatable are the type's,
// its taints the plan's (startup taints are gone), and it is Ready. The
// NodeClaim carries the pool's template fields and hash annotations, so a
// launched node is never drifted. pool may be nil (no template fields).
func Launch(nc scheduler.NodeClaim, pool *nodepool.NodePool, catalog instancetypes.Catalog, now time.Time) (*corev1.Node, NodeClaim) {
	created := metav1.NewTime(now)
	n := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, CreationTimestamp: created, Labels: map[string]string{}},
	}
	if it, ok := catalog.Get(nc.InstanceType); ok {
		maps.Copy(n.Labels, it.Labels)
		n.Status.Capacity = it.Capacity.DeepCopy()
		n.Status.Allocatable = it.Allocatable().DeepCopy()
	}
	maps.Copy(n.Labels, nc.Labels)
	n.Labels[requirements.LabelHostname] = nc.Name
	n.Labels[requirements.LabelNodePool] = nc.NodePool
	n.Labels[requirements.LabelTopologyZone] = nc.Zone
	n.Labels[requirements.LabelCapacityType] = nc.CapacityType
	n.Labels[requirements.LabelInstanceType] = nc.InstanceType
	n.Labels[requirements.LabelNodeInitialized] = "true"
	n.Labels[requirements.LabelNodeRegistered] = "true"
	if nc.ZoneID != "" {
		n.Labels[instancetypes.LabelZoneID] = nc.ZoneID
	}
	if nc.ReservationID != "" {
		n.Labels[instancetypes.LabelReservationID] = nc.ReservationID
	}
	for _, t := range nc.Taints {
		n.Spec.Taints = append(n.Spec.Taints, *t.DeepCopy())
	}
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: created}}
	claim := NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: nc.Name, CreationTimestamp: created, Labels: maps.Clone(n.Labels)},
	}
	claim.Status.NodeName = nc.Name
	claim.Status.Capacity, claim.Status.Allocatable = n.Status.Capacity, n.Status.Allocatable
	claim.Status.Conditions = []metav1.Condition{{Type: ConditionInitialized, Status: metav1.ConditionTrue, LastTransitionTime: created, Reason: "Initialized"}}
	if pool != nil {
		ts := pool.Spec.Template.Spec
		claim.Spec.Taints, claim.Spec.StartupTaints = ts.Taints, ts.StartupTaints
		claim.Spec.ExpireAfter, claim.Spec.TerminationGracePeriod, claim.Spec.NodeClassRef = ts.ExpireAfter, ts.TerminationGracePeriod, ts.NodeClassRef
		for _, k := range []string{AnnotationNodePoolHash, AnnotationNodePoolHashVersion} {
			if v, ok := pool.Annotations[k]; ok {
				if claim.Annotations == nil {
					claim.Annotations = map[string]string{}
				}
				claim.Annotations[k] = v
			}
		}
	}
	claim.Spec.Requirements = claimRequirementsSpec(nc.Requirements)
	return n, claim
}

func claimRequirementsSpec(exprs []requirements.Expression) []nodepool.NodeSelectorRequirementWithMinValues {
	out := make([]nodepool.NodeSelectorRequirementWithMinValues, 0, len(exprs))
	for _, e := range exprs {
		r := nodepool.NodeSelectorRequirementWithMinValues{Key: e.Key, Operator: corev1.NodeSelectorOperator(e.Operator), Values: e.Values}
		if e.MinValues > 0 {
			mv := e.MinValues
			r.MinValues = &mv
		}
		out = append(out, r)
	}
	return out
}
