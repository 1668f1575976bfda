package disruption_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// behaviour is one D-1xx behaviour of Karpenter's disruption tests
// (docs/DISRUPTION.md), as a cluster, pools and options, and what Plan
// must answer: its commands, summarized ("Method decision [nodes] ->
// [replacement types]"), and the reason of the nodes that stay.
type behaviour struct {
	id, name     string
	build        func(b *clusterBuilder)
	pools        []nodepool.NodePool
	opts         []disruption.Option
	now          time.Time
	wantCommands []string
	wantKept     map[string]disruption.KeepReason
}

func summarize(res disruption.Result) ([]string, map[string]disruption.KeepReason) {
	var cmds []string
	for _, c := range res.Commands {
		var nodes, repl []string
		for _, n := range c.Nodes {
			nodes = append(nodes, n.Name)
		}
		for _, r := range c.Replacements {
			repl = append(repl, r.InstanceType+"/"+r.CapacityType)
		}
		cmds = append(cmds, fmt.Sprintf("%s %s %v -> %v", c.Method, c.Decision, nodes, repl))
	}
	kept := map[string]disruption.KeepReason{}
	for _, n := range res.Nodes {
		if !n.Disrupted {
			kept[n.Name] = n.Reason
		}
	}
	return cmds, kept
}

func runBehaviours(t *testing.T, cases []behaviour) {
	t.Helper()
	for _, tc := range cases {
		runBehaviour(t, tc, extraChecks{})
	}
}

// extraChecks are what a case of the other behaviour files asks beyond
// behaviour's fields.
type extraChecks struct {
	// anyCommands leaves the commands to check (wantCommands unused).
	anyCommands bool
	// wantStay are nodes that must not be disrupted, whatever the reason.
	wantStay []string
	// check judges the whole Result.
	check func(t *testing.T, res disruption.Result)
}

// runBehaviour plans tc's cluster and checks its commands, the reasons of
// the nodes it names and x.
func runBehaviour(t *testing.T, tc behaviour, x extraChecks) {
	t.Helper()
	t.Run(tc.id+" "+tc.name, func(t *testing.T) {
		t.Parallel()
		b := newCluster(t)
		tc.build(b)
		now := tc.now
		if now.IsZero() {
			now = testNow()
		}
		res, err := disruption.Plan(b.c, tc.pools, b.catalog, now, append(slices.Clone(tc.opts), disruption.WithoutRepack())...)
		require.NoError(t, err)
		cmds, kept := summarize(res)
		if diff := gocmp.Diff(tc.wantCommands, cmds); diff != "" && !x.anyCommands {
			t.Errorf("commands (-want +got):\n%s", diff)
		}
		for name, want := range tc.wantKept {
			if got, ok := kept[name]; !ok {
				t.Errorf("node %s: disrupted or missing, want kept for %q", name, want)
			} else if got != want {
				t.Errorf("node %s: kept for %q, want %q (%v)", name, got, want, kept)
			}
		}
		for _, name := range x.wantStay {
			if _, ok := kept[name]; !ok {
				t.Errorf("node %s: disrupted or missing, want it kept", name)
			}
		}
		if x.check != nil {
			x.check(t, res)
		}
	})
}

// one is a pool "default" on-demand with a budget of 100%.
func one(set ...func(*nodepool.NodePool)) []nodepool.NodePool {
	return []nodepool.NodePool{pool("default", od(), append([]func(*nodepool.NodePool){budgets(all())}, set...)...)}
}

