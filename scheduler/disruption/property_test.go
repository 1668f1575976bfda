package disruption_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// randomCase is one random cluster of the property tests.
type randomCase struct {
	cluster disruption.Cluster
	pools   []nodepool.NodePool
}

// randomCluster makes a small cluster: one or two NodePools with random
// disruption settings, 2–7 nodes (a few deleting, uninitialized or
// unmanaged), pods that fit their nodes (some spread over zones, some with
// hostname anti-affinity, some do-not-disrupt), a DaemonSet, pending pods
// and PodDisruptionBudgets.
func randomCluster(r *rand.Rand, catalog instancetypes.Catalog) randomCase {
	g := &gen{r: r, catalog: catalog}
	g.pools()
	g.daemonSet()
	for i := range 2 + r.IntN(6) {
		g.node(fmt.Sprintf("node-%d", i))
	}
	for i := range r.IntN(3) {
		g.pending(fmt.Sprintf("pending-%d", i))
	}
	g.pdbs()
	return randomCase{cluster: g.c, pools: g.nps}
}

type gen struct {
	r       *rand.Rand
	catalog instancetypes.Catalog
	c       disruption.Cluster
	nps     []nodepool.NodePool
	pods    int
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) pools() {
	for i := range 1 + g.r.IntN(2) {
		b := testutil.NodePool(fmt.Sprintf("pool-%d", i))
		cts := [][]string{{"on-demand"}, {"spot"}, {"on-demand", "spot"}}[g.r.IntN(3)]
		b = b.Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, cts...)
		b = b.ConsolidationPolicy(g.pick("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty", "Balanced"))
		b = b.ConsolidateAfter(g.pick("0s", "0s", "30s", "Never"))
		switch g.r.IntN(4) {
		case 0:
			b = b.Budget(nodepool.Budget{Nodes: "100%"})
		case 1:
			b = b.Budget(nodepool.Budget{Nodes: g.pick("1", "2", "50%")})
		case 2:
			s, d := "0 * * * *", metav1.Duration{Duration: 30 * time.Minute}
			b = b.Budget(nodepool.Budget{Nodes: "0", Schedule: &s, Duration: &d}).Budget(nodepool.Budget{Nodes: "100%"})
		}
		g.nps = append(g.nps, b.Obj())
	}
}

func (g *gen) daemonSet() {
	p := testutil.Pod("agent").CPU("50m").Memory("64Mi").Toleration("", corev1.TolerationOpExists, "", "").Obj()
	g.c.DaemonSets = append(g.c.DaemonSets, testutil.DaemonSet("agent", p))
}

// node adds a node of a random pool, type, zone and capacity type the pool
// allows, then pods that fit it.
func (g *gen) node(name string) {
	np := g.nps[g.r.IntN(len(g.nps))]
	cts := np.Spec.Template.Spec.Requirements[0].Values
	typ := g.pick("m.small", "m.medium", "m.large", "m.xlarge")
	it, _ := g.catalog.Get(typ)
	n := testutil.Node(name).Label("node.kubernetes.io/instance-type", typ).
		Label("topology.kubernetes.io/zone", g.pick("zone-a", "zone-b")).Label("karpenter.sh/capacity-type", cts[g.r.IntN(len(cts))]).
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").Obj()
	n.Status.Capacity, n.Status.Allocatable = it.Capacity.DeepCopy(), it.Allocatable().DeepCopy()
	n.CreationTimestamp = metav1.NewTime(testNow().Add(-48 * time.Hour))
	switch g.r.IntN(12) {
	case 0: // unmanaged
	case 1:
		n.Labels["karpenter.sh/nodepool"] = np.Name // not initialized
	case 2:
		n.Labels["karpenter.sh/nodepool"], n.Labels["karpenter.sh/initialized"] = np.Name, "true"
		ts := metav1.NewTime(testNow().Add(-time.Minute))
		n.DeletionTimestamp = &ts
	default:
		n.Labels["karpenter.sh/nodepool"], n.Labels["karpenter.sh/initialized"] = np.Name, "true"
	}
	if g.r.IntN(10) == 0 {
		n.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	}
	if g.r.IntN(4) == 0 {
		nc := disruption.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: n.CreationTimestamp}}
		nc.Status.NodeName = name
		nc.Status.LastPodEventTime = metav1.NewTime(testNow().Add(-time.Duration(g.r.IntN(120)) * time.Second))
		if g.r.IntN(6) == 0 {
			nc.Status.Conditions = []metav1.Condition{{Type: disruption.ConditionDrifted, Status: metav1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(testNow().Add(-time.Hour)), Reason: "NodePoolDrifted"}}
		}
		if _, managed := n.Labels["karpenter.sh/nodepool"]; managed {
			g.c.NodeClaims = append(g.c.NodeClaims, nc)
		}
	}
	g.c.Nodes = append(g.c.Nodes, n)
	g.fill(n, it)
}

