package disruption_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// This file covers the D-2xx behaviours of the "Delete", "Multi-node",
// "Topology, parallelism, capacity types, policies", "Single-node
// ordering", "Balanced" and "Conditions" groups of the spec's section E
// (docs/DISRUPTION.md) through Plan. The Balanced scoring function itself
// is tested in behaviours_internal_more_test.go.

// dmCase is a behaviour with a further check of the whole result (moves,
// zones, labels, savings, scores).
type dmCase struct {
	behaviour
	check func(t *testing.T, res disruption.Result)
	// anyCommands: the check judges the commands (wantCommands unused).
	anyCommands bool
}

// dmRun runs cases like runBehaviours, with their extra checks.
func dmRun(t *testing.T, cases []dmCase) {
	t.Helper()
	for _, tc := range cases {
		runBehaviour(t, tc.behaviour, extraChecks{anyCommands: tc.anyCommands, check: tc.check})
	}
}

// dmReservedCatalog has m.small (2 cpu) and m.xlarge (16 cpu) in zone-a,
// on-demand 0.1 and 0.8, spot at 40%; m.xlarge also has a capacity
// reservation r-xlarge at a millionth of its on-demand price, and with
// smallReservation m.small has one too (r-small), cheaper still.
func dmReservedCatalog(t testing.TB, smallReservation bool) instancetypes.Catalog {
	t.Helper()
	small := testutil.InstanceType("m.small").CPU("2").Memory("4Gi").Pods("110").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
		Offering("zone-a", "on-demand", 0.1).Offering("zone-a", "spot", 0.04)
	if smallReservation {
		small = small.OfferingOf(instancetypes.Offering{Zone: "zone-a", CapacityType: "reserved", Price: 0.1 / 1e6,
			ReservationID: "r-small", ReservationCapacity: 10})
	}
	xlarge := testutil.InstanceType("m.xlarge").CPU("16").Memory("32Gi").Pods("110").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
		Offering("zone-a", "on-demand", 0.8).Offering("zone-a", "spot", 0.32).
		OfferingOf(instancetypes.Offering{Zone: "zone-a", CapacityType: "reserved", Price: 0.8 / 1e6,
			ReservationID: "r-xlarge", ReservationCapacity: 10})
	c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{small.Obj(), xlarge.Obj()})
	require.NoError(t, err)
	return c
}

// dmAnti labels a pod app=x with a required anti-affinity to app=x pods
// on the same host: no two such pods share a node.
func dmAnti(p *corev1.Pod) *corev1.Pod {
	p.Labels["app"] = "x"
	p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}}}}
	return p
}

