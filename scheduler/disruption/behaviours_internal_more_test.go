package disruption

import (
	"fmt"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// The Balanced scoring (B.10: D-240, D-242 to D-247) through its own
// seams (score, totalsOf/poolTotals, approve, savingsRatio, savings), and
// the order of the drift reasons (D-251, which Result does not show).

func dmNow() time.Time { return time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC) }

// dmRFCCatalog holds BAL_T's instance type: m7i.xlarge at 4.84 on demand in
// test-zone-1 (4 cpu).
func dmRFCCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	it := testutil.InstanceType("m7i.xlarge").CPU("4").Memory("16Gi").Pods("110").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
		Offering("test-zone-1", "on-demand", 4.84).Obj()
	c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{it})
	require.NoError(t, err)
	return c
}

// dmCluster builds a Cluster for newModel.
type dmCluster struct {
	t *testing.T
	c Cluster
}

// node adds an initialized node of a pool (typ "" leaves the
// instance-type label out), created a day ago.
func (b *dmCluster) node(name, pool, typ, zone string) *corev1.Node {
	n := testutil.Node(name).Label("karpenter.sh/nodepool", pool).Label("topology.kubernetes.io/zone", zone).
		Label("karpenter.sh/capacity-type", "on-demand").Label("karpenter.sh/initialized", "true").Obj()
	if typ != "" {
		n.Labels["node.kubernetes.io/instance-type"] = typ
	}
	n.CreationTimestamp = metav1.NewTime(dmNow().Add(-24 * time.Hour))
	b.c.Nodes = append(b.c.Nodes, n)
	return n
}

// pods adds n running ReplicaSet pods of 100m on a node.
func (b *dmCluster) pods(node string, n int) {
	for i := range n {
		p := testutil.Pod(fmt.Sprintf("%s-p%d", node, i)).CPU("100m").OwnedBy("ReplicaSet", "rs").NodeName(node).Obj()
		p.Status.Phase = corev1.PodRunning
		b.c.Pods = append(b.c.Pods, p)
	}
}

// claim adds the NodeClaim of a node, initialized a day ago.
func (b *dmCluster) claim(n *corev1.Node) *NodeClaim {
	nc := NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: n.CreationTimestamp}}
	nc.Status.NodeName = n.Name
	nc.Status.Conditions = []metav1.Condition{{Type: ConditionInitialized, Status: metav1.ConditionTrue, LastTransitionTime: n.CreationTimestamp}}
	b.c.NodeClaims = append(b.c.NodeClaims, nc)
	return &b.c.NodeClaims[len(b.c.NodeClaims)-1]
}

func (b *dmCluster) model(pools []nodepool.NodePool, catalog instancetypes.Catalog) *model {
	b.t.Helper()
	cfg, err := resolve(nil)
	require.NoError(b.t, err)
	m, err := newModel(b.c, pools, catalog, dmNow(), cfg)
	require.NoError(b.t, err)
	return m
}

func dmPool(name, policy string, set ...func(*testutil.NodePoolBuilder)) nodepool.NodePool {
	b := testutil.NodePool(name).ConsolidationPolicy(policy).Budget(nodepool.Budget{Nodes: "100%"})
	for _, f := range set {
		f(b)
	}
	return b.Obj()
}

func dmNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// TestDMBalancedScoreFunction: D-240 (scale invariance) and D-242 (an
// on-demand and a spot pool moving the same share score the same).
func TestDMBalancedScoreFunction(t *testing.T) {
	threshold := 1.0 / DefaultBalancedK
	t.Run("D-240 a 10x larger pool with proportional totals gives the same score", func(t *testing.T) {
		small := score(7.26, 4, poolTotal{cost: 58.08, disruption: 90})
		large := score(7.26, 4, poolTotal{cost: 580.80, disruption: 900})
		dmNear(t, "10 nodes", small, (7.26/58.08)/(4.0/90))
		dmNear(t, "100 nodes", large, small)
	})
	t.Run("D-242 on-demand 48.40 saving 4.84 and spot 14.50 saving 1.45, disruption 4 of 90: equal scores, both approved", func(t *testing.T) {
		od := score(4.84, 4, poolTotal{cost: 48.40, disruption: 90})
		sp := score(1.45, 4, poolTotal{cost: 14.50, disruption: 90})
		dmNear(t, "on-demand", od, 2.25)
		dmNear(t, "spot", sp, od)
		if od < threshold || sp < threshold {
			t.Errorf("scores %v and %v: want both at least %v", od, sp, threshold)
		}
	})
}

