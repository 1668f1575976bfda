package disruption_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// This file covers the drift, static drift and replace behaviours of
// section E of the spec (D-136 to D-194) that behaviours_test.go does not.
//
// Karpenter's tests of budgets run the controller several times while the
// commands it started are still in flight (their replacements never
// initialize), so the budget ends the series. A snapshot shows an
// in-flight command as its candidate being deleted (drInFlight) beside
// its replacement, not yet initialized (drReplacement): the budget counts
// the first as disrupting and does not count the second (C).

// drCase is a behaviour with an optional check of the whole Result.
type drCase struct {
	id, name     string
	build        func(b *clusterBuilder)
	pools        []nodepool.NodePool
	opts         []disruption.Option
	now          time.Time
	wantCommands []string
	wantKept     map[string]disruption.KeepReason
	// wantStay are nodes that must not be disrupted, whatever the reason.
	wantStay []string
	check    func(t *testing.T, res disruption.Result)
}

func drRun(t *testing.T, cases []drCase) {
	t.Helper()
	for _, tc := range cases {
		b := behaviour{id: tc.id, name: tc.name, build: tc.build, pools: tc.pools, opts: tc.opts, now: tc.now,
			wantCommands: tc.wantCommands, wantKept: tc.wantKept}
		runBehaviour(t, b, extraChecks{wantStay: tc.wantStay, check: tc.check})
	}
}

// drCatalog has n instance types "s00".."s<n-1>" of one size (4 cpu,
// 16Gi), each with on-demand and spot offerings in zone-a and zone-b:
// on-demand at price(i), spot at half of it.
func drCatalog(t testing.TB, n int, price func(i int) float64) instancetypes.Catalog {
	t.Helper()
	var types []instancetypes.InstanceType
	for i := range n {
		b := testutil.InstanceType(fmt.Sprintf("s%02d", i)).CPU("4").Memory("16Gi").Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux")
		for _, z := range []string{"zone-a", "zone-b"} {
			b = b.Offering(z, "on-demand", price(i)).Offering(z, "spot", price(i)/2)
		}
		types = append(types, b.Obj())
	}
	c, err := instancetypes.NewCatalog(types)
	require.NoError(t, err)
	return c
}

// drLadder prices type i at 1.00 + i×0.10 (on-demand).
func drLadder(i int) float64 { return 1.00 + float64(i)*0.1 }

// drCheapest returns the names of the catalog's types whose cheapest
// offering of capacity type ct costs less than below, cheapest first
// (ties by name), at most n of them.
func drCheapest(c instancetypes.Catalog, ct string, below float64, n int) []string {
	type priced struct {
		name  string
		price float64
	}
	var ps []priced
	for _, it := range c.Types() {
		best := -1.0
		for _, o := range it.Offerings {
			if o.CapacityType == ct && !o.Unavailable && (best < 0 || o.Price < best) {
				best = o.Price
			}
		}
		if best >= 0 && best < below {
			ps = append(ps, priced{it.Name, best})
		}
	}
	slices.SortFunc(ps, func(a, b priced) int { return cmp.Or(cmp.Compare(a.price, b.price), cmp.Compare(a.name, b.name)) })
	var out []string
	for _, p := range ps[:min(n, len(ps))] {
		out = append(out, p.name)
	}
	return out
}

// drClaim returns the NodeClaim of a node (call it once every NodeClaim is
// added: appending moves them).
func drClaim(b *clusterBuilder, node string) *disruption.NodeClaim {
	b.t.Helper()
	for i := range b.c.NodeClaims {
		if b.c.NodeClaims[i].Status.NodeName == node {
			return &b.c.NodeClaims[i]
		}
	}
	b.t.Fatalf("no NodeClaim for node %s", node)
	return nil
}

// drInFlight marks nodes as the candidates of commands in flight: their
// NodeClaims are being deleted.
func drInFlight(b *clusterBuilder, nodes ...string) {
	b.t.Helper()
	ts := metav1.NewTime(testNow().Add(-time.Minute))
	for _, n := range nodes {
		drClaim(b, n).DeletionTimestamp = &ts
	}
}

// drReplacement adds the replacement of a command in flight: a node of a
// pool with its NodeClaim, launched a minute ago and not initialized.
func drReplacement(b *clusterBuilder, name, pool, typ string, labels map[string]string) *corev1.Node {
	n := b.node(name, pool, typ, "zone-a", "on-demand")
	delete(n.Labels, "karpenter.sh/initialized")
	for k, v := range labels {
		n.Labels[k] = v
	}
	n.CreationTimestamp = metav1.NewTime(testNow().Add(-time.Minute))
	nc := b.claimFor(n)
	nc.Status.Conditions = nil
	return n
}

// drDrifted adds a node of a pool whose NodeClaim is drifted since a time.
func drDrifted(b *clusterBuilder, name, pool, typ string, since time.Time) *corev1.Node {
	n := b.node(name, pool, typ, "zone-a", "on-demand")
	b.drifted(n, since)
	return n
}

// drLive checks that n nodes run at the end of the plan.
func drLive(n int) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		live := 0
		for _, x := range res.Nodes {
			if !x.Disrupted {
				live++
			}
		}
		require.Equal(t, n, live)
	}
}