// dmState returns a node's state in a result.
func dmState(t *testing.T, res disruption.Result, name string) disruption.NodeState {
	t.Helper()
	for _, n := range res.Nodes {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("node %s not in the result", name)
	return disruption.NodeState{}
}

// dmMove returns where a command moves a pod ("" when it does not).
func dmMove(c disruption.Command, pod string) (from, to string) {
	for _, m := range c.Moves {
		if m.Pod == pod {
			return m.From, m.To
		}
	}
	return "", ""
}

// dmEvent sets a NodeClaim's lastPodEventTime to now minus ago.
func dmEvent(nc *disruption.NodeClaim, ago time.Duration) {
	nc.Status.LastPodEventTime = metav1.NewTime(testNow().Add(-ago))
}

// dmTwoAndOne is Karpenter's Delete fixture: two nodes of the cheapest
// type, n0 with pods a and b, n1 with pod c; all three pods fit on either
// node (and merging both into one m.small is not cheaper than deleting
// one).
func dmTwoAndOne(b *clusterBuilder) (n0, n1 *corev1.Node, a, bb, c *corev1.Pod) {
	n0 = b.node("n0", "default", "m.small", "zone-a", "on-demand")
	n1 = b.node("n1", "default", "m.small", "zone-a", "on-demand")
	a, bb, c = b.pod("a", "n0", "500m"), b.pod("b", "n0", "500m"), b.pod("c", "n1", "500m")
	return
}

// TestDMDelete: D-200, D-201, D-206, D-207, D-210 (CON_T "Delete").
func TestDMDelete(t *testing.T) {
	tgp := &metav1.Duration{Duration: 300 * time.Second}
	dmRun(t, []dmCase{
		{behaviour: behaviour{id: "D-200", name: "control: without do-not-disrupt the node with fewer pods goes", pools: one(),
			build:        func(b *clusterBuilder) { dmTwoAndOne(b) },
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}}},
		{behaviour: behaviour{id: "D-200", name: "do-not-disrupt on a node: the other node is deleted", pools: one(),
			build: func(b *clusterBuilder) {
				_, n1, _, _, _ := dmTwoAndOne(b)
				annotate(n1, disruption.AnnotationDoNotDisrupt, "true")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n0] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n1": disruption.KeepDoNotDisrupt}},
			check: func(t *testing.T, res disruption.Result) {
				for _, p := range []string{"default/a", "default/b"} {
					if _, to := dmMove(res.Commands[0], p); to != "n1" {
						t.Errorf("pod %s moves to %q, want n1", p, to)
					}
				}
			}},
		{behaviour: behaviour{id: "D-200", name: "do-not-disrupt on a NodeClaim: the other node is deleted", pools: one(),
			build: func(b *clusterBuilder) {
				_, n1, _, _, _ := dmTwoAndOne(b)
				annotate(b.claimFor(n1), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n0] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n1": disruption.KeepDoNotDisrupt}}},
		{behaviour: behaviour{id: "D-200", name: "do-not-disrupt on a pod: the other node is deleted", pools: one(),
			build: func(b *clusterBuilder) {
				_, _, _, _, c := dmTwoAndOne(b)
				annotate(c, disruption.AnnotationDoNotDisrupt, "true")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n0] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}}},
		{behaviour: behaviour{id: "D-201", name: "do-not-disrupt pods with a terminationGracePeriod: no consolidation", pools: one(),
			build: func(b *clusterBuilder) {
				n0, n1, a, bb, c := dmTwoAndOne(b)
				for _, p := range []*corev1.Pod{a, bb, c} {
					annotate(p, disruption.AnnotationDoNotDisrupt, "true")
				}
				b.claimFor(n0).Spec.TerminationGracePeriod = tgp
				b.claimFor(n1).Spec.TerminationGracePeriod = tgp
			},
			wantKept: map[string]disruption.KeepReason{"n0": disruption.KeepPodDoNotDisrupt, "n1": disruption.KeepPodDoNotDisrupt}}},
		{behaviour: behaviour{id: "D-201", name: "a terminationGracePeriod from the NodePool does not lift do-not-disrupt either",
			pools: one(func(np *nodepool.NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = tgp }),
			build: func(b *clusterBuilder) {
				_, _, a, bb, c := dmTwoAndOne(b)
				for _, p := range []*corev1.Pod{a, bb, c} {
					annotate(p, disruption.AnnotationDoNotDisrupt, "true")
				}
			},
			wantKept: map[string]disruption.KeepReason{"n0": disruption.KeepPodDoNotDisrupt, "n1": disruption.KeepPodDoNotDisrupt}}},
		{behaviour: behaviour{id: "D-201", name: "pods under a blocking PodDisruptionBudget with a terminationGracePeriod: no consolidation", pools: one(),
			build: func(b *clusterBuilder) {
				n0, n1, a, bb, c := dmTwoAndOne(b)
				for _, p := range []*corev1.Pod{a, bb, c} {
					p.Labels["app"] = "web"
				}
				b.pdb("web", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
				b.claimFor(n0).Spec.TerminationGracePeriod = tgp
				b.claimFor(n1).Spec.TerminationGracePeriod = tgp
			},
			wantKept: map[string]disruption.KeepReason{"n0": disruption.KeepPDB, "n1": disruption.KeepPDB}}},
		{behaviour: behaviour{id: "D-206", name: "replace while consolidateAfter has not expired on a would-be destination",
			pools: one(consolidateAfter("1m")),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				dmEvent(b.claimFor(n), 2*time.Minute) // the source is eligible
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}}},
		{behaviour: behaviour{id: "D-206", name: "a destination inside its consolidateAfter does not block the replace path",
			pools: one(consolidateAfter("1m")),
			build: func(b *clusterBuilder) {
				d := b.node("d1", "default", "m.large", "zone-a", "on-demand")
				dmEvent(b.claimFor(d), 30*time.Second)
				b.pod("x", "d1", "6")
				n := b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				dmEvent(b.claimFor(n), 2*time.Minute)
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"},
			wantKept:     map[string]disruption.KeepReason{"d1": disruption.KeepConsolidateAfter}}},
		{behaviour: behaviour{id: "D-206", name: "control: once the destination's consolidateAfter passed the pod moves there",
			pools: one(consolidateAfter("1m")),
			build: func(b *clusterBuilder) {
				d := b.node("d1", "default", "m.large", "zone-a", "on-demand")
				dmEvent(b.claimFor(d), 2*time.Minute)
				b.pod("x", "d1", "6")
				n := b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				dmEvent(b.claimFor(n), 2*time.Minute)
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}}},
		{behaviour: behaviour{id: "D-207", name: "100 destinations, one initialized: the pod moves to the initialized one", pools: one(),
			build: func(b *clusterBuilder) {
				for i := range 100 {
					name := fmt.Sprintf("a%03d", i)
					n := b.node(name, "default", "m.medium", "zone-a", "on-demand")
					if i != 57 {
						delete(n.Labels, "karpenter.sh/initialized")
					}
					b.pod("full-"+name, name, "3")
				}
				b.node("c1", "default", "m.small", "zone-a", "on-demand")
				b.pod("p", "c1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [c1] -> []"},
			wantKept:     map[string]disruption.KeepReason{"a000": disruption.KeepNotInitialized, "a099": disruption.KeepNotInitialized}},
			check: func(t *testing.T, res disruption.Result) {
				if _, to := dmMove(res.Commands[0], "default/p"); to != "a057" {
					t.Errorf("pod p moves to %q, want the initialized node a057", to)
				}
				for _, n := range res.Nodes {
					if n.Reason == disruption.KeepUninitializedDst {
						t.Errorf("node %s: %s", n.Name, n.Message)
					}
				}
			}},
		{behaviour: behaviour{id: "D-210", name: "a NodePool that resolves no instance type does not block a delete",
			pools: append(one(), pool("bad", od(), budgets(all()), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, nodepool.NodeSelectorRequirementWithMinValues{
					Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"does-not-exist"}})
			})),
			build:        func(b *clusterBuilder) { dmTwoAndOne(b) },
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}}},
		{behaviour: behaviour{id: "D-210", name: "a NodePool with a nodeClassRef to nothing and no matching type does not block a delete",
			pools: append([]nodepool.NodePool{pool("bad", od(), budgets(all()), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.NodeClassRef = &nodepool.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "non-existent"}
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, nodepool.NodeSelectorRequirementWithMinValues{
					Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}})
			})}, one()...),
			build:        func(b *clusterBuilder) { dmTwoAndOne(b) },
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}}},
	})
}