// TestDMBalancedTotals: D-243, a pool's totals are the price of every
// candidate (generic rules passed, before the method's filter) and the
// disruption of every node of the pool.
func TestDMBalancedTotals(t *testing.T) {
	cat := dmRFCCatalog(t)
	t.Run("D-243 totals count all candidates, not the filtered subset (5 × 4.84, 5 × (1+1))", func(t *testing.T) {
		b := &dmCluster{t: t}
		for i := range 5 {
			n := b.node(fmt.Sprintf("n%d", i), "pool-a", "m7i.xlarge", "test-zone-1")
			b.pods(n.Name, 1)
			if i < 2 { // inside consolidateAfter: filtered out by D-015
				b.claim(n).Status.LastPodEventTime = metav1.NewTime(dmNow().Add(-time.Minute))
			}
		}
		m := b.model([]nodepool.NodePool{dmPool("pool-a", nodepool.ConsolidationBalanced, func(p *testutil.NodePoolBuilder) { p.ConsolidateAfter("1h") })}, cat)
		cands, all := m.consolidationCandidates()
		require.Len(t, cands, 3, "the method's filter keeps three")
		require.Len(t, all, 5)
		tot := m.poolTotals(all)["pool-a"]
		dmNear(t, "cost", tot.cost, 5*4.84)
		dmNear(t, "disruption", tot.disruption, 10)
	})
	t.Run("D-243 a zero-priced candidate adds disruption but no cost", func(t *testing.T) {
		b := &dmCluster{t: t}
		for _, n := range []struct{ name, typ string }{{"good-1", "m7i.xlarge"}, {"no-type", ""}, {"good-2", "m7i.xlarge"}} {
			b.node(n.name, "pool-b", n.typ, "test-zone-1")
			b.pods(n.name, 1)
		}
		m := b.model([]nodepool.NodePool{dmPool("pool-b", nodepool.ConsolidationBalanced)}, cat)
		_, all := m.consolidationCandidates()
		require.Len(t, all, 3)
		tot := m.poolTotals(all)["pool-b"]
		dmNear(t, "cost", tot.cost, 2*4.84)
		dmNear(t, "disruption", tot.disruption, 6)
	})
	t.Run("D-243 a node that is no candidate adds its disruption (DaemonSet pods aside) but no cost", func(t *testing.T) {
		b := &dmCluster{t: t}
		b.node("n0", "pool-c", "m7i.xlarge", "test-zone-1")
		b.pods("n0", 1)
		keep := b.node("dnd", "pool-c", "m7i.xlarge", "test-zone-1")
		keep.Annotations = map[string]string{AnnotationDoNotDisrupt: "true"}
		b.pods("dnd", 2)
		ds := testutil.Pod("agent").CPU("50m").OwnedBy("DaemonSet", "agent").NodeName("dnd").Obj()
		ds.OwnerReferences[0].APIVersion = "apps/v1"
		ds.Status.Phase = corev1.PodRunning
		b.c.Pods = append(b.c.Pods, ds)
		m := b.model([]nodepool.NodePool{dmPool("pool-c", nodepool.ConsolidationBalanced)}, cat)
		_, all := m.consolidationCandidates()
		require.Len(t, all, 1)
		tot := m.poolTotals(all)["pool-c"]
		dmNear(t, "cost", tot.cost, 4.84)
		dmNear(t, "disruption", tot.disruption, 2+3)
	})
	t.Run("D-243 a NaN price never reaches the totals", func(t *testing.T) {
		nan := testutil.InstanceType("nan").CPU("4").Memory("16Gi").Offering("test-zone-1", "on-demand", math.NaN()).Obj()
		_, err := instancetypes.NewCatalog([]instancetypes.InstanceType{nan})
		require.Error(t, err, "a catalog refuses a NaN price")
		// A node whose offering is NaN anyway is priced 0, not NaN.
		nd := &node{it: &nan, zone: "test-zone-1", ct: "on-demand", obj: testutil.Node("n").Obj()}
		price, known := offeringPrice(nd)
		if price != 0 || known {
			t.Errorf("price %v known %v: want 0, unknown", price, known)
		}
		nd.price, nd.poolName = price, "p"
		m := &model{nodes: []*node{nd}}
		tot := m.totalsOf([]*candidate{{n: nd, cost: 1}})["p"]
		s := score(1, 1, poolTotal{cost: tot.cost + 4.84, disruption: tot.disruption + 2})
		if math.IsNaN(tot.cost) || math.IsNaN(tot.disruption) || math.IsNaN(s) {
			t.Errorf("totals %+v, score %v: NaN", tot, s)
		}
	})
}

