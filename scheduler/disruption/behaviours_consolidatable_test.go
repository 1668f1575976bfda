package disruption_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// Cases of behaviours_delete_multi_test.go where nodeplan disagreed with
// the spec until the commit that added this file (docs/DISRUPTION.md IDs).

// TestDMConsolidatableNeedsInitializedClaim: D-250, a NodeClaim whose Initialized
// condition is not True never gets Consolidatable (NCD consolidation step
// 2), so Emptiness, multi- and single-node consolidation leave its node,
// even when the Node carries karpenter.sh/initialized=true.
func TestDMConsolidatableNeedsInitializedClaim(t *testing.T) {
	claimInitialized := func(status metav1.ConditionStatus) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
			nc := b.claimFor(n)
			nc.Status.Conditions[0].Status = status
			nc.Status.Conditions[0].LastTransitionTime = metav1.NewTime(testNow().Add(-time.Hour))
		}
	}
	runBehaviours(t, []behaviour{
		{id: "D-250", name: "NodeClaim Initialized=False: not consolidatable", pools: one(consolidateAfter("1m")),
			build:    claimInitialized(metav1.ConditionFalse),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNotInitialized}},
		{id: "D-250", name: "NodeClaim Initialized=Unknown: not consolidatable", pools: one(consolidateAfter("1m")),
			build:    claimInitialized(metav1.ConditionUnknown),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNotInitialized}},
	})
}

// TestDMDriftInstanceTypeLabel: D-251, stale instance type: a NodeClaim without the
// instance-type label is InstanceTypeNotFound-drifted (after an hour).
func TestDMDriftInstanceTypeLabel(t *testing.T) {
	never := consolidateAfter("Never")
	runBehaviours(t, []behaviour{
		{id: "D-251", name: "a node without the instance-type label is drifted", pools: one(never),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
				delete(n.Labels, "node.kubernetes.io/instance-type")
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-251", name: "no offering in its zone at exactly one hour of age: not checked yet (strictly after an hour)", pools: one(never),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-z", "on-demand")
				n.CreationTimestamp = metav1.NewTime(testNow().Add(-time.Hour))
				b.pod("a", "n1", "1500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDisabled}},
		{id: "D-251", name: "a template annotation the NodeClaim lacks drifts (no hashes)", pools: one(never, func(np *nodepool.NodePool) {
			np.Spec.Template.ObjectMeta.Annotations = map[string]string{"team": "a"}
		}),
			build: func(b *clusterBuilder) {
				b.claimFor(b.node("n1", "default", "m.small", "zone-a", "on-demand"))
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
	})
}