// drKept returns a kept node's state.
func drKept(t *testing.T, res disruption.Result, name string) disruption.NodeState {
	t.Helper()
	for _, n := range res.Nodes {
		if n.Name == name {
			require.False(t, n.Disrupted, "node %s is disrupted", name)
			return n
		}
	}
	t.Fatalf("no node %s", name)
	return disruption.NodeState{}
}

// drBudgetDetails checks that a kept node's reason is its pool's budget
// for reason, allowing allowed nodes of which disrupting are in flight.
func drBudgetDetails(t *testing.T, res disruption.Result, name string, reason disruption.Reason, allowed, disrupting int) {
	t.Helper()
	n := drKept(t, res, name)
	require.Equal(t, disruption.KeepBudget, n.Reason, "node %s: %s", name, n.Message)
	require.NotNil(t, n.Details)
	require.Equal(t, reason, n.Details.DisruptionReason)
	require.Equal(t, allowed, *n.Details.Allowed)
	require.Equal(t, disrupting, *n.Details.Disrupting)
}

func drStatic(name string, replicas int64, set ...func(*nodepool.NodePool)) nodepool.NodePool {
	np := pool(name, od(), set...)
	np.Spec.Replicas = &replicas
	return np
}

func drNodeLimit(n int64) func(*nodepool.NodePool) {
	return func(np *nodepool.NodePool) {
		if np.Spec.Limits == nil {
			np.Spec.Limits = corev1.ResourceList{}
		}
		np.Spec.Limits[nodepool.ResourceNodes] = *resource.NewQuantity(n, resource.DecimalSI)
	}
}

func drRequire(key string, op corev1.NodeSelectorOperator, minValues int, values ...string) func(*nodepool.NodePool) {
	return func(np *nodepool.NodePool) {
		r := nodepool.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
		if minValues > 0 {
			r.MinValues = &minValues
		}
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, r)
	}
}

func drDriftedOnly(reason string) nodepool.Budget {
	return nodepool.Budget{Nodes: reason, Reasons: []string{string(disruption.ReasonDrifted)}}
}

// drPartitioned: ten drifted nodes n00..n09 of pool "default" (m.large),
// node i labelled test-partition=i and holding a pod that selects it, the
// older the drift the lower the number. The first inFlight nodes are the
// candidates of commands in flight, each beside its replacement.
func drPartitioned(inFlight int) func(b *clusterBuilder) {
	return func(b *clusterBuilder) {
		for i := range 10 {
			name := fmt.Sprintf("n%02d", i)
			n := drDrifted(b, name, "default", "m.large", testNow().Add(-time.Duration(20-i)*time.Hour))
			n.Labels["test-partition"] = fmt.Sprint(i)
			b.pod(fmt.Sprintf("p%02d", i), name, "100m").Spec.NodeSelector = map[string]string{"test-partition": fmt.Sprint(i)}
		}
		for i := range inFlight {
			drReplacement(b, fmt.Sprintf("r%02d", i), "default", "m.small", map[string]string{"test-partition": fmt.Sprint(i)})
		}
		for i := range inFlight {
			drInFlight(b, fmt.Sprintf("n%02d", i))
		}
	}
}

func drPartitionPools() []nodepool.NodePool {
	return []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "3"}), consolidateAfter("Never"),
		drRequire("test-partition", corev1.NodeSelectorOpExists, 0))}
}

// drPartitionOf checks that command i's one replacement carries the
// partition of the pod it replaces.
func drPartitionOf(i int, partition string) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		require.Greater(t, len(res.Commands), i)
		c := res.Commands[i]
		require.Len(t, c.Replacements, 1)
		require.Equal(t, partition, c.Replacements[0].Labels["test-partition"])
	}
}

func TestDriftBudgetsInFlight(t *testing.T) {
	first := []disruption.Option{disruption.WithMaxCommands(1)}
	drRun(t, []drCase{
		{id: "D-136", name: "10 partitioned drifted nodes, budget 3: the oldest is replaced first", pools: drPartitionPools(),
			build: drPartitioned(0), opts: first,
			wantCommands: []string{"Drift replace [n00] -> [m.small/on-demand]"}, check: drPartitionOf(0, "0")},
		{id: "D-136", name: "one command in flight: the second is replaced", pools: drPartitionPools(),
			build: drPartitioned(1), opts: first,
			wantCommands: []string{"Drift replace [n01] -> [m.small/on-demand]"}, check: drPartitionOf(0, "1")},
		{id: "D-136", name: "two commands in flight: the third is replaced", pools: drPartitionPools(),
			build: drPartitioned(2), opts: first,
			wantCommands: []string{"Drift replace [n02] -> [m.small/on-demand]"}, check: drPartitionOf(0, "2")},
		{id: "D-136", name: "three commands in flight (13 NodeClaims): the fourth loop does nothing", pools: drPartitionPools(),
			build: drPartitioned(3),
			check: func(t *testing.T, res disruption.Result) {
				require.Len(t, res.Nodes, 13)
				for _, n := range res.Nodes {
					require.False(t, n.Disrupted, n.Name)
				}
			}},
	})
}

// drThirtyPercent: ten nodes of pool "default" (budget 30%), the first
// five drifted (oldest first) with a 1-cpu pod each that the others have
// room for; the first inFlight are the candidates of deletes in flight.
func drThirtyPercent(inFlight int) func(b *clusterBuilder) {
	return func(b *clusterBuilder) {
		for i := range 10 {
			name := fmt.Sprintf("n%02d", i)
			if i < 5 {
				drDrifted(b, name, "default", "m.large", testNow().Add(-time.Duration(20-i)*time.Hour))
				b.pod(fmt.Sprintf("p%02d", i), name, "1")
			} else {
				b.claimFor(b.node(name, "default", "m.large", "zone-a", "on-demand"))
			}
		}
		for i := range inFlight {
			drInFlight(b, fmt.Sprintf("n%02d", i))
		}
	}
}