// dmCand is a candidate of a pool with a price and a disruption cost.
func dmCand(name string, p *poolState, price, cost float64) *candidate {
	return &candidate{n: &node{name: name, poolName: p.name, pool: p, price: price}, cost: cost}
}

// dmReplacement is a replacement whose only option is a type with the
// offerings given, under the requirements given.
func dmReplacement(t *testing.T, reqs requirements.Requirements, offerings ...instancetypes.Offering) *replacement {
	t.Helper()
	b := testutil.InstanceType("dest").CPU("2").Memory("4Gi")
	for _, o := range offerings {
		b = b.OfferingOf(o)
	}
	it := b.Obj()
	return &replacement{types: []*instancetypes.InstanceType{&it}, reqs: reqs}
}

func dmOD(zone string, price float64) instancetypes.Offering {
	return instancetypes.Offering{Zone: zone, CapacityType: "on-demand", Price: price}
}

func dmSpot(zone string, price float64) instancetypes.Offering {
	return instancetypes.Offering{Zone: zone, CapacityType: "spot", Price: price}
}

// TestDMBalancedApprove: D-244 and D-245 (EvaluateBalancedMove).
func TestDMBalancedApprove(t *testing.T) {
	m := &model{cfg: config{balancedK: DefaultBalancedK}}
	balanced := func(name string) *poolState { return &poolState{name: name, policy: nodepool.ConsolidationBalanced} }
	other := &poolState{name: "other", policy: nodepool.ConsolidationWhenEmptyOrUnderutilized}
	t.Run("D-244 a command with no candidates is rejected", func(t *testing.T) {
		if ok, _ := m.approve(&proposal{}, map[string]poolTotal{"a": {cost: 100, disruption: 50}}); ok {
			t.Error("approved")
		}
	})
	t.Run("D-244 a non-Balanced pool is not scored and never blocks", func(t *testing.T) {
		p := &proposal{cands: []*candidate{dmCand("n0", other, 4.84, 2), dmCand("n1", other, 4.84, 2)},
			repls: []*replacement{dmReplacement(t, requirements.NewRequirements(), dmOD("z", 100))}} // savings < 0
		if ok, w := m.approve(p, map[string]poolTotal{}); !ok {
			t.Errorf("rejected: %+v", w)
		}
	})
	t.Run("D-244 a Balanced pool missing from the totals scores 0 and is rejected", func(t *testing.T) {
		ok, w := m.approve(&proposal{cands: []*candidate{dmCand("n0", balanced("missing"), 4.84, 2)}}, map[string]poolTotal{})
		if ok || w == nil || w.code != KeepBalanced || w.d.Score == nil || *w.d.Score != 0 || w.d.NodePool != "missing" {
			t.Errorf("approved %v, why %+v: want rejected with score 0", ok, w)
		}
	})
	t.Run("D-244 deleting one of ten uniform nodes scores 1.0", func(t *testing.T) {
		pa := balanced("single")
		var all []*candidate
		var nodes []*node
		for i := range 10 {
			c := dmCand(fmt.Sprintf("n%d", i), pa, 4.84, 2)
			all, nodes = append(all, c), append(nodes, c.n)
		}
		mm := &model{cfg: m.cfg, nodes: nodes}
		totals := mm.totalsOf(all)
		dmNear(t, "cost", totals["single"].cost, 48.4)
		dmNear(t, "disruption", totals["single"].disruption, 20)
		if ok, w := mm.approve(&proposal{cands: all[:1]}, totals); !ok {
			t.Errorf("rejected: %+v", w)
		}
		dmNear(t, "score", score(4.84, 2, totals["single"]), 1)
	})
	t.Run("D-245 across pools each Balanced pool gets the savings by its share of the price; all must approve", func(t *testing.T) {
		pa, pb := balanced("a"), balanced("b")
		// Savings 1.0 - 0.5: a's share 0.8/1.0 → 0.4, b's 0.1.
		// a: (0.4/1.6) / (2/4) = 0.5, approved at the threshold;
		// b: (0.1/2.0) / (2/10) = 0.25, rejected. Without the split b
		// would score 1.25.
		p := &proposal{cands: []*candidate{dmCand("a0", pa, 0.8, 2), dmCand("b0", pb, 0.2, 2)},
			repls: []*replacement{dmReplacement(t, requirements.NewRequirements(), dmOD("z", 0.5))}}
		totals := map[string]poolTotal{"a": {cost: 1.6, disruption: 4}, "b": {cost: 2.0, disruption: 10}}
		ok, w := m.approve(p, totals)
		if ok || w == nil || w.d.NodePool != "b" || w.d.Score == nil {
			t.Fatalf("approved %v, why %+v: want b to reject", ok, w)
		}
		dmNear(t, "b's score", *w.d.Score, 0.25)
		totals["b"] = poolTotal{cost: 1.0, disruption: 10} // b: (0.1/1.0) / (2/10) = 0.5
		if ok, w := m.approve(p, totals); !ok {
			t.Errorf("rejected: %+v", w)
		}
	})
	t.Run("D-245 a Balanced pool and another: the Balanced pool's share is scored alone", func(t *testing.T) {
		pa := balanced("a")
		// Delete one of each: savings 9.68, a's share 4.84;
		// (4.84/24.2) / (2/10) = 1.0.
		p := &proposal{cands: []*candidate{dmCand("a0", pa, 4.84, 2), dmCand("o0", other, 4.84, 2)}}
		totals := map[string]poolTotal{"a": {cost: 24.2, disruption: 10}, "other": {cost: 24.2, disruption: 10}}
		if ok, w := m.approve(p, totals); !ok {
			t.Errorf("rejected: %+v", w)
		}
		totals["a"] = poolTotal{cost: 24.2, disruption: 2.5} // (4.84/24.2) / (2/2.5) = 0.25; unsplit 0.5
		if ok, _ := m.approve(p, totals); ok {
			t.Error("approved with a's share scoring 0.25")
		}
	})
}