// fill binds the DaemonSet pod and pods that fit the node.
func (g *gen) fill(n *corev1.Node, it *instancetypes.InstanceType) {
	ds := g.c.DaemonSets[0]
	dp := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "agent-" + n.Name, Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: ptrTo(true)}}},
		Spec: *ds.Spec.Template.Spec.DeepCopy()}
	dp.Spec.NodeName = n.Name
	g.c.Pods = append(g.c.Pods, dp)
	alloc := it.Allocatable()
	free := alloc.Cpu().MilliValue() - 50
	memFree := alloc.Memory().Value() - 64<<20
	for range g.r.IntN(6) {
		p := g.randomPod(fmt.Sprintf("p-%d", g.pods))
		req := podrequests.OfPod(p)
		if req.Cpu().MilliValue() > free || req.Memory().Value() > memFree {
			continue
		}
		free -= req.Cpu().MilliValue()
		memFree -= req.Memory().Value()
		p.Spec.NodeName = n.Name
		p.Status.Phase = corev1.PodRunning
		g.c.Pods = append(g.c.Pods, p)
	}
}

func (g *gen) randomPod(name string) *corev1.Pod {
	g.pods++
	app := g.pick("a", "b", "c")
	b := testutil.Pod(name).CPU(g.pick("100m", "250m", "500m", "1", "1500m")).Memory(g.pick("256Mi", "512Mi", "1Gi")).
		Label("app", app).OwnedBy("ReplicaSet", "rs-"+app)
	switch g.r.IntN(10) {
	case 0:
		b = b.Spread("topology.kubernetes.io/zone", 1, corev1.DoNotSchedule, map[string]string{"app": app})
	case 1:
		b = b.PodAntiAffinity("kubernetes.io/hostname", map[string]string{"app": app})
	}
	p := b.Obj()
	switch g.r.IntN(25) {
	case 0:
		p.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": g.pick("true", "5m", "banana")}
		start := metav1.NewTime(testNow().Add(-time.Duration(g.r.IntN(10)) * time.Minute))
		p.Status.StartTime = &start
	case 1:
		prio := int32(-100000000)
		p.Spec.Priority = &prio
	}
	return p
}

func (g *gen) pending(name string) {
	p := g.randomPod(name)
	p.Spec.Affinity = nil
	p.Spec.TopologySpreadConstraints = nil
	g.c.Pods = append(g.c.Pods, p)
}

func (g *gen) pdbs() {
	if g.r.IntN(3) != 0 {
		return
	}
	b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb-a", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}}}
	v := intstr.FromInt32(int32(g.r.IntN(2)))
	b.Spec.MaxUnavailable = &v
	g.c.PodDisruptionBudgets = append(g.c.PodDisruptionBudgets, b)
}

func ptrTo[T any](v T) *T { return &v }

// checkCommands applies a plan's commands one by one to the cluster and,
// before each, checks the command's placements with verify.Plan on
// the cluster as the commands before it leave it (the moved pods and the
// pending pods it places, over the remaining nodes); at the end, every pod
// is on a node of the cluster or pending, and none was lost.
func checkCommands(t *testing.T, label string, c randomCase, catalog instancetypes.Catalog, res disruption.Result, opts ...scheduler.Option) {
	t.Helper()
	cur := c.cluster
	for i, cmd := range res.Commands {
		pods, plan, vopts := verifyInput(cur, cmd)
		err := verify.Plan(pods, c.pools, catalog, plan, append(vopts, opts...)...)
		var ve *verify.Error
		if errors.As(err, &ve) {
			t.Fatalf("%s: command %d (%s %s): %v", label, i+1, cmd.Method, cmd.Decision, ve)
		}
		require.NoError(t, err, label)
		next, err := disruption.Apply(cur, cmd, c.pools, catalog, testNow())
		require.NoError(t, err, label)
		cur = next
	}
	checkAccounting(t, label, c.cluster, cur)
}