func drThirtyPercentPools() []nodepool.NodePool {
	return []nodepool.NodePool{pool("default", od(), budgets(nodepool.Budget{Nodes: "30%"}), consolidateAfter("Never"))}
}

// drTenPools: pools p0..p9 (budget "1", consolidateAfter Never), three
// drifted nodes each (pK-n0, pK-n1 with a 1-cpu pod, pK-n2 empty); the
// nodes named are in flight (empty ones: Drift takes them first).
func drTenPools(inFlight ...string) func(b *clusterBuilder) {
	return func(b *clusterBuilder) {
		for p := range 10 {
			for i := range 3 {
				name := fmt.Sprintf("p%d-n%d", p, i)
				drDrifted(b, name, fmt.Sprintf("p%d", p), "m.large", testNow().Add(-time.Hour))
				if i < 2 {
					b.pod(name+"-pod", name, "1")
				}
			}
		}
		drInFlight(b, inFlight...)
	}
}

func drTenPoolsPools() []nodepool.NodePool {
	var out []nodepool.NodePool
	for p := range 10 {
		out = append(out, pool(fmt.Sprintf("p%d", p), od(), budgets(nodepool.Budget{Nodes: "1"}), consolidateAfter("Never")))
	}
	return out
}

// drDeletes lists "Drift delete [node] -> []" for each node.
func drDeletes(nodes ...string) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, fmt.Sprintf("Drift delete [%s] -> []", n))
	}
	return out
}

func TestDriftBudgets(t *testing.T) {
	first := []disruption.Option{disruption.WithMaxCommands(1)}
	var firstNodes []string
	for p := range 10 {
		firstNodes = append(firstNodes, fmt.Sprintf("p%d-n2", p))
	}
	drRun(t, []drCase{
		{id: "D-160", name: "budget 30% of 10 with two commands in flight: a third", pools: drThirtyPercentPools(),
			build: drThirtyPercent(2), opts: first,
			wantCommands: []string{"Drift delete [n02] -> []"}},
		{id: "D-160", name: "budget 30% of 10 with three commands in flight: nothing more", pools: drThirtyPercentPools(),
			build:    drThirtyPercent(3),
			wantStay: []string{"n03", "n04"}},
		{id: "D-161", name: "10 pools of 3 drifted nodes, budget 1 each: one command per pool", pools: drTenPoolsPools(),
			build: drTenPools(), opts: []disruption.Option{disruption.WithMaxCommands(10)},
			wantCommands: drDeletes(firstNodes...)},
		{id: "D-161", name: "a command in flight in pools p0..p8: the next comes from p9", pools: drTenPoolsPools(),
			build: drTenPools(firstNodes[:9]...), opts: first,
			wantCommands: drDeletes("p9-n2")},
		{id: "D-161", name: "a command in flight in every pool: nothing more (20 NodeClaims stay)", pools: drTenPoolsPools(),
			build: drTenPools(firstNodes...),
			check: func(t *testing.T, res disruption.Result) {
				for _, n := range res.Nodes {
					require.False(t, n.Disrupted, n.Name)
				}
			}},
	})
}

// drGrace gives a node's NodeClaim a terminationGracePeriod.
func drGrace(b *clusterBuilder, node string) {
	drClaim(b, node).Spec.TerminationGracePeriod = &metav1.Duration{Duration: 5 * time.Minute}
}

// drStarted sets when a pod started.
func drStarted(p *corev1.Pod, at time.Time) *corev1.Pod {
	ts := metav1.NewTime(at)
	p.Status.StartTime = &ts
	return p
}

// drMoves checks that command i moves exactly the pods named.
func drMoves(i int, pods ...string) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		require.Greater(t, len(res.Commands), i)
		var got []string
		for _, m := range res.Commands[i].Moves {
			got = append(got, m.Pod)
		}
		require.Equal(t, pods, got)
	}
}