// TestDMMultiNode: D-215 (mixed capacity types, spot with the gate),
// D-217, D-218, D-219 (CON_T "Multi-NodeClaim").
func TestDMMultiNode(t *testing.T) {
	three := func(cts ...string) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			for i, ct := range cts {
				b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", ct)
				b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "1")
			}
		}
	}
	dmRun(t, []dmCase{
		{behaviour: behaviour{id: "D-215", name: "three nodes mixing spot and on-demand become one cheaper node (pinned to spot)",
			pools: []nodepool.NodePool{pool("default", []string{"spot", "on-demand"}, budgets(all()))},
			build: three("on-demand", "on-demand", "spot"),
			// Mixed batches take the on-demand path (B.3.5), whose price
			// filter assumes spot and pins the replacement to it (B.3.7).
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1 n2] -> [m.medium/spot]"}}},
		{behaviour: behaviour{id: "D-215", name: "three spot nodes become one cheaper spot node with the gate (no 15-type floor for multi-node)",
			pools:        []nodepool.NodePool{pool("default", spot(), budgets(all()))},
			opts:         []disruption.Option{disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes)},
			build:        three("spot", "spot", "spot"),
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1 n2] -> [m.medium/spot]"}}},
		{behaviour: behaviour{id: "D-217", name: "two large nodes become one smaller node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.node("n2", "default", "m.xlarge", "zone-b", "on-demand")
				b.pod("a", "n1", "1500m")
				b.pod("b", "n2", "1500m")
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n1 n2] -> [m.medium/on-demand]"}},
			check: func(t *testing.T, res disruption.Result) {
				if got := res.Commands[0].SavingsPerHour; math.Abs(got-1.4) > 1e-9 {
					t.Errorf("savings %v, want 1.6 - 0.2", got)
				}
			}},
		{behaviour: behaviour{id: "D-218", name: "empty nodes all go in one Emptiness command, before multi-node, dearest first", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("e1", "default", "m.small", "zone-a", "on-demand")
				b.node("e2", "default", "m.xlarge", "zone-a", "on-demand")
				b.node("e3", "default", "m.large", "zone-b", "on-demand")
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("b", "n2", "500m")
			},
			wantCommands: []string{"Emptiness delete [e2 e3 e1] -> []", "MultiNodeConsolidation replace [n1 n2] -> [m.small/on-demand]"}}},
		{behaviour: behaviour{id: "D-219", name: "multi-node finds no command: single-node runs in the same round and deletes the third node",
			pools: one(), opts: []disruption.Option{disruption.WithMaxCommands(1)},
			build: func(b *clusterBuilder) {
				for i, pods := range []int{2, 2, 1} {
					name := fmt.Sprintf("n%d", i+1)
					b.node(name, "default", "m.small", "zone-a", "on-demand")
					for j := range pods {
						b.pod(fmt.Sprintf("p%d%d", i+1, j), name, "500m")
					}
				}
			},
			// Multi-node's first probe is the two-node prefix [n3 n1]
			// (B.8.6): it needs a new m.small, which the same-type filter
			// rejects, so the search stops there; single-node then deletes
			// n3, whose pod fits on n1 or n2.
			wantCommands: []string{"SingleNodeConsolidation delete [n3] -> []"}}},
	})
}

