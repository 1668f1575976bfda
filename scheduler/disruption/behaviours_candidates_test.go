package disruption_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// candCase is a behaviour with a further check of the whole Result (the
// numbers behind a kept reason, the size of a command). As in
// runBehaviours, a nil wantCommands asserts that there is no command,
// unless anyCommands leaves the commands to check.
type candCase struct {
	behaviour
	anyCommands bool
	check       func(t *testing.T, res disruption.Result)
}

// candRun runs cases as runBehaviours does, with their extra checks.
func candRun(t *testing.T, cases []candCase) {
	t.Helper()
	for _, tc := range cases {
		runBehaviour(t, tc.behaviour, extraChecks{anyCommands: tc.anyCommands, check: tc.check})
	}
}

// candTGP sets the terminationGracePeriod of a node's NodeClaim, giving
// the node one first if it has none (the claim is looked up by name: the
// slice may have grown since claimFor returned a pointer into it).
func candTGP(b *clusterBuilder, n *corev1.Node, d time.Duration) {
	for i := range b.c.NodeClaims {
		if b.c.NodeClaims[i].Name == n.Name {
			b.c.NodeClaims[i].Spec.TerminationGracePeriod = &metav1.Duration{Duration: d}
			return
		}
	}
	b.claimFor(n).Spec.TerminationGracePeriod = &metav1.Duration{Duration: d}
}

// candExpired adds a node of pool "default" created 25 hours before now,
// with its NodeClaim (candExpiring's pool expires nodes after 24 hours).
func candExpired(b *clusterBuilder, name, typ string) *corev1.Node {
	n := b.node(name, "default", typ, "zone-a", "on-demand")
	n.CreationTimestamp = metav1.NewTime(testNow().Add(-25 * time.Hour))
	b.claimFor(n)
	return n
}

func candExpiring() []nodepool.NodePool {
	return one(consolidateAfter("Never"), func(np *nodepool.NodePool) { e := "24h"; np.Spec.Template.Spec.ExpireAfter = &e })
}

// candEmpty adds n empty nodes of a pool named prefix00, prefix01, ...
func candEmpty(b *clusterBuilder, prefix, pool string, n int) []*corev1.Node {
	var out []*corev1.Node
	for i := range n {
		out = append(out, b.node(fmt.Sprintf("%s%02d", prefix, i), pool, "m.large", "zone-a", "on-demand"))
	}
	return out
}

func candNotReady(n *corev1.Node) {
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
}

// candFirstCommand checks the plan's first command: its method and how
// many nodes it disrupts.
func candFirstCommand(method disruption.Method, nodes int) func(*testing.T, disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		t.Helper()
		require.NotEmpty(t, res.Commands, "no command")
		c := res.Commands[0]
		if c.Method != method || len(c.Nodes) != nodes {
			t.Errorf("first command: %s of %d nodes, want %s of %d", c.Method, len(c.Nodes), method, nodes)
		}
	}
}

// candBudget checks that a node stays for its pool's budget for a reason,
// with the budget's numbers: allowed (before subtracting) and disrupting.
func candBudget(node string, reason disruption.Reason, allowed, disrupting int) func(*testing.T, disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		t.Helper()
		s, ok := candState(res, node)
		require.True(t, ok, "no node %s", node)
		require.Equal(t, disruption.KeepBudget, s.Reason, "node %s: %s", node, s.Message)
		require.NotNil(t, s.Details)
		d := *s.Details
		if d.DisruptionReason != reason || d.Allowed == nil || *d.Allowed != allowed || d.Disrupting == nil || *d.Disrupting != disrupting {
			t.Errorf("node %s: budget for %s allows %v, disrupting %v; want %s allowing %d, disrupting %d (%s)",
				node, d.DisruptionReason, candDeref(d.Allowed), candDeref(d.Disrupting), reason, allowed, disrupting, s.Message)
		}
		if d.NodePool != s.NodePool {
			t.Errorf("node %s: budget of pool %q, want its pool %q", node, d.NodePool, s.NodePool)
		}
	}
}

func candState(res disruption.Result, name string) (disruption.NodeState, bool) {
	for _, s := range res.Nodes {
		if s.Name == name {
			return s, true
		}
	}
	return disruption.NodeState{}, false
}

func candDeref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func candAll(checks ...func(*testing.T, disruption.Result)) func(*testing.T, disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		t.Helper()
		for _, c := range checks {
			c(t, res)
		}
	}
}