func TestDriftPodBlocks(t *testing.T) {
	never := one(consolidateAfter("Never"))
	drRun(t, []drCase{
		{id: "D-164", name: "a do-not-disrupt pod without grace period: no replacement, the node stays", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt}},
		{id: "D-164", name: "a do-not-disrupt pod under a grace period: the node goes, no replacement for the pod", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
				drGrace(b, "n1")
			},
			wantCommands: []string{"Drift delete [n1] -> []"}, check: drMoves(0)},
		{id: "D-164", name: "a PDB-blocked pod under a grace period: the node goes, no replacement for the pod", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				b.pod("a", "n1", "1500m").Labels["app"] = "web"
				b.pdb("web", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
				drGrace(b, "n1")
			},
			wantCommands: []string{"Drift delete [n1] -> []"}, check: drMoves(0)},
		{id: "D-164", name: "under a grace period only the evictable pod gets replacement capacity", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "true")
				b.pod("b", "n1", "1500m")
				drGrace(b, "n1")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}, check: drMoves(0, "default/b")},
		{id: "D-165", name: "a 2m do-not-disrupt started 1m ago blocks drift", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(drStarted(b.pod("a", "n1", "1500m"), testNow().Add(-time.Minute)), disruption.AnnotationDoNotDisrupt, "2m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt},
			check: func(t *testing.T, res disruption.Result) {
				n := drKept(t, res, "n1")
				require.NotNil(t, n.Details)
				require.Equal(t, testNow().Add(time.Minute), *n.Details.Until)
			}},
		{id: "D-165", name: "once the 2m have passed the node is drifted", pools: never, now: testNow().Add(3 * time.Minute),
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(drStarted(b.pod("a", "n1", "1500m"), testNow()), disruption.AnnotationDoNotDisrupt, "2m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-165", name: "1m and 3m on two pods: after 2m the longest still blocks", pools: never, now: testNow().Add(2 * time.Minute),
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(drStarted(b.pod("a", "n1", "500m"), testNow()), disruption.AnnotationDoNotDisrupt, "1m")
				annotate(drStarted(b.pod("b", "n1", "500m"), testNow()), disruption.AnnotationDoNotDisrupt, "3m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPodDoNotDisrupt},
			check: func(t *testing.T, res disruption.Result) {
				n := drKept(t, res, "n1")
				require.NotNil(t, n.Details)
				require.Equal(t, "default/b", n.Details.Pod)
				require.Equal(t, testNow().Add(3*time.Minute), *n.Details.Until)
			}},
		{id: "D-165", name: "1m and 3m on two pods: after 4m the node is drifted", pools: never, now: testNow().Add(4 * time.Minute),
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				annotate(drStarted(b.pod("a", "n1", "500m"), testNow()), disruption.AnnotationDoNotDisrupt, "1m")
				annotate(drStarted(b.pod("b", "n1", "500m"), testNow()), disruption.AnnotationDoNotDisrupt, "3m")
			},
			wantCommands: []string{"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-165", name: "an invalid do-not-disrupt value does not block drift", pools: never,
			build: func(b *clusterBuilder) {
				drDrifted(b, "n1", "default", "m.large", testNow().Add(-time.Hour))
				drDrifted(b, "n2", "default", "m.large", testNow().Add(-time.Hour))
				annotate(b.pod("a", "n1", "1500m"), disruption.AnnotationDoNotDisrupt, "invalid-format")
				b.pod("b", "n2", "6")
			},
			opts:         []disruption.Option{disruption.WithMaxCommands(1)},
			wantCommands: []string{"Drift delete [n1] -> []"}, check: drMoves(0, "default/a")},
	})
}

func TestDriftOrderAndStatic(t *testing.T) {
	never := one(consolidateAfter("Never"))
	drRun(t, []drCase{
		{id: "D-170", name: "drifted non-empty nodes go one per command, earliest drift first", pools: never,
			build: func(b *clusterBuilder) {
				for i, age := range []time.Duration{time.Hour, 3 * time.Hour, 2 * time.Hour} {
					name := fmt.Sprintf("n%d", i+1)
					drDrifted(b, name, "default", "m.small", testNow().Add(-age))
					b.pod("p"+name, name, "1500m")
				}
			},
			wantCommands: []string{"Drift replace [n2] -> [m.small/on-demand]", "Drift replace [n3] -> [m.small/on-demand]",
				"Drift replace [n1] -> [m.small/on-demand]"}},
		{id: "D-170", name: "the first command is the earliest drift alone", pools: never, opts: []disruption.Option{disruption.WithMaxCommands(1)},
			build: func(b *clusterBuilder) {
				for i, age := range []time.Duration{time.Hour, 3 * time.Hour, 2 * time.Hour} {
					name := fmt.Sprintf("n%d", i+1)
					drDrifted(b, name, "default", "m.small", testNow().Add(-age))
					b.pod("p"+name, name, "1500m")
				}
			},
			wantCommands: []string{"Drift replace [n2] -> [m.small/on-demand]"},
			wantKept:     map[string]disruption.KeepReason{"n3": disruption.KeepLater}},
		{id: "D-171", name: "a static pool's drifted node is StaticDrift's, never Drift's (bare replacement)",
			pools: []nodepool.NodePool{drStatic("static", 1, budgets(all()), consolidateAfter("Never"))},
			build: func(b *clusterBuilder) {
				drDrifted(b, "s1", "static", "m.xlarge", testNow().Add(-time.Hour))
				b.pod("a", "s1", "6")
			},
			wantCommands: []string{"StaticDrift replace [s1] -> [m.small/on-demand]"}},
		{id: "D-171", name: "a static pool StaticDrift holds back (over-scaled) is not drifted by Drift",
			pools: []nodepool.NodePool{drStatic("static", 1, budgets(all()), consolidateAfter("Never"))},
			build: func(b *clusterBuilder) {
				drDrifted(b, "s1", "static", "m.large", testNow().Add(-time.Hour))
				drDrifted(b, "s2", "static", "m.large", testNow().Add(-time.Hour))
				b.pod("a", "s1", "1")
				b.pod("b", "s2", "1")
			},
			wantStay: []string{"s1", "s2"}},
	})
}

// drStaticNodes adds n drifted nodes "<pool>-<i>" to a static pool; those
// named in inFlight are in flight beside a replacement.
func drStaticNodes(pool string, n int, inFlight ...int) func(b *clusterBuilder) {
	return func(b *clusterBuilder) {
		for i := range n {
			drDrifted(b, fmt.Sprintf("%s-%d", pool, i), pool, "m.large", testNow().Add(-time.Hour))
		}
		for _, i := range inFlight {
			drReplacement(b, fmt.Sprintf("%s-r%d", pool, i), pool, "m.small", nil)
		}
		for _, i := range inFlight {
			drInFlight(b, fmt.Sprintf("%s-%d", pool, i))
		}
	}
}