func TestCandidateRules(t *testing.T) {
	runBehaviours(t, []behaviour{
		{id: "D-101", name: "a do-not-disrupt pod keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				annotate(b.pod("p1", "n1", "100m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-102", name: "a do-not-disrupt mirror pod keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				annotate(ownedBy(b.pod("p1", "n1", "100m"), "v1", "Node", "n1"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-103", name: "a do-not-disrupt DaemonSet pod keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				annotate(b.daemonPod("ds1", "n1"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-110", name: "a terminating do-not-disrupt pod does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("p1", "n1", "100m")
				annotate(p, disruption.AnnotationDoNotDisrupt, "true")
				ts := metav1.NewTime(testNow().Add(-time.Second))
				p.DeletionTimestamp = &ts
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-111", name: "a terminal do-not-disrupt pod does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("p1", "n1", "100m")
				annotate(p, disruption.AnnotationDoNotDisrupt, "true")
				p.Status.Phase = corev1.PodSucceeded
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-112", name: "a node annotated do-not-disrupt stays", pools: one(),
			build: func(b *clusterBuilder) {
				annotate(b.node("n1", "default", "m.large", "zone-a", "on-demand"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDoNotDisrupt}},
		{id: "D-150", name: "do-not-disrupt \"false\" on a node does not block", pools: one(),
			build: func(b *clusterBuilder) {
				annotate(b.node("n1", "default", "m.large", "zone-a", "on-demand"), disruption.AnnotationDoNotDisrupt, "false")
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-113", name: "a pod under two PodDisruptionBudgets keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("p1", "n1", "100m").Labels["app"] = "web"
				b.pdb("a", "default", map[string]string{"app": "web"}, intstr.FromInt32(5), 5)
				b.pdb("b", "default", map[string]string{"app": "web"}, intstr.FromInt32(5), 5)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
		{id: "D-114", name: "a PodDisruptionBudget allowing no disruption keeps the node", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("p1", "n1", "100m").Labels["app"] = "web"
				b.pdb("a", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
		{id: "D-116", name: "a fully blocking PodDisruptionBudget on a mirror pod does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := ownedBy(b.pod("p1", "n1", "100m"), "v1", "Node", "n1")
				p.Labels["app"] = "web"
				b.pdb("a", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-117", name: "a blocking PodDisruptionBudget on a terminal pod does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("p1", "n1", "100m")
				p.Labels["app"] = "web"
				p.Status.Phase = corev1.PodFailed
				b.pdb("a", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-192", name: "a PodDisruptionBudget of another namespace does not match", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("p1", "n1", "100m").Labels["app"] = "web"
				b.pdb("a", "other", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
		{id: "D-119", name: "a node without NodeClaim or NodePool label is unmanaged", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				delete(n.Labels, "karpenter.sh/nodepool")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepUnmanaged}},
		{id: "D-122", name: "a deleting node stays", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				ts := metav1.NewTime(testNow())
				n.DeletionTimestamp = &ts
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDeleting}},
		{id: "D-123", name: "an uninitialized node stays", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				delete(n.Labels, "karpenter.sh/initialized")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNotInitialized}},
		{id: "D-124", name: "a NodeClaim's node without the NodePool label stays", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				delete(n.Labels, "karpenter.sh/nodepool")
				b.claimFor(n)
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNodePoolNotFound}},
		{id: "D-125", name: "a node of a missing NodePool stays", pools: one(),
			build:    func(b *clusterBuilder) { b.node("n1", "gone", "m.large", "zone-a", "on-demand") },
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNodePoolNotFound}},
		{id: "D-126", name: "an empty node without zone or capacity-type label is still deleted", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				delete(n.Labels, "topology.kubernetes.io/zone")
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-176", name: "a non-empty node without zone label has no known price", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				delete(n.Labels, "topology.kubernetes.io/zone")
				b.pod("p1", "n1", "100m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepUnknownPrice}},
	})
}

// pdb adds a PodDisruptionBudget with maxUnavailable and a status allowing
// allowed disruptions.
func (b *clusterBuilder) pdb(name, ns string, match map[string]string, maxUnavailable intstr.IntOrString, allowed int32) {
	b.c.PodDisruptionBudgets = append(b.c.PodDisruptionBudgets, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: match}, MaxUnavailable: &maxUnavailable},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, ObservedGeneration: 1},
	})
}

func TestEmptiness(t *testing.T) {
	tenEmpty := func(b *clusterBuilder) {
		for i := range 10 {
			b.node(fmt.Sprintf("n%02d", i), "default", "m.large", "zone-a", "on-demand")
		}
	}
	firstRound := []disruption.Option{disruption.WithMaxCommands(1)}
	names := func(n int) string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("n%02d", i))
		}
		return strings.Join(out, " ")
	}
	runBehaviours(t, []behaviour{
		{id: "D-144", name: "10 empty nodes at 100% go in one command", pools: one(), build: tenEmpty,
			wantCommands: []string{"Emptiness delete [" + names(10) + "] -> []"}},
		{id: "D-145", name: "10 empty nodes at 0%: none", build: tenEmpty,
			pools:    []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "0%"}))},
			wantKept: map[string]disruption.KeepReason{"n00": disruption.KeepBudget}},
		{id: "D-145", name: "10 empty nodes at 30%: 3 in the first command", build: tenEmpty, opts: firstRound,
			pools:        []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "30%"}))},
			wantCommands: []string{"Emptiness delete [" + names(3) + "] -> []"}},
		{id: "D-146", name: "3 pools × 3 empty nodes at 50%: 2 per pool in one command", opts: firstRound,
			build: func(b *clusterBuilder) {
				for _, p := range []string{"a", "b", "c"} {
					for i := range 3 {
						b.node(fmt.Sprintf("%s%d", p, i), p, "m.large", "zone-a", "on-demand")
					}
				}
			},
			pools: []nodepool.NodePool{pool("a", od(), budgets(nodepool.Budget{Nodes: "50%"})), pool("b", od(), budgets(nodepool.Budget{Nodes: "50%"})),
				pool("c", od(), budgets(nodepool.Budget{Nodes: "50%"}))},
			wantCommands: []string{"Emptiness delete [a0 a1 b0 b1 c0 c1] -> []"}},
		{id: "D-153", name: "a node with only a DaemonSet pod is empty", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.daemonPod("ds1", "n1")
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-154", name: "a node with only terminating Deployment pods is empty", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				ts := metav1.NewTime(testNow())
				b.pod("p1", "n1", "1").DeletionTimestamp = &ts
			},
			wantCommands: []string{"Emptiness delete [n1] -> []"}},
		{id: "D-155", name: "a terminating StatefulSet pod makes a node non-empty", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				ts := metav1.NewTime(testNow())
				ownedBy(b.pod("p1", "n1", "1"), "apps/v1", "StatefulSet", "db").DeletionTimestamp = &ts
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
		{id: "D-158", name: "a static pool's empty node stays", build: func(b *clusterBuilder) { b.node("n1", "default", "m.large", "zone-a", "on-demand") },
			pools:    []nodepool.NodePool{pool("default", od(), budgets(all()), func(np *nodepool.NodePool) { r := int64(1); np.Spec.Replicas = &r })},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepStatic}},
		{id: "D-149", name: "an empty node inside consolidateAfter stays", build: func(b *clusterBuilder) {
			n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
			b.claimFor(n).Status.LastPodEventTime = metav1.NewTime(testNow().Add(-10 * time.Second))
		},
			pools:    one(consolidateAfter("1m")),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepConsolidateAfter}},
		{id: "D-175", name: "consolidateAfter Never disables consolidation", build: func(b *clusterBuilder) { b.node("n1", "default", "m.large", "zone-a", "on-demand") },
			pools:    one(consolidateAfter("Never")),
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDisabled}},
	})
}