// TestDMSavingsRatio: D-246, price over RescheduleDisruptionCost.
func TestDMSavingsRatio(t *testing.T) {
	b := &dmCluster{t: t}
	b.node("empty", "pool", "m7i.xlarge", "test-zone-1")
	b.node("three", "pool", "m7i.xlarge", "test-zone-1")
	b.pods("three", 3)
	b.node("unknown", "pool", "", "test-zone-1")
	b.pods("unknown", 3)
	m := b.model([]nodepool.NodePool{dmPool("pool", nodepool.ConsolidationBalanced)}, dmRFCCatalog(t))
	for _, tc := range []struct {
		node string
		want float64
	}{{"empty", 4.84}, {"three", 4.84 / 4}, {"unknown", 0}} {
		c, w := m.newCandidate(m.byName[tc.node], graceful)
		require.Nil(t, w, tc.node)
		dmNear(t, "D-246 "+tc.node, c.savingsRatio(), tc.want)
	}
}

// TestDMEstimatedSavings: D-247, the candidates' price minus each
// replacement's cheapest available offering that its requirements allow.
func TestDMEstimatedSavings(t *testing.T) {
	pool := &poolState{name: "p", policy: nodepool.ConsolidationBalanced}
	ct := func(cts ...string) requirements.Requirements {
		return requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, cts...))
	}
	zone := func(z string) requirements.Requirements {
		return requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, z))
	}
	for _, tc := range []struct {
		name  string
		repls []*replacement
		want  float64
	}{
		{"on-demand-only pool: 0.50 - 0.40, not the spot 0.10",
			[]*replacement{dmReplacement(t, ct("on-demand"), dmSpot("z1", 0.10), dmOD("z1", 0.40))}, 0.10},
		{"a pool allowing spot may use it: 0.50 - 0.10",
			[]*replacement{dmReplacement(t, requirements.NewRequirements(), dmSpot("z1", 0.10), dmOD("z1", 0.40))}, 0.40},
		{"zone requirements count: 0.50 - 0.45",
			[]*replacement{dmReplacement(t, zone("z2"), dmOD("z1", 0.40), dmOD("z2", 0.45))}, 0.05},
		{"unavailable offerings do not count",
			[]*replacement{dmReplacement(t, ct("on-demand"), instancetypes.Offering{Zone: "z1", CapacityType: "on-demand", Price: 0.05, Unavailable: true},
				dmOD("z1", 0.40))}, 0.10},
		{"several replacements are summed: 0.50 - 0.20 - 0.15",
			[]*replacement{dmReplacement(t, ct("on-demand"), dmOD("z1", 0.20)), dmReplacement(t, ct("on-demand"), dmOD("z1", 0.15))}, 0.15},
		{"a replacement without options counts 0", []*replacement{{reqs: ct("on-demand")}}, 0.50},
		{"an option without a compatible offering counts 0",
			[]*replacement{dmReplacement(t, zone("z3"), dmOD("z1", 0.40))}, 0.50},
		{"a delete saves the whole price", nil, 0.50},
	} {
		p := &proposal{cands: []*candidate{dmCand("source", pool, 0.50, 4)}, repls: tc.repls}
		dmNear(t, "D-247 "+tc.name, p.savings(), tc.want)
	}
}