func drAll(builds ...func(b *clusterBuilder)) func(b *clusterBuilder) {
	return func(b *clusterBuilder) {
		for _, f := range builds {
			f(b)
		}
	}
}

// drStaticCommands lists "StaticDrift replace [node] -> [m.small/on-demand]"
// for each node.
func drStaticCommands(nodes ...string) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, fmt.Sprintf("StaticDrift replace [%s] -> [m.small/on-demand]", n))
	}
	return out
}

func TestStaticDrift(t *testing.T) {
	never := consolidateAfter("Never")
	two := []nodepool.NodePool{drStatic("st", 5, budgets(drDriftedOnly("2")), never)}
	twenty := []nodepool.NodePool{drStatic("st", 5, budgets(drDriftedOnly("20%")), never)}
	three := []nodepool.NodePool{drStatic("st1", 4, budgets(drDriftedOnly("1")), never),
		drStatic("st2", 3, budgets(drDriftedOnly("2")), never), drStatic("st3", 2, budgets(drDriftedOnly("100%")), never)}
	drRun(t, []drCase{
		{id: "D-172", name: "budget 2: two commands", pools: two, build: drStaticNodes("st", 5),
			opts: []disruption.Option{disruption.WithMaxCommands(2)}, wantCommands: drStaticCommands("st-0", "st-1")},
		{id: "D-172", name: "budget 2 with one command in flight: a second", pools: two, build: drStaticNodes("st", 5, 0),
			opts: []disruption.Option{disruption.WithMaxCommands(1)}, wantCommands: drStaticCommands("st-1")},
		{id: "D-172", name: "budget 2 with two commands in flight: nothing more", pools: two, build: drStaticNodes("st", 5, 0, 1),
			wantStay: []string{"st-2", "st-3", "st-4"}},
		{id: "D-172", name: "20% of 5 with one command in flight: nothing more", pools: twenty, build: drStaticNodes("st", 5, 0),
			wantStay: []string{"st-1", "st-2", "st-3", "st-4"}},
		{id: "D-172", name: "20% of 5: one command", pools: twenty, build: drStaticNodes("st", 5),
			opts: []disruption.Option{disruption.WithMaxCommands(1)}, wantCommands: drStaticCommands("st-0")},
		{id: "D-172", name: "three static pools with budgets 1, 2 and 100%: 1 + 2 + 2", pools: three,
			build:        drAll(drStaticNodes("st1", 2, 0), drStaticNodes("st2", 2), drStaticNodes("st3", 2)),
			wantCommands: drStaticCommands("st2-0", "st2-1", "st3-0", "st3-1"),
			wantStay:     []string{"st1-1"}},
		{id: "D-173", name: "limit of 5 nodes with 2 of 5 replicas: both drift",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(all()), never, drNodeLimit(5))}, build: drStaticNodes("st", 2),
			wantCommands: drStaticCommands("st-0", "st-1")},
		{id: "D-173", name: "over-scaled pool (2 nodes, 1 replica): nothing",
			pools: []nodepool.NodePool{drStatic("st", 1, budgets(all()), never)}, build: drStaticNodes("st", 2),
			wantStay: []string{"st-0", "st-1"}},
		{id: "D-173", name: "once the pool scaled down to its replicas the drift proceeds",
			pools: []nodepool.NodePool{drStatic("st", 1, budgets(all()), never)},
			build: func(b *clusterBuilder) {
				drStaticNodes("st", 2)(b)
				drInFlight(b, "st-1")
			},
			wantCommands: drStaticCommands("st-0")},
		{id: "D-174", name: "zero replicas: nothing",
			pools: []nodepool.NodePool{drStatic("st", 0, budgets(all()), never)}, build: drStaticNodes("st", 1),
			wantStay: []string{"st-0"}},
		{id: "D-174", name: "no nodes limit: every drifted node of the pool drifts",
			pools: []nodepool.NodePool{drStatic("st", 5, budgets(all()), never)}, build: drStaticNodes("st", 5),
			wantCommands: drStaticCommands("st-0", "st-1", "st-2", "st-3", "st-4")},
		{id: "D-174", name: "pools drift independently: a blocked pool does not stop the others",
			pools: []nodepool.NodePool{drStatic("np1", 3, budgets(all()), never), drStatic("np2", 1, budgets(all()), never),
				drStatic("np3", 2, budgets(all()), never)},
			build:        drAll(drStaticNodes("np1", 2), drStaticNodes("np2", 2), drStaticNodes("np3", 2)),
			wantCommands: drStaticCommands("np1-0", "np1-1", "np3-0", "np3-1"),
			wantStay:     []string{"np2-0", "np2-1"}},
	})
}

// drSpotPool is a spot-only pool "default" with a budget of 100%.
func drSpotPool(set ...func(*nodepool.NodePool)) []nodepool.NodePool {
	return []nodepool.NodePool{pool("default", spot(), append([]func(*nodepool.NodePool){budgets(all())}, set...)...)}
}

var drGate = []disruption.Option{disruption.WithSpotToSpot(disruption.DefaultSpotToSpotMinTypes)}