// verifyInput is what verify.Plan needs to check a command: its
// placed pods (unbound), its plan, and the remaining nodes with their pods.
func verifyInput(c disruption.Cluster, cmd disruption.Command) ([]*corev1.Pod, scheduler.Result, []scheduler.Option) {
	leaving := map[string]bool{}
	for _, n := range cmd.Nodes {
		leaving[n.Name] = true
	}
	var nodes []*corev1.Node
	for _, n := range c.Nodes {
		if !leaving[n.Name] && n.DeletionTimestamp == nil {
			nodes = append(nodes, n)
		}
	}
	kept := map[string]bool{}
	for _, n := range nodes {
		kept[n.Name] = true
	}
	moved := map[string]string{}
	for _, mv := range cmd.Moves {
		moved[mv.Pod] = mv.To
	}
	var pods, bound []*corev1.Pod
	for _, p := range c.Pods {
		key := p.Namespace + "/" + p.Name
		if _, ok := moved[key]; ok {
			u := p.DeepCopy()
			u.Spec.NodeName = ""
			pods = append(pods, u)
		} else if kept[p.Spec.NodeName] {
			bound = append(bound, p)
		}
	}
	claims := map[string]bool{}
	plan := scheduler.Result{NodeClaims: cmd.Replacements, ExistingNodes: []scheduler.NodePlacement{}, PodErrors: []scheduler.PodError{}}
	for _, nc := range cmd.Replacements {
		claims[nc.Name] = true
		plan.Summary.PricePerHour += nc.Price
	}
	byNode := map[string][]string{}
	for _, mv := range cmd.Moves {
		if !claims[mv.To] {
			byNode[mv.To] = append(byNode[mv.To], mv.Pod)
		}
	}
	for _, name := range sortedKeys(byNode) {
		plan.ExistingNodes = append(plan.ExistingNodes, scheduler.NodePlacement{Name: name, Pods: byNode[name]})
	}
	plan.Summary.Pods, plan.Summary.Scheduled, plan.Summary.NodeClaims = len(pods), len(pods), len(cmd.Replacements)
	opts := []scheduler.Option{scheduler.WithExistingNodes(nodes, bound), scheduler.WithDaemonSets(c.DaemonSets),
		scheduler.WithVolumes(c.PVCs, c.PVs, c.StorageClasses), scheduler.WithNamespaces(c.Namespaces)}
	return pods, plan, opts
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkAccounting: every pod of the input that a controller re-creates is,
// at the end, bound to a node of the cluster or pending, exactly once.
func checkAccounting(t *testing.T, label string, start, end disruption.Cluster) {
	t.Helper()
	nodes := map[string]bool{}
	for _, n := range end.Nodes {
		nodes[n.Name] = true
	}
	seen := map[string]bool{}
	for _, p := range end.Pods {
		key := p.Namespace + "/" + p.Name
		require.False(t, seen[key], "%s: pod %s twice", label, key)
		seen[key] = true
		if p.Spec.NodeName != "" {
			require.True(t, nodes[p.Spec.NodeName], "%s: pod %s on node %s, which is gone", label, key, p.Spec.NodeName)
		}
	}
	for _, p := range start.Pods {
		key := p.Namespace + "/" + p.Name
		daemon := slices.ContainsFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" })
		if !daemon && p.DeletionTimestamp == nil {
			require.True(t, seen[key], "%s: pod %s was lost", label, key)
		}
	}
}

// Wider sweeps than CI's: go test ./scheduler/disruption -run
// TestPlanProperties -plan.from 1000 -plan.seeds 11000 checks seeds
// 1000-11999 of each search.
var (
	planFrom  = flag.Uint64("plan.from", 0, "first seed of TestPlanProperties")
	planSeeds = flag.Uint64("plan.seeds", 1000, "seeds of TestPlanProperties")
)

// TestPlanProperties runs Plan on 1,000 random clusters per search: every
// command verifies, no pod is lost, the output is byte-identical when the
// input is shuffled, and the shortcuts (the view, the cache, the checks
// before simulating) change no command.
func TestPlanProperties(t *testing.T) {
	catalog := testCatalog(t)
	for _, search := range []disruption.Search{disruption.SearchKarpenter, disruption.SearchGlobal} {
		t.Run(string(search), func(t *testing.T) {
			t.Parallel()
			prefiltered := 0
			defer func() {
				if prefiltered == 0 && !t.Failed() {
					t.Errorf("no plan ruled a consolidation out before simulating it: the checks went untested")
				}
			}()
			for seed := *planFrom; seed < *planFrom+*planSeeds; seed++ {
				r := rand.New(rand.NewPCG(seed, 11))
				c := randomCluster(r, catalog)
				res, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), disruption.WithSearch(search))
				require.NoError(t, err, "seed %d", seed)
				checkCommands(t, fmt.Sprintf("seed %d", seed), c, catalog, res)
				if seed%10 == 0 {
					checkShortcuts(t, seed, c, catalog, res, search)
				}
				if res.Stats.Prefiltered > 0 {
					prefiltered++
					checkPrefilter(t, seed, c, catalog, res, search)
				}
				shuffled := shuffle(r, c)
				again, err := disruption.Plan(shuffled.cluster, shuffled.pools, catalog, testNow(), disruption.WithSearch(search))
				require.NoError(t, err)
				a, _ := json.Marshal(res)
				b, _ := json.Marshal(again)
				if string(a) != string(b) {
					t.Fatalf("seed %d: output changes with the input order:\n%s\n%s", seed, a, b)
				}
			}
		})
	}
}