func TestConsolidation(t *testing.T) {
	runBehaviours(t, []behaviour{
		{id: "D-181", name: "an expensive node with one small pod is replaced by a cheaper type", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.pod("p1", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
		{id: "D-196", name: "of two nodes whose pods fit on one, the one with fewer pods goes", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("b", "n2", "500m")
				b.pod("c", "n2", "500m")
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n1 n2] -> [m.small/on-demand]"}},
		{id: "D-198", name: "pods go to an unmanaged node with room", pools: one(),
			build: func(b *clusterBuilder) {
				u := b.node("u1", "default", "m.large", "zone-a", "on-demand")
				delete(u.Labels, "karpenter.sh/nodepool")
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"},
			wantKept:     map[string]disruption.KeepReason{"u1": disruption.KeepUnmanaged}},
		{id: "D-199", name: "a zero-disruption PodDisruptionBudget on one node: the other goes", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("b", "n1", "500m")
				b.pod("db", "n2", "500m").Labels["app"] = "db"
				b.pdb("db", "default", map[string]string{"app": "db"}, intstr.FromInt32(0), 0)
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n2": disruption.KeepPDB}},
		{id: "D-202", name: "a 2-minute do-not-disrupt pod blocks for 2 minutes", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("a", "n1", "500m")
				annotate(p, disruption.AnnotationDoNotDisrupt, "2m")
				start := metav1.NewTime(testNow().Add(-time.Minute))
				p.Status.StartTime = &start
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-202", name: "after its 2 minutes the pod's node consolidates", pools: one(), now: testNow().Add(2 * time.Minute),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				p := b.pod("a", "n1", "500m")
				annotate(p, disruption.AnnotationDoNotDisrupt, "2m")
				start := metav1.NewTime(testNow().Add(-time.Minute))
				p.Status.StartTime = &start
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
		{id: "D-202", name: "an invalid do-not-disrupt value does not block", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				annotate(b.pod("a", "n1", "500m"), disruption.AnnotationDoNotDisrupt, "banana")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}},
		{id: "D-203", name: "a delete that needs an uninitialized destination does not happen", pools: one(),
			build: func(b *clusterBuilder) {
				u := b.node("u1", "default", "m.large", "zone-a", "on-demand")
				delete(u.Labels, "karpenter.sh/initialized")
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepUninitializedDst, "u1": disruption.KeepNotInitialized}},
		{id: "D-204", name: "a destination inside its consolidateAfter refuses moved pods", pools: twoPools("1m"),
			build:    gatedDestination,
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper, "d1": disruption.KeepConsolidateAfter}},
		{id: "D-204", name: "once its consolidateAfter passed the destination takes them", pools: twoPools("1m"), now: testNow().Add(time.Minute),
			build:        gatedDestination,
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}},
		{id: "D-205", name: "a destination of a pool with consolidateAfter Never takes them at once", pools: twoPools("Never"),
			build:        gatedDestination,
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}},
		{id: "D-208", name: "a pending pod that fits nowhere does not block a delete", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("b", "n2", "500m")
				b.pod("huge", "", "64")
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n1 n2] -> [m.small/on-demand]"}},
		{id: "D-209", name: "a pod that fits nowhere else keeps its node", pools: one(),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				n.Labels["disk"] = "ssd"
				b.pod("a", "n1", "500m").Spec.NodeSelector = map[string]string{"disk": "ssd"}
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodsDoNotFit}},
		{id: "D-215", name: "three nodes become one cheaper node", pools: one(),
			build: func(b *clusterBuilder) {
				for i := range 3 {
					b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", "on-demand")
					b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "1")
				}
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1 n2] -> [m.medium/on-demand]"}},
		{id: "D-216", name: "two nodes of the cheapest type never become one of that type", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.node("n2", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
				b.pod("b", "n2", "500m")
				b.pod("c", "n2", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}},
		{id: "D-222", name: "required anti-affinity keeps nodes that are already cheapest", pools: one(),
			build: func(b *clusterBuilder) {
				for i := range 2 {
					p := b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "500m")
					p.Labels["app"] = "x"
					p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}}}}
					b.node(fmt.Sprintf("n%d", i), "default", "m.small", "zone-a", "on-demand")
				}
			},
			wantKept: map[string]disruption.KeepReason{"n0": disruption.KeepNoCheaper, "n1": disruption.KeepNoCheaper}},
		{id: "D-175", name: "WhenEmpty leaves a non-empty node", pools: one(policy(nodepool.ConsolidationWhenEmpty)),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepWhenEmpty}},
		{id: "D-195", name: "no cheaper on-demand type: no replacement", pools: one(),
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper}},
		{id: "D-220", name: "at equal prices the node with fewer pods goes first", opts: []disruption.Option{disruption.WithMaxCommands(1)},
			pools: []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "1"}))},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.large", "zone-a", "on-demand")
				b.node("n2", "default", "m.large", "zone-b", "on-demand")
				b.node("n3", "default", "m.large", "zone-a", "on-demand")
				b.pod("a", "n1", "3")
				b.pod("b", "n2", "2")
				b.pod("c", "n2", "1")
				b.pod("d", "n3", "3500m")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n1] -> []"}},
		{id: "D-226", name: "preferred anti-affinity ignored: the nodes merge", pools: one(),
			opts: []disruption.Option{disruption.WithSchedulerOptions(scheduler.WithPreferencePolicy(scheduler.PreferenceIgnore))},
			build: func(b *clusterBuilder) {
				for i := range 2 {
					b.node(fmt.Sprintf("n%d", i), "default", "m.large", "zone-a", "on-demand")
					p := b.pod(fmt.Sprintf("p%d", i), fmt.Sprintf("n%d", i), "500m")
					p.Labels["app"] = "x"
					p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1,
						PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}}}}}
				}
			},
			wantCommands: []string{"MultiNodeConsolidation replace [n0 n1] -> [m.small/on-demand]"}},
		{id: "D-229", name: "a static pool's node is never consolidated",
			pools: []nodepool.NodePool{pool("default", od(), budgets(all()), func(np *nodepool.NodePool) { r := int64(1); np.Spec.Replicas = &r })},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepStatic}},
	})
}