// TestCandidateClasses: D-105 to D-109, do-not-disrupt pods and
// PodDisruptionBudgets against the eventual class (drift, expiration) and
// the graceful one (emptiness, consolidation), with and without a
// terminationGracePeriod on the NodeClaim.
func TestCandidateClasses(t *testing.T) {
	never := one(consolidateAfter("Never"))
	blockedPod := func(b *clusterBuilder, node, cpu string, maxUnavailable int32) {
		b.pod("a", node, cpu).Labels["app"] = "web"
		b.pdb("web", "default", map[string]string{"app": "web"}, intstr.FromInt32(maxUnavailable), 0)
	}
	runBehaviours(t, []behaviour{
		{id: "D-105", name: "a drifted node with a fully blocked pod and a TGP is drifted (no replacement for that pod)", pools: never,
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.drifted(n, testNow().Add(-time.Hour))
				candTGP(b, n, time.Hour)
				blockedPod(b, "n1", "1500m", 0)
			},
			wantCommands: []string{"Drift delete [n1] -> []"}},
		{id: "D-105", name: "a drifted node with a PDB allowing 0 disruptions and a TGP is replaced for that pod", pools: never,
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.drifted(n, testNow().Add(-time.Hour))
				candTGP(b, n, time.Hour)
				blockedPod(b, "n1", "1500m", 1) // not fully blocking: the pod is rescheduled
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-105", name: "an expired node with a PDB-blocked pod and a TGP goes", pools: candExpiring(),
			build: func(b *clusterBuilder) {
				candTGP(b, candExpired(b, "n1", "m.small"), time.Hour)
				blockedPod(b, "n1", "1500m", 0)
			},
			wantCommands: []string{"Expiration delete [n1] -> []"}},
		{id: "D-106", name: "a do-not-disrupt pod with a TGP still keeps a node from consolidation", pools: one(),
			build: func(b *clusterBuilder) {
				candTGP(b, b.node("n1", "default", "m.large", "zone-a", "on-demand"), time.Hour)
				annotate(b.pod("a", "n1", "500m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-106", name: "a do-not-disrupt DaemonSet pod with a TGP still keeps an empty node from emptiness", pools: one(),
			build: func(b *clusterBuilder) {
				candTGP(b, b.node("n1", "default", "m.large", "zone-a", "on-demand"), time.Hour)
				annotate(b.daemonPod("ds", "n1"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-107", name: "a PDB-blocked pod with a TGP still keeps a node from consolidation", pools: one(),
			build: func(b *clusterBuilder) {
				candTGP(b, b.node("n1", "default", "m.large", "zone-a", "on-demand"), time.Hour)
				blockedPod(b, "n1", "500m", 0)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
		{id: "D-108", name: "a do-not-disrupt pod without TGP keeps a drifted node", pools: never,
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-108", name: "a do-not-disrupt pod without TGP blocks an expired node's drain", pools: candExpiring(),
			build: func(b *clusterBuilder) {
				candExpired(b, "n1", "m.small")
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepBlockedDrain}},
		{id: "D-109", name: "a PDB-blocked pod without TGP keeps a drifted node", pools: never,
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				blockedPod(b, "n1", "1500m", 1)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
		{id: "D-109", name: "a PDB-blocked pod without TGP blocks an expired node's drain", pools: candExpiring(),
			build: func(b *clusterBuilder) {
				candExpired(b, "n1", "m.small")
				blockedPod(b, "n1", "1500m", 0)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepBlockedDrain}},
	})
}

// TestCandidatePodsAndClaims: D-115, D-118 (which pods a
// PodDisruptionBudget blocks) and D-120 (a NodeClaim without its Node).
func TestCandidatePodsAndClaims(t *testing.T) {
	runBehaviours(t, []behaviour{
		{id: "D-115", name: "a fully blocking PDB on a DaemonSet pod keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.daemonPod("ds", "n1").Labels["app"] = "agent"
				b.pdb("agent", "default", map[string]string{"app": "agent"}, intstr.FromInt32(0), 0)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
		{id: "D-115", name: "a DaemonSet pod tolerating the disruption taint is not evicted: its PDB does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.daemonPod("ds", "n1")
				p.Labels["app"] = "agent"
				p.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
				b.pdb("agent", "default", map[string]string{"app": "agent"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-118", name: "a fully blocking PDB on a terminating pod does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("a", "n1", "500m")
				p.Labels["app"] = "web"
				ts := metav1.NewTime(testNow().Add(-time.Second))
				p.DeletionTimestamp = &ts
				b.pdb("web", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-120", name: "a NodeClaim without a Node is no candidate; the empty node beside it goes", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				nc := disruption.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nc1", CreationTimestamp: metav1.NewTime(testNow().Add(-time.Hour)),
					Labels: map[string]string{"karpenter.sh/nodepool": "default"}}}
				nc.Status.ProviderID = "fake:///nc1"
				nc.Status.Conditions = []metav1.Condition{{Type: disruption.ConditionInitialized, Status: metav1.ConditionTrue,
					LastTransitionTime: metav1.NewTime(testNow().Add(-time.Hour))}}
				b.c.NodeClaims = append(b.c.NodeClaims, nc)
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
	})
}

// TestCandidateBudgetCounts: D-129 to D-134, which nodes a NodePool's
// budget counts (managed, initialized, not InstanceTerminating) and which
// of them are already disrupting (NotReady, deleting). Each ID has a case
// whose budget is used up, to read its numbers, and one whose first command
// shows how many nodes it lets go.
func TestCandidateBudgetCounts(t *testing.T) {
	pct := func(p string) []nodepool.NodePool {
		return []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: p}))}
	}
	firstRound := []disruption.Option{disruption.WithMaxCommands(1)}
	unmanaged := func(b *clusterBuilder) {
		delete(b.node("u1", "default", "m.large", "zone-a", "on-demand").Labels, "karpenter.sh/nodepool")
	}
	// uninitialized adds a node that is not initialized (and not Ready when
	// notReady: counted, it would also count as disrupting).
	uninitialized := func(b *clusterBuilder, notReady bool) {
		u := b.node("u1", "default", "m.large", "zone-a", "on-demand")
		delete(u.Labels, "karpenter.sh/initialized")
		if notReady {
			candNotReady(u)
		}
	}
	terminating := func(b *clusterBuilder, name string) {
		n := b.node(name, "default", "m.large", "zone-a", "on-demand")
		nc := b.claimFor(n)
		nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: disruption.ConditionInstanceTerminating, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(testNow())})
	}
	// deleting adds a node whose Node is being deleted and one whose
	// NodeClaim is (the mark Karpenter sets in memory is not in a dump).
	deleting := func(b *clusterBuilder) {
		n := b.node("x1", "default", "m.large", "zone-a", "on-demand")
		ts := metav1.NewTime(testNow().Add(-time.Minute))
		n.DeletionTimestamp = &ts
		m := b.node("x2", "default", "m.large", "zone-a", "on-demand")
		b.claimFor(m).DeletionTimestamp = &ts
	}
	candRun(t, []candCase{
		{behaviour: behaviour{id: "D-129", name: "an unmanaged node is not counted: 10 managed at 10% allow 1", pools: pct("10%"),
			build: func(b *clusterBuilder) {
				candNotReady(candEmpty(b, "n", "default", 10)[9])
				unmanaged(b)
			},
			wantKept: map[string]disruption.KeepReason{"u1": disruption.KeepUnmanaged}},
			check: candBudget("n00", disruption.ReasonEmpty, 1, 1)},
		{behaviour: behaviour{id: "D-129", name: "10 managed and 1 unmanaged at 100%: all 10 in one command", pools: pct("100%"),
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 10); unmanaged(b) }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 10)},
		{behaviour: behaviour{id: "D-129", name: "10 managed and 1 unmanaged at 10%: one node", pools: pct("10%"), opts: firstRound,
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 10); unmanaged(b) }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 1)},
		{behaviour: behaviour{id: "D-130", name: "an uninitialized node is not counted: 10 initialized at 10% allow 1", pools: pct("10%"),
			build: func(b *clusterBuilder) {
				candNotReady(candEmpty(b, "n", "default", 10)[9])
				uninitialized(b, true)
			},
			wantKept: map[string]disruption.KeepReason{"u1": disruption.KeepNotInitialized}},
			check: candBudget("n00", disruption.ReasonEmpty, 1, 1)},
		{behaviour: behaviour{id: "D-130", name: "10 initialized and 1 uninitialized at 10%: one node", pools: pct("10%"), opts: firstRound,
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 10); uninitialized(b, false) }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 1)},
		{behaviour: behaviour{id: "D-131", name: "an InstanceTerminating NodeClaim is not counted: 10 others at 10% allow 1", pools: pct("10%"),
			build: func(b *clusterBuilder) {
				candNotReady(candEmpty(b, "n", "default", 10)[9])
				terminating(b, "t1")
			},
			wantKept: map[string]disruption.KeepReason{"t1": disruption.KeepDeleting}},
			check: candBudget("n00", disruption.ReasonEmpty, 1, 1)},
		{behaviour: behaviour{id: "D-131", name: "10 nodes and 1 InstanceTerminating at 100%: all 10 in one command", pools: pct("100%"),
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 10); terminating(b, "t1") }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 10)},
		{behaviour: behaviour{id: "D-131", name: "9 nodes and 2 InstanceTerminating at 50%: ceil(4.5) = 5", pools: pct("50%"), opts: firstRound,
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 9); terminating(b, "t1"); terminating(b, "t2") }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 5)},
		{behaviour: behaviour{id: "D-133", name: "10 nodes, two deleting, at 20%: 2 allowed, 2 disrupting, none left", pools: pct("20%"),
			build:    func(b *clusterBuilder) { candEmpty(b, "n", "default", 8); deleting(b) },
			wantKept: map[string]disruption.KeepReason{"x1": disruption.KeepDeleting, "x2": disruption.KeepDeleting}},
			check: candBudget("n00", disruption.ReasonEmpty, 2, 2)},
		{behaviour: behaviour{id: "D-133", name: "10 nodes, two deleting, at 100%: the other 8 in one command", pools: pct("100%"),
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 8); deleting(b) }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 8)},
		{behaviour: behaviour{id: "D-133", name: "10 nodes, two deleting, at 50%: 5 − 2 = 3", pools: pct("50%"), opts: firstRound,
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 8); deleting(b) }},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 3)},
		{behaviour: behaviour{id: "D-134", name: "10 nodes, two NotReady, at 100%: 8 of the 10 candidates", pools: pct("100%"), opts: firstRound,
			build: func(b *clusterBuilder) {
				ns := candEmpty(b, "n", "default", 10)
				candNotReady(ns[0])
				candNotReady(ns[5])
			}},
			anyCommands: true, check: candFirstCommand(disruption.MethodEmptiness, 8)},
		{behaviour: behaviour{id: "D-134", name: "10 nodes, two NotReady, at 20%: 2 allowed, 2 disrupting, none left", pools: pct("20%"),
			build: func(b *clusterBuilder) {
				ns := candEmpty(b, "n", "default", 10)
				candNotReady(ns[0])
				candNotReady(ns[5])
			}},
			check: candAll(candBudget("n00", disruption.ReasonEmpty, 2, 2), candBudget("n01", disruption.ReasonEmpty, 2, 2))},
	})
}