// drOptions checks that command i has one replacement whose options are
// exactly want (in any order).
func drOptions(i int, want func() []string) func(t *testing.T, res disruption.Result) {
	return func(t *testing.T, res disruption.Result) {
		require.Greater(t, len(res.Commands), i)
		require.Len(t, res.Commands[i].Replacements, 1)
		got := slices.Clone(res.Commands[i].Replacements[0].InstanceTypeOptions)
		w := want()
		slices.Sort(got)
		slices.Sort(w)
		require.Equal(t, w, got)
	}
}

// drEighteen is the catalog of Karpenter's spot-to-spot truncation tests:
// 18 types priced in ascending order, but s16 (past the first 15 in
// catalog order) the cheapest of all.
func drEighteen(t testing.TB) instancetypes.Catalog {
	return drCatalog(t, 18, func(i int) float64 {
		if i == 16 {
			return 0.002
		}
		return drLadder(i)
	})
}

// drSpotNode puts a spot node of type typ in zone-a with a small pod.
func drSpotNode(b *clusterBuilder, name, typ string) *corev1.Node {
	n := b.node(name, "default", typ, "zone-a", "spot")
	b.pod(name+"-pod", name, "500m")
	return n
}

func TestSpotToSpotRules(t *testing.T) {
	eighteen := drEighteen(t) // for the expectations, built like the cases'

	drRun(t, []drCase{
		{id: "D-184", name: "a spot node already among the 15 cheapest (2nd of 20) is not replaced", pools: drSpotPool(), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drCatalog(b.t, 20, drLadder)
				drSpotNode(b, "n1", "s01")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepSpotToSpot},
			check: func(t *testing.T, res disruption.Result) {
				d := drKept(t, res, "n1").Details
				require.NotNil(t, d)
				require.Equal(t, 1, d.CheaperTypes)
				require.Equal(t, 15, d.MinTypes)
			}},
		{id: "D-184", name: "the 16th cheapest of 20 has 15 cheaper types: replaced", pools: drSpotPool(), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drCatalog(b.t, 20, drLadder)
				drSpotNode(b, "n1", "s15")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [s00/spot]"}},
		{id: "D-185", name: "options are sorted by price before truncating: exactly the 15 cheapest, s16 included",
			pools: drSpotPool(), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drEighteen(b.t)
				drSpotNode(b, "n1", "s17")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [s16/spot]"},
			check: drOptions(0, func() []string {
				w := drCheapest(eighteen, "spot", drLadder(17)/2, 15)
				require.Contains(t, w, "s16")
				return w
			})},
		{id: "D-186", name: "minValues 16 on instance types: spot-to-spot keeps 16 options",
			pools: drSpotPool(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drEighteen(b.t)
				drSpotNode(b, "n1", "s17")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [s16/spot]"},
			check:        drOptions(0, func() []string { return drCheapest(eighteen, "spot", drLadder(17)/2, 16) })},
		{id: "D-186", name: "minValues 10 on instance types: spot-to-spot keeps 15 options",
			pools: drSpotPool(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 10)), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drEighteen(b.t)
				drSpotNode(b, "n1", "s17")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [s16/spot]"},
			check:        drOptions(0, func() []string { return drCheapest(eighteen, "spot", drLadder(17)/2, 15) })},
		{id: "D-188", name: "exactly 15 cheaper spot options but minValues 16: not replaced",
			pools: drSpotPool(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)), opts: drGate,
			build: func(b *clusterBuilder) {
				b.catalog = drCatalog(b.t, 18, drLadder)
				drSpotNode(b, "n1", "s15")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper}},
		{id: "D-188", name: "exactly 15 cheaper on-demand options but minValues 16: not replaced",
			pools: one(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)),
			build: func(b *clusterBuilder) {
				b.catalog = drCatalog(b.t, 18, drLadder)
				b.node("n1", "default", "s15", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper}},
		{id: "D-188", name: "16 cheaper on-demand options and minValues 16: replaced",
			pools: one(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)),
			build: func(b *clusterBuilder) {
				b.catalog = drCatalog(b.t, 18, drLadder)
				b.node("n1", "default", "s16", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [s00/on-demand]"}},
	})
}

// drSameTypeCatalog is Karpenter's catalog for the same-type filter and
// minValues: two on-demand types of 4 cpu in zone-a, current at 0.5 and
// other at 0.4.
func drSameTypeCatalog(t testing.TB) instancetypes.Catalog {
	var types []instancetypes.InstanceType
	for _, it := range []struct {
		name  string
		price float64
	}{{"current", 0.5}, {"other", 0.4}} {
		types = append(types, testutil.InstanceType(it.name).CPU("4").Memory("16Gi").Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").Offering("zone-a", "on-demand", it.price).Obj())
	}
	c, err := instancetypes.NewCatalog(types)
	require.NoError(t, err)
	return c
}

// drZonesCatalog is Karpenter's "spot replacement more expensive" catalog:
// the node's type, on-demand at 0.5 in zone-a (no longer available), and a
// spot type at 1.0, 0.2 and 0.4 in zones a, b and c.
func drZonesCatalog(t testing.TB) instancetypes.Catalog {
	cur := testutil.InstanceType("current").CPU("4").Memory("16Gi").Pods("110").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").UnavailableOffering("zone-a", "on-demand", 0.5).Obj()
	rep := testutil.InstanceType("spot-replacement").CPU("4").Memory("16Gi").Pods("110").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
		Offering("zone-a", "spot", 1.0).Offering("zone-b", "spot", 0.2).Offering("zone-c", "spot", 0.4).Obj()
	c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{cur, rep})
	require.NoError(t, err)
	return c
}

// drLocalVolume gives pod p a claim bound to a local volume whose node
// affinity pins it by hostname to node.
func drLocalVolume(b *clusterBuilder, p *corev1.Pod, node string) {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "local-path"}, Provisioner: "kubernetes.io/no-provisioner"}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-" + node}, Spec: corev1.PersistentVolumeSpec{
		StorageClassName:       sc.Name,
		Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
		AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
	}}
	pvc := testutil.PVC("data-"+p.Name, pv.Name, sc.Name)
	pvc.Namespace = p.Namespace
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}})
	b.c.StorageClasses = append(b.c.StorageClasses, sc)
	b.c.PVs = append(b.c.PVs, pv)
	b.c.PVCs = append(b.c.PVCs, pvc)
}