func TestBudgetRules(t *testing.T) {
	small := func(n int) func(b *clusterBuilder) {
		return func(b *clusterBuilder) {
			for i := range n {
				b.node(fmt.Sprintf("n%02d", i), "default", "m.large", "zone-a", "on-demand")
				b.pod(fmt.Sprintf("p%02d", i), fmt.Sprintf("n%02d", i), "100m")
			}
		}
	}
	firstRound := []disruption.Option{disruption.WithMaxCommands(1)}
	runBehaviours(t, []behaviour{
		{id: "D-178", name: "10 nodes with one small pod each, 30%: multi-node takes 3", build: small(10), opts: firstRound,
			pools:        []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "30%"}))},
			wantCommands: []string{"MultiNodeConsolidation delete [n00 n01 n02] -> []"}},
		{id: "D-180", name: "a budget of 0 for Underutilized keeps them all", build: small(3),
			pools:    []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "0", Reasons: []string{"Underutilized"}}))},
			wantKept: map[string]disruption.KeepReason{"n00": disruption.KeepBudget}},
		{id: "D-132", name: "every node NotReady at 10%: nothing", build: func(b *clusterBuilder) {
			for i := range 3 {
				n := b.node(fmt.Sprintf("n%02d", i), "default", "m.large", "zone-a", "on-demand")
				n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
			}
		},
			pools:    []nodepool.NodePool{pool("default", od())},
			wantKept: map[string]disruption.KeepReason{"n00": disruption.KeepBudget}},
		{id: "C", name: "a schedule keeps Underutilized at 0 during business hours", build: small(3),
			now: time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC), // a Monday
			pools: []nodepool.NodePool{pool("default", od(), budgets(all(),
				nodepool.Budget{Nodes: "0", Reasons: []string{"Underutilized"}, Schedule: ptrTo2("0 9 * * mon-fri"), Duration: &metav1.Duration{Duration: 8 * time.Hour}}))},
			wantKept: map[string]disruption.KeepReason{"n00": disruption.KeepBudget}},
		{id: "C", name: "the same budget outside the window lets them go", build: small(3),
			now: time.Date(2025, 6, 2, 18, 0, 0, 0, time.UTC),
			pools: []nodepool.NodePool{pool("default", od(), budgets(all(),
				nodepool.Budget{Nodes: "0", Reasons: []string{"Underutilized"}, Schedule: ptrTo2("0 9 * * mon-fri"), Duration: &metav1.Duration{Duration: 8 * time.Hour}}))},
			wantCommands: []string{"MultiNodeConsolidation replace [n00 n01 n02] -> [m.small/on-demand]"}},
	})
}