// TestCandidateDeletingPods: D-135, the pods of a node being deleted may be
// simulated onto a node that is not initialized (a moved pod may not).
func TestCandidateDeletingPods(t *testing.T) {
	// d1 is being deleted; its pod dp fits u1 (not initialized), the only
	// node whose taint it tolerates; n1's pod a does not tolerate it.
	build := func(drifted bool) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			d := b.node("d1", "default", "m.small", "zone-a", "on-demand")
			ts := metav1.NewTime(testNow().Add(-time.Minute))
			b.claimFor(d).DeletionTimestamp = &ts
			b.pod("dp", "d1", "1500m").Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
			u := b.node("u1", "default", "m.small", "zone-a", "on-demand")
			delete(u.Labels, "karpenter.sh/initialized")
			u.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
			if drifted {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				b.pod("a", "n1", "1500m")
			} else {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			}
		}
	}
	runBehaviours(t, []behaviour{
		{id: "D-135", name: "drift: the deleting node's pod lands on the uninitialized node, one replacement for the rest",
			pools: one(consolidateAfter("Never")), build: build(true),
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"},
			wantKept:     map[string]disruption.KeepReason{"u1": disruption.KeepNotInitialized, "d1": disruption.KeepDeleting}},
		{id: "D-135", name: "consolidation: the deleting node's pod lands on the uninitialized node, one replacement for the rest",
			pools: one(), build: build(false),
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"},
			wantKept:     map[string]disruption.KeepReason{"u1": disruption.KeepNotInitialized, "d1": disruption.KeepDeleting}},
	})
}