func shuffle(r *rand.Rand, c randomCase) randomCase {
	out := c
	out.cluster.Nodes = slices.Clone(c.cluster.Nodes)
	out.cluster.Pods = slices.Clone(c.cluster.Pods)
	out.pools = slices.Clone(c.pools)
	r.Shuffle(len(out.cluster.Nodes), func(i, j int) {
		out.cluster.Nodes[i], out.cluster.Nodes[j] = out.cluster.Nodes[j], out.cluster.Nodes[i]
	})
	r.Shuffle(len(out.cluster.Pods), func(i, j int) { out.cluster.Pods[i], out.cluster.Pods[j] = out.cluster.Pods[j], out.cluster.Pods[i] })
	r.Shuffle(len(out.pools), func(i, j int) { out.pools[i], out.pools[j] = out.pools[j], out.pools[i] })
	return out
}

// checkShortcuts: the reduced view must not change a plan (the whole
// cluster given to every simulation gives the same bytes), and the failure
// cache must not change the commands (a cached reason may name another pod
// than a fresh simulation would).
func checkShortcuts(t *testing.T, seed uint64, c randomCase, catalog instancetypes.Catalog, res disruption.Result, search disruption.Search) {
	t.Helper()
	plan := func(opts ...disruption.Option) []byte {
		out, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), append(opts, disruption.WithSearch(search))...)
		require.NoError(t, err)
		b, _ := json.Marshal(out)
		return b
	}
	mine, _ := json.Marshal(res)
	if one := plan(disruption.WithParallelism(1)); string(one) != string(mine) {
		t.Fatalf("seed %d: the plan depends on the parallelism:\n%s\n%s", seed, mine, one)
	}
	full := plan(disruption.WithFullSimulation(), disruption.WithoutCache())
	view := plan(disruption.WithoutCache())
	if string(full) != string(view) {
		t.Fatalf("seed %d: the view changes the plan:\n%s\n%s", seed, full, view)
	}
	var uncached disruption.Result
	require.NoError(t, json.Unmarshal(view, &uncached))
	a, _ := json.Marshal(res.Commands)
	b, _ := json.Marshal(uncached.Commands)
	if string(a) != string(b) {
		t.Fatalf("seed %d: the cache changes the commands:\n%s\n%s", seed, a, b)
	}
}

// checkPrefilter: the checks that rule a consolidation out before its
// simulation (prefilter.go) change no command; the reason a node stays may
// differ (the check names the rule it proves, the simulation the first it
// meets).
func checkPrefilter(t *testing.T, seed uint64, c randomCase, catalog instancetypes.Catalog, res disruption.Result, search disruption.Search) {
	t.Helper()
	unfiltered, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), disruption.WithSearch(search), disruption.WithoutPrefilter())
	require.NoError(t, err)
	a, _ := json.Marshal(res.Commands)
	b, _ := json.Marshal(unfiltered.Commands)
	if string(a) != string(b) {
		t.Fatalf("seed %d: the checks before simulating change the commands:\n%s\n%s", seed, b, a)
	}
}