func TestDriftAndExpiry(t *testing.T) {
	runBehaviours(t, []behaviour{
		{id: "D-166", name: "a drifted empty node is deleted, even with consolidateAfter Never", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.large", "zone-a", "on-demand"), testNow().Add(-time.Hour))
			},
			wantCommands: []string{"Drift delete [n1] -> []"}},
		{id: "D-166", name: "a drifted node is replaced, whatever the price", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-167", name: "empty drifted nodes go first, then the earliest drift", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-2*time.Hour))
				b.pod("a", "n1", "1500m")
				b.drifted(b.node("n2", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-3*time.Hour))
				b.pod("b", "n2", "1500m")
				b.drifted(b.node("n3", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
			},
			wantCommands: []string{"Drift delete [n3] -> []", "Drift replace [n2] -> [m.small/on-demand]", "Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-169", name: "a drifted node whose pods need three nodes gets three", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.xlarge", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				for i := range 3 {
					p := b.pod(fmt.Sprintf("p%d", i), "n1", "500m")
					p.Labels["app"] = "x"
					p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname"}}}}
				}
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand m.small/on-demand m.small/on-demand]"}},
		{id: "D-162", name: "a drifted node whose pods fit nowhere is skipped", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
				n.Labels["disk"] = "ssd"
				b.drifted(n, testNow().Add(-2*time.Hour))
				b.pod("a", "n1", "500m").Spec.NodeSelector = map[string]string{"disk": "ssd"}
				b.drifted(b.node("n2", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				b.pod("b", "n2", "1800m")
			},
			wantCommands: []string{"Drift replace [n2] -> [m.small/on-demand]"}},
		{id: "D-163", name: "a drifted node annotated do-not-disrupt stays", pools: one(consolidateAfter("Never")),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
				annotate(n, disruption.AnnotationDoNotDisrupt, "true")
				b.drifted(n, testNow().Add(-time.Hour))
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepDoNotDisrupt}},
		{id: "D-104", name: "a do-not-disrupt pod does not keep a drifted node with a termination grace period",
			pools: one(consolidateAfter("Never"), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
			}),
			build: func(b *clusterBuilder) {
				b.drifted(b.node("n1", "default", "m.small", "zone-a", "on-demand"), testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantCommands: []string{"Drift delete [n1] -> []"}},
		{id: "D.3", name: "a node whose labels left the NodePool's requirements is drifted (computed)",
			pools: []nodepool.NodePool{pool("default", od(), budgets(all()), consolidateAfter("Never"), func(np *nodepool.NodePool) {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
					nodepool.NodeSelectorRequirementWithMinValues{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}})
			})},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D.3", name: "a template label the node lacks drifts it (computed)",
			pools: []nodepool.NodePool{pool("default", od(), budgets(all()), consolidateAfter("Never"), func(np *nodepool.NodePool) {
				np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
			})},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "expiry", name: "a node past expireAfter is replaced",
			pools: one(consolidateAfter("Never"), func(np *nodepool.NodePool) { e := "24h"; np.Spec.Template.Spec.ExpireAfter = &e }),
			build: func(b *clusterBuilder) {
				n := b.node("n1", "default", "m.small", "zone-a", "on-demand")
				n.CreationTimestamp = metav1.NewTime(testNow().Add(-25 * time.Hour))
				b.pod("a", "n1", "1500m")
			},
			wantCommands: []string{"Expiration replace [n1] -> [m.small/on-demand]"}},
	})
}