// drPDBPods puts three pods labelled app=web on a node, under a
// PodDisruptionBudget allowing no disruption.
func drPDBPods(b *clusterBuilder, node string) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range 3 {
		p := b.pod(fmt.Sprintf("web-%d", i), node, "100m")
		p.Labels["app"] = "web"
		out = append(out, p)
	}
	b.pdb("web", "default", map[string]string{"app": "web"}, intstr.FromInt32(0), 0)
	return out
}

// drAlwaysAllow makes the last PodDisruptionBudget let unhealthy pods go
// and the pods unready.
func drAlwaysAllow(b *clusterBuilder, pods []*corev1.Pod) {
	policy := policyv1.AlwaysAllow
	b.c.PodDisruptionBudgets[len(b.c.PodDisruptionBudgets)-1].Spec.UnhealthyPodEvictionPolicy = &policy
	for _, p := range pods {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	}
}

// drCandidate is the node the replace behaviours try: on-demand m.xlarge
// of testCatalog, or (spot) spot s19 of a 20-type catalog with the gate on.
type drCandidate struct {
	label string
	spot  bool
}

var drCandidates = []drCandidate{{"on-demand", false}, {"spot", true}}

func (c drCandidate) pools(set ...func(*nodepool.NodePool)) []nodepool.NodePool {
	if c.spot {
		return drSpotPool(set...)
	}
	return one(set...)
}

func (c drCandidate) opts() []disruption.Option {
	if c.spot {
		return drGate
	}
	return nil
}

// build sets the cluster's catalog: testCatalog, or 20 types for spot
// (drCatalog, drLadder prices).
func (c drCandidate) build(b *clusterBuilder) {
	if c.spot {
		b.catalog = drCatalog(b.t, 20, drLadder)
	}
}

// node adds the candidate: the most expensive type of the catalog.
func (c drCandidate) node(b *clusterBuilder, name string) *corev1.Node {
	if c.spot {
		return b.node(name, "default", "s19", "zone-a", "spot")
	}
	return b.node(name, "default", "m.xlarge", "zone-a", "on-demand")
}

// small adds a node of the cheapest type, filled by a pod.
func (c drCandidate) small(b *clusterBuilder, name string) *corev1.Node {
	if c.spot {
		n := b.node(name, "default", "s00", "zone-a", "spot")
		b.pod(name+"-fill", name, "3500m")
		return n
	}
	n := b.node(name, "default", "m.small", "zone-a", "on-demand")
	b.pod(name+"-fill", name, "1500m")
	return n
}

func (c drCandidate) replaced(nodes ...string) []string {
	to := "m.small/on-demand"
	if c.spot {
		to = "s00/spot"
	}
	return []string{fmt.Sprintf("SingleNodeConsolidation replace %v -> [%s]", nodes, to)}
}