// TestDMTopologyAndCapacity: D-221, D-223, D-224, D-225 (CON_T "Topology,
// parallelism, capacity types").
func TestDMTopologyAndCapacity(t *testing.T) {
	spread := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}}}
	zones := []string{"zone-a", "zone-b", "zone-c"}
	reserved := []nodepool.NodePool{pool("default", []string{"on-demand", "spot", "reserved"}, budgets(all()))}
	dmRun(t, []dmCase{
		{behaviour: behaviour{id: "D-221", name: "zonal spread over 3 zones: each replacement stays in its node's zone", pools: one(),
			build: func(b *clusterBuilder) {
				b.catalog = zonesCatalog(t, zones...)
				for i, z := range zones {
					name := fmt.Sprintf("n%d", i)
					b.node(name, "default", "m.xlarge", z, "on-demand")
					p := b.pod(fmt.Sprintf("p%d", i), name, "1")
					p.Labels["app"] = "spread"
					p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread}
				}
			},
			wantCommands: []string{
				"SingleNodeConsolidation replace [n0] -> [m.small/on-demand]",
				"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]",
				"SingleNodeConsolidation replace [n2] -> [m.small/on-demand]",
			}},
			check: func(t *testing.T, res disruption.Result) {
				for _, c := range res.Commands {
					if got, want := c.Replacements[0].Zone, c.Nodes[0].Zone; got != want {
						t.Errorf("%s replaced in %s, want %s", c.Nodes[0].Name, got, want)
					}
				}
			}},
		{behaviour: behaviour{id: "D-223", name: "a pending pod rides on the replacement (no extra node)", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("pending", "", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
			check: func(t *testing.T, res disruption.Result) {
				c := res.Commands[0]
				from, to := dmMove(c, "default/pending")
				if from != "" || to != c.Replacements[0].Name {
					t.Errorf("pending pod moves from %q to %q, want from nowhere to %s", from, to, c.Replacements[0].Name)
				}
			}},
		{behaviour: behaviour{id: "D-224", name: "control: without the deleting node's pods the node is replaced", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
				b.pod("b", "n1", "1500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.medium/on-demand]"}}},
		{behaviour: behaviour{id: "D-224", name: "a node launched for the pods of a deleting node is not consolidated away", pools: one(),
			build: func(b *clusterBuilder) {
				d := b.node("d1", "default", "m.large", "zone-a", "on-demand")
				ts := metav1.NewTime(testNow().Add(-time.Minute))
				d.DeletionTimestamp = &ts
				for i := range 3 {
					b.pod(fmt.Sprintf("old%d", i), "d1", "1500m")
				}
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
				b.pod("b", "n1", "1500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper, "d1": disruption.KeepDeleting}}},
		{behaviour: behaviour{id: "D-225", name: "reserved to a cheaper reservation of another type", pools: reserved,
			build: func(b *clusterBuilder) {
				b.catalog = dmReservedCatalog(t, true)
				n := b.node("n1", "default", "m.xlarge", "zone-a", "reserved")
				n.Labels[instancetypes.LabelReservationID] = "r-xlarge"
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/reserved]"}},
			check: dmReservedCheck("m.small", "r-small")},
		{behaviour: behaviour{id: "D-225", name: "on-demand to a reservation of the same type", pools: reserved,
			build: func(b *clusterBuilder) {
				b.catalog = dmReservedCatalog(t, false)
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.xlarge/reserved]"}},
			check: dmReservedCheck("m.xlarge", "r-xlarge")},
		{behaviour: behaviour{id: "D-225", name: "spot to a reservation of the same type", pools: reserved,
			opts: []disruption.Option{disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes)},
			build: func(b *clusterBuilder) {
				b.catalog = dmReservedCatalog(t, false)
				b.node("n1", "default", "m.xlarge", "zone-a", "spot")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.xlarge/reserved]"}},
			check: dmReservedCheck("m.xlarge", "r-xlarge")},
	})
}

// dmReservedCheck: the first command's replacement is the type, reserved
// on the reservation, and its labels say so.
func dmReservedCheck(typ, reservation string) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		t.Helper()
		r := res.Commands[0].Replacements[0]
		if r.InstanceType != typ || r.CapacityType != "reserved" || r.ReservationID != reservation {
			t.Errorf("replacement %s/%s/%s, want %s/reserved/%s", r.InstanceType, r.CapacityType, r.ReservationID, typ, reservation)
		}
		if r.Labels["karpenter.sh/capacity-type"] != "reserved" || r.Labels[instancetypes.LabelReservationID] != reservation {
			t.Errorf("replacement labels %v, want capacity type reserved and reservation %s", r.Labels, reservation)
		}
	}
}

// TestDMSingleNodeOrder: D-230, D-232 (SNC_T). Every pod is app=x with a
// required anti-affinity to app=x on the same host, so no two nodes merge
// (multi-node needs two NodeClaims) and each node is replaced on its own:
// the order of the commands is single-node's order.
func TestDMSingleNodeOrder(t *testing.T) {
	seq := func(want ...string) func(t *testing.T, res disruption.Result) {
		return func(t *testing.T, res disruption.Result) {
			var got []string
			for _, c := range res.Commands {
				if c.Method != disruption.MethodSingleNode || len(c.Nodes) != 1 {
					t.Errorf("command %s %s %v: want a single-node command", c.Method, c.Decision, c.Nodes)
					continue
				}
				got = append(got, c.Nodes[0].Name)
			}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("single-node order (-want +got):\n%s", diff)
			}
		}
	}
	dmRun(t, []dmCase{
		{behaviour: behaviour{id: "D-230", name: "candidates by savings ratio, highest first", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("a", "default", "m.large", "zone-a", "on-demand") // 0.4 / 2
				dmAnti(b.pod("a0", "a", "100m"))
				b.node("b", "default", "m.xlarge", "zone-a", "on-demand") // 0.8 / 3
				dmAnti(b.pod("b0", "b", "100m"))
				b.pod("b1", "b", "100m")
				b.node("c", "default", "m.xlarge", "zone-a", "on-demand") // 0.8 / 2
				dmAnti(b.pod("c0", "c", "100m"))
			},
			wantCommands: []string{
				"SingleNodeConsolidation replace [c] -> [m.small/on-demand]",
				"SingleNodeConsolidation replace [b] -> [m.small/on-demand]",
				"SingleNodeConsolidation replace [a] -> [m.small/on-demand]",
			}},
			check: seq("c", "b", "a")},
		{behaviour: behaviour{id: "D-230", name: "the order interleaves NodePools: the second pool's best comes second",
			pools: []nodepool.NodePool{pool("a", od(), budgets(all())), pool("b", od(), budgets(all()))},
			opts:  []disruption.Option{disruption.WithMaxCommands(1)},
			build: func(b *clusterBuilder) {
				n := b.node("a1", "a", "m.xlarge", "zone-a", "on-demand") // 0.8 / 2, its pod fits nowhere else
				n.Labels["disk"] = "ssd"
				b.pod("x", "a1", "500m").Spec.NodeSelector = map[string]string{"disk": "ssd"}
				b.node("a2", "a", "m.xlarge", "zone-a", "on-demand") // 0.8 / 3
				b.pod("y0", "a2", "500m")
				b.pod("y1", "a2", "500m")
				b.node("b1", "b", "m.large", "zone-a", "on-demand") // 0.4 / 2
				b.pod("z", "b1", "500m")
			},
			// Sorted: a1, a2, b1; interleaved: a1, b1, a2. a1 fails, and
			// b1 is tried before a2 (whose pods would fit on b1 too).
			wantCommands: []string{"SingleNodeConsolidation delete [b1] -> []"}}},
		{behaviour: behaviour{id: "D-232", name: "equal prices, disruption costs 2, 5 and 20: ordered 2, 5, 20", pools: one(),
			build: func(b *clusterBuilder) {
				for _, n := range []struct {
					name string
					pods int
				}{{"a", 19}, {"b", 4}, {"c", 1}} {
					b.node(n.name, "default", "m.xlarge", "zone-a", "on-demand")
					dmAnti(b.pod(n.name+"-0", n.name, "100m"))
					for i := 1; i < n.pods; i++ {
						b.pod(fmt.Sprintf("%s-%d", n.name, i), n.name, "100m")
					}
				}
			},
		},
			check: seq("c", "b", "a"), anyCommands: true},
	})
}

// TestDMBalanced: D-248 (BAL integration tests) through Plan.
func TestDMBalanced(t *testing.T) {
	bal := func(set ...func(*nodepool.NodePool)) []nodepool.NodePool {
		return []nodepool.NodePool{pool("default", od(), append([]func(*nodepool.NodePool){budgets(all()), policy(nodepool.ConsolidationBalanced)}, set...)...)}
	}
	// marginal: n1 (m.large, 8 pods of 400m: disruption 9) could become an
	// m.medium, saving 0.2 of the pool's 0.5 (n1 and n2); n2 (m.small,
	// disruption 2) cannot move. Score (0.2/0.5) / (9/11) = 0.489 < 1/2.
	marginal := func(b *clusterBuilder) {
		b.node("n1", "default", "m.large", "zone-a", "on-demand")
		for i := range 8 {
			b.pod(fmt.Sprintf("p%d", i), "n1", "400m")
		}
		n := b.node("n2", "default", "m.small", "zone-a", "on-demand")
		n.Labels["disk"] = "ssd"
		b.pod("q", "n2", "1800m").Spec.NodeSelector = map[string]string{"disk": "ssd"}
	}
	oversized := func(b *clusterBuilder) {
		b.node("big", "default", "m.xlarge", "zone-a", "on-demand")
		b.pod("a", "big", "500m")
	}
	dmRun(t, []dmCase{
		{behaviour: behaviour{id: "D-248", name: "an oversized node is replaced (score 0.7/0.8 over 2/2 = 0.875)", pools: bal(),
			build:        oversized,
			wantCommands: []string{"SingleNodeConsolidation replace [big] -> [m.small/on-demand]"}},
			check: func(t *testing.T, res disruption.Result) {
				if got := res.Commands[0].SavingsPerHour; math.Abs(got-0.7) > 1e-9 {
					t.Errorf("savings %v, want 0.7 (0 < savings < price)", got)
				}
			}},
		{behaviour: behaviour{id: "D-248", name: "a marginal replace is rejected with its score", pools: bal(), build: marginal,
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepBalanced}},
			check: func(t *testing.T, res disruption.Result) {
				d := dmState(t, res, "n1").Details
				if d == nil || d.Score == nil || math.Abs(*d.Score-0.2/0.5/(9.0/11)) > 1e-9 || d.Threshold == nil || *d.Threshold != 0.5 {
					t.Errorf("details %+v, want score 0.489 and threshold 0.5", d)
				}
			}},
		{behaviour: behaviour{id: "D-247", name: "the same move in a pool allowing spot saves 0.4 - 0.08 and is approved",
			pools: []nodepool.NodePool{pool("default", []string{"spot", "on-demand"}, budgets(all()), policy(nodepool.ConsolidationBalanced))},
			build: marginal,
			// (0.32/0.5) / (9/11) = 0.78; the on-demand-only pool above
			// must not price its replacement at spot (it would score this).
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.medium/spot]"}}},
		{behaviour: behaviour{id: "D-248", name: "the same move at k=3 is approved", pools: bal(), build: marginal,
			opts:         []disruption.Option{disruption.WithBalancedK(3)},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.medium/on-demand]"}}},
		{behaviour: behaviour{id: "D-248", name: "the same move in a WhenEmptyOrUnderutilized pool is not scored", pools: one(), build: marginal,
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.medium/on-demand]"}}},
		{behaviour: behaviour{id: "D-248", name: "a well-packed cheapest node is not replaced", pools: bal(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "1800m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper}}},
		{behaviour: behaviour{id: "D-248", name: "multi-node merges underutilized nodes", pools: bal(),
			build: func(b *clusterBuilder) {
				for i := range 3 {
					b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", "on-demand")
					b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "500m")
				}
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1 n2] -> [m.small/on-demand]"}}},
		{behaviour: behaviour{id: "D-248", name: "a budget of 0% blocks an approved move", pools: bal(budgets(nodepool.Budget{Nodes: "0%"})),
			build:    oversized,
			wantKept: map[string]disruption.KeepReason{"big": disruption.KeepBudget}}},
		{behaviour: behaviour{id: "D-248", name: "with a budget of 1 the empty node goes first", pools: bal(budgets(nodepool.Budget{Nodes: "1"})),
			opts: []disruption.Option{disruption.WithMaxCommands(1)},
			build: func(b *clusterBuilder) {
				oversized(b)
				b.node("empty", "default", "m.large", "zone-a", "on-demand")
			},
			wantCommands: []string{"Emptiness delete [empty] -> []"}}},
		{behaviour: behaviour{id: "D-248", name: "delete when the pods fit on existing nodes (savings = the full price)", pools: bal(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("b", "n2", "6")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}},
			check: func(t *testing.T, res disruption.Result) {
				if got := res.Commands[0].SavingsPerHour; math.Abs(got-0.4) > 1e-9 {
					t.Errorf("savings %v, want the node's price 0.4", got)
				}
			}},
		{behaviour: behaviour{id: "D-248", name: "multi-node batch in ratio order: B (0.4/2) before A (0.8/11) before C (0.1/9)", pools: bal(),
			build: func(b *clusterBuilder) {
				for _, n := range []struct {
					name, typ string
					pods      int
				}{{"a", "m.xlarge", 10}, {"b", "m.large", 1}, {"c", "m.small", 8}} {
					b.node(n.name, "default", n.typ, "zone-a", "on-demand")
					for i := range n.pods {
						b.pod(fmt.Sprintf("%s%d", n.name, i), n.name, "100m")
					}
				}
			},
			// 19 pods of 100m and 256Mi: 4.75Gi, more than an m.small.
			wantCommands: []string{"MultiNodeConsolidation replace [b a c] -> [m.medium/on-demand]"}}},
		{behaviour: behaviour{id: "D-248", name: "Balanced and WhenEmptyOrUnderutilized pools both consolidate",
			pools: []nodepool.NodePool{pool("bal", od(), budgets(all()), policy(nodepool.ConsolidationBalanced)), pool("std", od(), budgets(all()))},
			build: func(b *clusterBuilder) {
				b.node("b1", "bal", "m.xlarge", "zone-a", "on-demand")
				b.pod("x", "b1", "500m")
				b.node("s1", "std", "m.xlarge", "zone-a", "on-demand")
				b.pod("y", "s1", "500m")
			},
		},
			anyCommands: true,
			check: func(t *testing.T, res disruption.Result) {
				for _, n := range []string{"b1", "s1"} {
					if s := dmState(t, res, n); !s.Disrupted {
						t.Errorf("node %s kept: %s", n, s.Message)
					}
				}
			}},
	})
}

// TestDMConsolidatable: D-250 (NCD consolidation): consolidateAfter counts
// from the last pod event, else from initialization.
func TestDMConsolidatable(t *testing.T) {
	empty := func(set func(nc *disruption.NodeClaim)) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
			set(b.claimFor(n))
		}
	}
	initializedAgo := func(d time.Duration) func(nc *disruption.NodeClaim) {
		return func(nc *disruption.NodeClaim) {
			nc.Status.Conditions[0].LastTransitionTime = metav1.NewTime(testNow().Add(-d))
		}
	}
	runBehaviours(t, []behaviour{
		{id: "D-250", name: "no pod event: consolidatable once consolidateAfter passed since initialization", pools: one(consolidateAfter("1m")),
			build:        empty(initializedAgo(2 * time.Minute)),
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-250", name: "no pod event: not consolidatable within consolidateAfter of initialization (node a day old)", pools: one(consolidateAfter("1m")),
			build:    empty(initializedAgo(30 * time.Second)),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepConsolidateAfter}},
		{id: "D-250", name: "the last pod event, not initialization, counts", pools: one(consolidateAfter("1m")),
			build:    empty(func(nc *disruption.NodeClaim) { dmEvent(nc, 59*time.Second) }),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepConsolidateAfter}},
		{id: "D-250", name: "consolidatable exactly consolidateAfter after the last pod event", pools: one(consolidateAfter("1m")),
			build:        empty(func(nc *disruption.NodeClaim) { dmEvent(nc, time.Minute) }),
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-250", name: "a recent pod event keeps a non-empty node from single-node consolidation too", pools: one(consolidateAfter("1m")),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				dmEvent(b.claimFor(n), 30*time.Second)
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepConsolidateAfter}},
		{id: "D-250", name: "consolidateAfter Never: never consolidatable", pools: one(consolidateAfter("Never")),
			build:    empty(initializedAgo(time.Hour)),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDisabled}},
		{id: "D-250", name: "never on a static pool",
			pools:    []nodepool.NodePool{pool("default", od(), budgets(all()), func(np *nodepool.NodePool) { r := int64(1); np.Spec.Replicas = &r })},
			build:    empty(initializedAgo(time.Hour)),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepStatic}},
	})
}

// TestDMDrift: D-251 (NCD drift), drift computed from the objects.
func TestDMDrift(t *testing.T) {
	never := consolidateAfter("Never") // only Drift may act
	hashed := func(hash, version string) func(*nodepool.NodePool) {
		return func(np *nodepool.NodePool) {
			annotate(np, disruption.AnnotationNodePoolHash, hash)
			annotate(np, disruption.AnnotationNodePoolHashVersion, version)
		}
	}
	// withClaim: n1 (m.small, a pod of 1500m) with a NodeClaim set by f.
	withClaim := func(f func(nc *disruption.NodeClaim)) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
			f(b.claimFor(n))
			b.pod("a", "n1", "1500m")
		}
	}
	claimHash := func(hash, version string) func(nc *disruption.NodeClaim) {
		return func(nc *disruption.NodeClaim) {
			annotate(nc, disruption.AnnotationNodePoolHash, hash)
			annotate(nc, disruption.AnnotationNodePoolHashVersion, version)
		}
	}
	replaced := []string{"Drift replace [n1] -> [m.small/on-demand]"}
	notDrifted := map[string]disruption.KeepReason{"n1": disruption.KeepDisabled}
	taint := corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}
	ref := func(name string) *nodepool.NodeClassReference {
		return &nodepool.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: name}
	}
	runBehaviours(t, []behaviour{
		{id: "D-251", name: "hash drift: the NodeClaim's hash differs at the same hash version", pools: one(never, hashed("h2", "v3")),
			build: withClaim(claimHash("h1", "v3")), wantCommands: replaced},
		{id: "D-251", name: "no hash drift across hash versions", pools: one(never, hashed("h2", "v3")),
			build: withClaim(claimHash("h1", "v2")), wantKept: notDrifted},
		{id: "D-251", name: "equal hashes: no drift", pools: one(never, hashed("h1", "v3")),
			build: withClaim(claimHash("h1", "v3")), wantKept: notDrifted},
		{id: "D-251", name: "no hash on the NodeClaim and nothing changed: no drift", pools: one(never, hashed("h2", "v3")),
			build: withClaim(func(*disruption.NodeClaim) {}), wantKept: notDrifted},
		{id: "D-251", name: "a template label the node lacks drifts", pools: one(never, func(np *nodepool.NodePool) {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
		}),
			build: withClaim(func(*disruption.NodeClaim) {}), wantCommands: replaced},
		{id: "D-251", name: "a changed taint drifts", pools: one(never),
			build: withClaim(func(nc *disruption.NodeClaim) { nc.Spec.Taints = []corev1.Taint{taint} }), wantCommands: replaced},
		{id: "D-251", name: "a changed startup taint drifts", pools: one(never),
			build: withClaim(func(nc *disruption.NodeClaim) { nc.Spec.StartupTaints = []corev1.Taint{taint} }), wantCommands: replaced},
		{id: "D-251", name: "a changed nodeClassRef drifts", pools: one(never, func(np *nodepool.NodePool) { np.Spec.Template.Spec.NodeClassRef = ref("new") }),
			build: withClaim(func(nc *disruption.NodeClaim) { nc.Spec.NodeClassRef = ref("old") }), wantCommands: replaced},
		{id: "D-251", name: "a changed expireAfter drifts", pools: one(never, func(np *nodepool.NodePool) { e := "360h"; np.Spec.Template.Spec.ExpireAfter = &e }),
			build: withClaim(func(nc *disruption.NodeClaim) { e := "720h"; nc.Spec.ExpireAfter = &e }), wantCommands: replaced},
		{id: "D-251", name: "a changed terminationGracePeriod drifts", pools: one(never, func(np *nodepool.NodePool) {
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 2 * time.Hour}
		}),
			build: withClaim(func(nc *disruption.NodeClaim) { nc.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour} }), wantCommands: replaced},
		{id: "D-251", name: "the same fields as the template: no drift", pools: one(never, func(np *nodepool.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{taint}
			np.Spec.Template.Spec.NodeClassRef = ref("same")
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
		}),
			build: withClaim(func(nc *disruption.NodeClaim) {
				nc.Spec.Taints = []corev1.Taint{taint}
				nc.Spec.NodeClassRef = ref("same")
				nc.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
			}), wantKept: notDrifted},
		{id: "D-251", name: "no offering of the node's type in its zone any more: drifted (after an hour)", pools: one(never),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-z", "on-demand")
				b.pod("a", "n1", "1500m")
			},
			wantCommands: replaced},
		{id: "D-251", name: "no offering in its zone but younger than an hour: not drifted yet", pools: one(never),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-z", "on-demand")
				n.CreationTimestamp = metav1.NewTime(testNow().Add(-30 * time.Minute))
				b.pod("a", "n1", "1500m")
			},
			wantKept: notDrifted},
		{id: "D-251", name: "a reserved node tolerates an on-demand offering of its type",
			pools: []nodepool.NodePool{pool("default", []string{"on-demand", "reserved"}, budgets(all()), never)},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "reserved")
				b.pod("a", "n1", "1500m")
			},
			wantKept: notDrifted},
		{id: "D-251", name: "a reserved node drifts when only spot offerings remain",
			pools: []nodepool.NodePool{pool("default", []string{"on-demand", "reserved", "spot"}, budgets(all()), never)},
			build: func(b *clusterBuilder) {
				c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
					testutil.InstanceType("m.small").CPU("2").Memory("4Gi").Pods("110").Label("kubernetes.io/arch", "amd64").
						Label("kubernetes.io/os", "linux").Offering("zone-a", "spot", 0.04).Obj()})
				require.NoError(t, err)
				b.catalog = c
				b.node("n1", "default", "m.small", "zone-a", "reserved")
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/spot]"}},
		{id: "D-251", name: "no drift when the NodePool is missing, whatever the condition says", pools: one(never),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "gone", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				b.pod("a", "n1", "1500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNodePoolNotFound}},
		{id: "D-251", name: "a Drifted=False condition is no drift", pools: one(never),
			build: withClaim(func(nc *disruption.NodeClaim) {
				nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: disruption.ConditionDrifted, Status: metav1.ConditionFalse,
					LastTransitionTime: metav1.NewTime(testNow().Add(-time.Hour))})
			}),
			wantKept: notDrifted},
	})
}