func TestSpotToSpot(t *testing.T) {
	spotPool := []nodepool.NodePool{pool("default", spot(), budgets(all()))}
	runBehaviours(t, []behaviour{
		{id: "D-183", name: "without the feature gate a spot node is not replaced by spot", pools: spotPool,
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "spot")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepSpotToSpot}},
		{id: "D-182", name: "with the gate, fewer cheaper spot types than the floor: kept", pools: spotPool,
			opts: []disruption.Option{disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes)},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "spot")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepSpotToSpot}},
		{id: "D-182", name: "with the floor at 3 the spot node is replaced", pools: spotPool,
			opts: []disruption.Option{disruption.WithSpotToSpot(3)},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.xlarge", "zone-a", "spot")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/spot]"}},
		{id: "B.3.7", name: "an on-demand node goes to spot when the pool allows both",
			pools: []nodepool.NodePool{pool("default", []string{"spot", "on-demand"}, budgets(all()))},
			build: func(b *clusterBuilder) {
				b.node("n1", "default", "m.small", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/spot]"}},
	})
}

func ptrTo2[T any](v T) *T { return &v }

var _ = slices.Contains[[]string]

// twoPools are "default" (consolidateAfter 0s) and "dst" (consolidateAfter
// after), both on-demand with a budget of 100%.
func twoPools(after string) []nodepool.NodePool {
	return []nodepool.NodePool{pool("default", od(), budgets(all())), pool("dst", od(), budgets(all()), consolidateAfter(after))}
}

// gatedDestination: d1 (pool dst) received a pod 30s ago and has room for
// n1's pod; nothing else does, and d1's own pod needs a node as large.
func gatedDestination(b *clusterBuilder) {
	d := b.node("d1", "dst", "m.large", "zone-a", "on-demand")
	b.claimFor(d).Status.LastPodEventTime = metav1.NewTime(testNow().Add(-30 * time.Second))
	b.pod("x", "d1", "6")
	b.node("n1", "default", "m.small", "zone-a", "on-demand")
	b.pod("a", "n1", "1500m")
}