func TestReplaceRules(t *testing.T) {
	var cases []drCase
	cases = append(cases, drCase{id: "D-137", name: "a StatefulSet pod with a local volume pinned to the node: replaced (hostname ignored)",
		pools: one(),
		build: func(b *clusterBuilder) {
			b.node("n1", "default", "m.xlarge", "zone-a", "on-demand")
			p := ownedBy(b.pod("db-0", "n1", "500m"), "apps/v1", "StatefulSet", "db")
			drLocalVolume(b, p, "n1")
		},
		wantCommands: []string{"SingleNodeConsolidation replace [n1] -> [m.small/on-demand]"}})
	for _, c := range drCandidates {
		cases = append(cases,
			drCase{id: "D-189", name: c.label + ": a pool resolving no instance type does not stop replacing this pool's node",
				pools: append(c.pools(), pool("none", od(), budgets(all()), drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, 0, "no-such-type"))),
				opts:  c.opts(),
				build: func(b *clusterBuilder) {
					c.build(b)
					c.node(b, "n1")
					b.pod("a", "n1", "500m")
				},
				wantCommands: c.replaced("n1")},
			drCase{id: "D-190", name: c.label + ": a fully blocking PDB on the pods: no replacement", pools: c.pools(), opts: c.opts(),
				build: func(b *clusterBuilder) {
					c.build(b)
					c.node(b, "n1")
					drPDBPods(b, "n1")
				},
				wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepPDB}},
			drCase{id: "D-191", name: c.label + ": a blocking PDB with AlwaysAllow and unready pods: replaced", pools: c.pools(), opts: c.opts(),
				build: func(b *clusterBuilder) {
					c.build(b)
					c.node(b, "n1")
					drAlwaysAllow(b, drPDBPods(b, "n1"))
				},
				wantCommands: c.replaced("n1")},
			drCase{id: "D-193", name: c.label + ": of two nodes the one annotated do-not-disrupt stays, the other is replaced",
				pools: c.pools(), opts: c.opts(),
				build: func(b *clusterBuilder) {
					c.build(b)
					c.node(b, "n1")
					b.pod("a", "n1", "500m")
					b.pod("b", "n1", "500m")
					annotate(c.small(b, "n2"), disruption.AnnotationDoNotDisrupt, "true")
				},
				wantCommands: c.replaced("n1"),
				wantKept:     map[string]disruption.KeepReason{"n2": disruption.KeepDoNotDisrupt},
				check:        drLive(2)},
			drCase{id: "D-193", name: c.label + ": of two nodes the one with a do-not-disrupt pod stays, the other is replaced",
				pools: c.pools(), opts: c.opts(),
				build: func(b *clusterBuilder) {
					c.build(b)
					c.node(b, "n1")
					b.pod("a", "n1", "500m")
					b.pod("b", "n1", "500m")
					c.small(b, "n2")
					annotate(b.pod("keep", "n2", "100m"), disruption.AnnotationDoNotDisrupt, "true")
				},
				wantCommands: c.replaced("n1"),
				wantKept:     map[string]disruption.KeepReason{"n2": disruption.KeepPodDoNotDisrupt}},
		)
	}
	cases = append(cases,
		drCase{id: "D-187", name: "same-type filter breaking minValues: multi-node gives up, one node is deleted (2 left)",
			pools: one(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 2)),
			build: func(b *clusterBuilder) {
				b.catalog = drSameTypeCatalog(b.t)
				for i := range 3 {
					b.node(fmt.Sprintf("n%d", i), "default", "current", "zone-a", "on-demand")
				}
				b.pod("a", "n0", "2")
				b.pod("b", "n1", "2")
				b.pod("c", "n2", "2")
				b.pod("d", "n2", "2")
			},
			wantCommands: []string{"SingleNodeConsolidation delete [n0] -> []"},
			wantKept:     map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper, "n2": disruption.KeepNoCheaper},
			check:        drLive(2)},
		drCase{id: "D-194", name: "on-demand 0.5 vs a spot type at 1.0, 0.2 and 0.4 by zone: not replaced (worst price 1.0)",
			pools: []nodepool.NodePool{pool("default", []string{"spot", "on-demand"}, budgets(all()))},
			build: func(b *clusterBuilder) {
				b.catalog = drZonesCatalog(b.t)
				b.node("n1", "default", "current", "zone-a", "on-demand")
				b.pod("a", "n1", "500m")
			},
			wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper},
			check: func(t *testing.T, res disruption.Result) {
				d := drKept(t, res, "n1").Details
				require.NotNil(t, d)
				require.Equal(t, 0.5, d.Price)
				require.NotNil(t, d.ReplacementPrice)
				require.Equal(t, 1.0, *d.ReplacementPrice) // zone-a's spot price, not zone-b's 0.2
			}},
	)
	drRun(t, cases)
}

// TestMinValuesBestEffort is D-227: the BestEffort minValues policy lets
// provisioning launch a NodeClaim short of minValues, never consolidation:
// a replacement keeps every minValues of its NodePool under either search.
func TestMinValuesBestEffort(t *testing.T) {
	bestEffort := disruption.WithSchedulerOptions(scheduler.WithMinValuesPolicy(scheduler.MinValuesBestEffort))
	// onDemandOf is an on-demand node n1 of type typ (of the 18-type
	// ladder) with a small pod.
	onDemandOf := func(typ string) func(*clusterBuilder) {
		return func(b *clusterBuilder) {
			b.catalog = drCatalog(b.t, 18, drLadder)
			b.node("n1", "default", typ, "zone-a", "on-demand")
			b.pod("a", "n1", "500m")
		}
	}
	var cases []drCase
	for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
		opts, method := []disruption.Option{disruption.WithSearch(search), bestEffort}, "SingleNodeConsolidation"
		if search == disruption.SearchGlobal {
			// Its least saving (a tenth of the node's price) is off:
			// the rule under test is minValues.
			opts, method = append(opts, disruption.WithMinSavings(0, 0)), "GlobalConsolidation"
		}
		cases = append(cases,
			drCase{id: "D-227", name: string(search) + ": 15 cheaper on-demand options, minValues 16 under BestEffort: not replaced",
				pools:    one(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)),
				opts:     opts,
				build:    onDemandOf("s15"),
				wantKept: map[string]disruption.KeepReason{"n1": disruption.KeepNoCheaper}},
			drCase{id: "D-227", name: string(search) + ": 16 cheaper on-demand options, minValues 16 under BestEffort: replaced with all 16",
				pools:        one(drRequire("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists, 16)),
				opts:         opts,
				build:        onDemandOf("s16"),
				wantCommands: []string{method + " replace [n1] -> [s00/on-demand]"},
				check: func(t *testing.T, res disruption.Result) {
					require.Len(t, res.Commands, 1)
					require.Len(t, res.Commands[0].Replacements, 1)
					require.Len(t, res.Commands[0].Replacements[0].InstanceTypeOptions, 16)
				}})
	}
	drRun(t, cases)
}