// TestCandidateEmptiness: D-147, D-148, D-151, D-152 and D-157.
func TestCandidateEmptiness(t *testing.T) {
	tenPools := func(nodes string) []nodepool.NodePool {
		var out []nodepool.NodePool
		for i := range 10 {
			out = append(out, pool(fmt.Sprintf("p%d", i), od(), budgets(nodepool.Budget{Nodes: nodes})))
		}
		return out
	}
	tenByThree := func(b *clusterBuilder) {
		for i := range 10 {
			candEmpty(b, fmt.Sprintf("p%d-", i), fmt.Sprintf("p%d", i), 3)
		}
	}
	emptyBudget0 := nodepool.Budget{Nodes: "0", Reasons: []string{string(disruption.ReasonEmpty)}}
	firstRound := []disruption.Option{disruption.WithMaxCommands(1)}
	candRun(t, []candCase{
		{behaviour: behaviour{id: "D-147", name: "10 pools × 3 empty nodes at 100%: all 30 in one command", pools: tenPools("100%"), build: tenByThree},
			anyCommands: true, check: func(t *testing.T, res disruption.Result) {
				require.Len(t, res.Commands, 1)
				candFirstCommand(disruption.MethodEmptiness, 30)(t, res)
			}},
		{behaviour: behaviour{id: "D-147", name: "10 pools × 3 empty nodes at 0%: none, each pool's budget named", pools: tenPools("0%"), build: tenByThree},
			check: func(t *testing.T, res disruption.Result) {
				for i := range 10 {
					for j := range 3 {
						candBudget(fmt.Sprintf("p%d-%02d", i, j), disruption.ReasonEmpty, 0, 0)(t, res)
					}
				}
			}},
		{behaviour: behaviour{id: "D-148", name: "an empty node is deleted by Emptiness", pools: one(),
			build:        func(b *clusterBuilder) { b.node("n1", "default", "m.large", "zone-a", "on-demand") },
			wantCommands: []string{"Emptiness delete [n1] -> []"}}},
		{behaviour: behaviour{id: "D-148", name: "an empty drifted node is deleted by Emptiness, which runs first", pools: one(),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.large", "zone-a", "on-demand"), testNow().Add(-time.Hour))
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}}},
		{behaviour: behaviour{id: "D-151", name: "a node with a pod is not Emptiness's (WhenEmpty keeps it)", pools: one(policy(nodepool.ConsolidationWhenEmpty)),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "100m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepWhenEmpty}}},
		{behaviour: behaviour{id: "D-151", name: "beside an empty node, a node with a pod is left out of the emptiness command", pools: one(), opts: firstRound,
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n2", "100m")
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
			check: func(t *testing.T, res disruption.Result) {
				s, _ := candState(res, "n2")
				require.False(t, s.Disrupted)
			}},
		{behaviour: behaviour{id: "D-152", name: "several empty nodes of two pools go together, dearest first, the busy one stays", opts: firstRound,
			pools: []nodepool.NodePool{pool("a", od(), budgets(all())), pool("b", od(), budgets(all()))},
			build: func(b *clusterBuilder) {
				b.node("e1", "a", "m.small", "zone-a", "on-demand")
				b.node("e2", "b", "m.xlarge", "zone-b", "on-demand")
				b.node("e3", "a", "m.medium", "zone-a", "on-demand")
				b.node("n1", "b", "m.large", "zone-a", "on-demand")
				b.pod("p", "n1", "100m")
			},
			wantCommands: []string{"Emptiness delete [e2 e3 e1] -> []"}}},
		{behaviour: behaviour{id: "D-157", name: "an Empty budget of 0 keeps the empty nodes of one pool", pools: one(budgets(emptyBudget0)),
			build: func(b *clusterBuilder) { candEmpty(b, "n", "default", 3) }},
			check: candAll(candBudget("n00", disruption.ReasonEmpty, 0, 0), candBudget("n02", disruption.ReasonEmpty, 0, 0))},
		{behaviour: behaviour{id: "D-157", name: "an Empty budget of 0 keeps the empty nodes of every pool",
			pools: []nodepool.NodePool{pool("a", od(), budgets(emptyBudget0)), pool("b", od(), budgets(emptyBudget0)), pool("c", od(), budgets(emptyBudget0))},
			build: func(b *clusterBuilder) {
				for _, p := range []string{"a", "b", "c"} {
					candEmpty(b, p, p, 2)
				}
			}},
			check: candAll(candBudget("a00", disruption.ReasonEmpty, 0, 0), candBudget("b01", disruption.ReasonEmpty, 0, 0), candBudget("c00", disruption.ReasonEmpty, 0, 0))},
	})
}