// TestBoundedDestinations: with the global search's simulations bound to
// very few destination nodes (so that the bound binds on small clusters),
// every command still verifies against the whole cluster, no pod is lost,
// and the plan does not depend on the input order.
func TestBoundedDestinations(t *testing.T) {
	catalog := testCatalog(t)
	opts := []disruption.Option{disruption.WithSearch(disruption.SearchGlobal), disruption.WithDestinations(1)}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 13))
		c := randomCluster(r, catalog)
		res, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), opts...)
		require.NoError(t, err, "seed %d", seed)
		checkCommands(t, fmt.Sprintf("seed %d", seed), c, catalog, res)
		shuffled := shuffle(r, c)
		again, err := disruption.Plan(shuffled.cluster, shuffled.pools, catalog, testNow(), opts...)
		require.NoError(t, err)
		a, _ := json.Marshal(res)
		b, _ := json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("seed %d: output changes with the input order:\n%s\n%s", seed, a, b)
		}
	}
}

// lowPriceSeeds: go test ./scheduler/disruption -run
// TestLowerPriceProperties -lowprice.seeds 5000 sweeps wider than CI.
var lowPriceSeeds = flag.Uint64("lowprice.seeds", 300, "seeds of TestLowerPriceProperties")

// TestLowerPriceProperties: with PreferLowerPrice every command verifies,
// no pod is lost, the plan does not depend on the input order, and it
// never ends dearer than the default PreferFewerDisruptions (it keeps the
// cheaper of two convergences, one of which is the default's).
func TestLowerPriceProperties(t *testing.T) {
	catalog := testCatalog(t)
	opts := []disruption.Option{disruption.WithSearch(disruption.SearchGlobal), disruption.WithPrefer(disruption.PreferLowerPrice)}
	differ := 0
	for seed := range *lowPriceSeeds {
		r := rand.New(rand.NewPCG(seed, 17))
		c := randomCluster(r, catalog)
		res, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), opts...)
		require.NoError(t, err, "seed %d", seed)
		checkCommands(t, fmt.Sprintf("seed %d", seed), c, catalog, res)
		def, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), disruption.WithSearch(disruption.SearchGlobal))
		require.NoError(t, err, "seed %d", seed)
		require.LessOrEqual(t, res.Summary.PricePerHourAfter, def.Summary.PricePerHourAfter, "seed %d", seed)
		a, _ := json.Marshal(res.Commands)
		b, _ := json.Marshal(def.Commands)
		if string(a) != string(b) {
			differ++
		}
		shuffled := shuffle(r, c)
		again, err := disruption.Plan(shuffled.cluster, shuffled.pools, catalog, testNow(), opts...)
		require.NoError(t, err)
		a, _ = json.Marshal(res)
		b, _ = json.Marshal(again)
		if string(a) != string(b) {
			t.Fatalf("seed %d: output changes with the input order:\n%s\n%s", seed, a, b)
		}
	}
	t.Logf("%d of %d plans differ from the default's", differ, *lowPriceSeeds)
	if differ == 0 {
		t.Errorf("no plan differs from the default's: the unit order went untested")
	}
}

// FuzzPlan: Plan on random clusters drawn from the fuzzer's two seeds
// (randomCluster), under either search and, for the global one, either
// preference, and spot-to-spot (one cheaper type enough) or not: never an error or a panic, and every
// command verifies with no pod lost (checkCommands). `go test -fuzz
// FuzzPlan` explores seeds beyond TestPlanProperties' range.
func FuzzPlan(f *testing.F) {
	catalog := testCatalog(f)
	for mode := range uint8(6) {
		f.Add(1000+uint64(mode), uint64(11), mode)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, mode uint8) {
		r := rand.New(rand.NewPCG(s1, s2))
		c := randomCluster(r, catalog)
		opts := []disruption.Option{disruption.WithSearch(disruption.SearchKarpenter)}
		if mode%3 != 0 {
			opts = []disruption.Option{disruption.WithSearch(disruption.SearchGlobal)}
			if mode%3 == 2 {
				opts = append(opts, disruption.WithPrefer(disruption.PreferLowerPrice))
			}
		}
		if mode%2 == 1 {
			opts = append(opts, disruption.WithSpotToSpot(1)) // the test catalog has four types
		}
		res, err := disruption.Plan(c.cluster, c.pools, catalog, testNow(), opts...)
		require.NoError(t, err, "seeds %d, %d, mode %d", s1, s2, mode)
		checkCommands(t, fmt.Sprintf("seeds %d, %d, mode %d", s1, s2, mode), c, catalog, res)
	})
}