// TestDMDriftReasonOrder: D-251, static (hash) drift is reported before
// requirements drift, both before the instance type and before the
// cloud provider's Drifted condition.
func TestDMDriftReasonOrder(t *testing.T) {
	cat := dmRFCCatalog(t)
	type setup struct {
		hash, requirements, offering, condition bool
	}
	for _, tc := range []struct {
		name string
		s    setup
		want string
	}{
		{"hash and condition: NodePoolDrifted", setup{hash: true, condition: true}, DriftNodePool},
		{"hash and requirements: NodePoolDrifted", setup{hash: true, requirements: true, condition: true}, DriftNodePool},
		{"requirements and condition: RequirementsDrifted", setup{requirements: true, condition: true}, DriftRequirements},
		{"requirements and offering: RequirementsDrifted", setup{requirements: true, offering: true}, DriftRequirements},
		{"offering and condition: InstanceTypeNotFound", setup{offering: true, condition: true}, DriftInstanceType},
		{"condition only: the cloud provider's", setup{condition: true}, DriftCondition},
		{"nothing: not drifted", setup{}, ""},
	} {
		t.Run("D-251 "+tc.name, func(t *testing.T) {
			b := &dmCluster{t: t}
			zone := "test-zone-1"
			if tc.s.offering {
				zone = "test-zone-9" // no offering of m7i.xlarge there
			}
			n := b.node("n1", "pool", "m7i.xlarge", zone)
			nc := b.claim(n)
			nc.Annotations = map[string]string{AnnotationNodePoolHash: "h1", AnnotationNodePoolHashVersion: "v3"}
			if tc.s.condition {
				nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: ConditionDrifted, Status: metav1.ConditionTrue,
					Reason: "AMIDrift", LastTransitionTime: metav1.NewTime(dmNow().Add(-time.Hour))})
			}
			hash := "h1"
			if tc.s.hash {
				hash = "h2"
			}
			np := dmPool("pool", nodepool.ConsolidationWhenEmptyOrUnderutilized, func(p *testutil.NodePoolBuilder) {
				if tc.s.requirements {
					p.Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "spot")
				}
			})
			np.Annotations = map[string]string{AnnotationNodePoolHash: hash, AnnotationNodePoolHashVersion: "v3"}
			m := b.model([]nodepool.NodePool{np}, cat)
			got := ""
			if d := m.byName["n1"].drift; d != nil {
				got = d.reason
			}
			if got != tc.want {
				t.Errorf("drift %q, want %q", got, tc.want)
			}
		})
	}
}
