package scheduler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TestBehaviour2B143PackInFlightNodes: B-143, as Karpenter's test runs it
// (ST "should pack in-flight nodes before launching new nodes"): ten
// batches of a random number of 1-cpu pods, on a catalog whose only type
// holds four of them. After each Solve its NodeClaims become nodes (those of
// the last loop still uninitialized and not-ready: in flight) and its pods
// are bound where the plan put them; the next batch is planned over them.
// In-flight nodes are packed before anything is launched, so at the end at
// most one node has 1 cpu or more free.
func TestBehaviour2B143PackInFlightNodes(t *testing.T) {
	t.Parallel()
	medium := testutil.InstanceType("medium").CPU("4350m").Memory("8Gi").Pods("4").
		KubeReserved(corev1.ResourceCPU, "100m").KubeReserved(corev1.ResourceMemory, "10Mi").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
		Offering("z1", "on-demand", 0.5).Offering("z2", "on-demand", 0.5).Obj()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{medium}, instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)
	pools := []nodepool.NodePool{poolP("default").Obj()}
	for _, seed := range []uint64{1, 2, 3, 4, 5} {
		t.Run(fmt.Sprintf("B-143 seed %d", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 143))
			var nodes []*corev1.Node
			var bound []*corev1.Pod
			launched := map[string]bool{} // nodes launched by the last loop
			next := 0
			for loop := range 10 {
				var pending []*corev1.Pod
				for range rng.IntN(10) {
					pending = append(pending, testutil.Pod(fmt.Sprintf("p-%03d", next)).CPU("1").Obj())
					next++
				}
				// Nodes of earlier loops: the last loop's are still in flight.
				for _, n := range nodes {
					if !launched[n.Name] {
						n.Labels["karpenter.sh/initialized"] = "true"
						n.Spec.Taints = nil
					}
				}
				clear(launched)
				opts := []scheduler.Option{scheduler.WithExistingNodes(nodes, bound)}
				res, err := scheduler.Solve(pending, pools, cat, opts...)
				require.NoError(t, err)
				require.Empty(t, res.PodErrors, "loop %d", loop)
				require.NoError(t, verify.Plan(pending, pools, cat, res, opts...), "loop %d", loop)
				byName := map[string]*corev1.Pod{}
				for _, p := range pending {
					byName["default/"+p.Name] = p
				}
				bind := func(pods []string, node string) {
					for _, name := range pods {
						p := byName[name].DeepCopy()
						p.Spec.NodeName = node
						p.Status.Phase = corev1.PodRunning
						bound = append(bound, p)
					}
				}
				for _, en := range res.ExistingNodes {
					bind(en.Pods, en.Name)
				}
				for _, nc := range res.NodeClaims {
					name := fmt.Sprintf("loop%d-%s", loop, nc.Name)
					nc.Name = name
					n, _ := disruption.Launch(nc, nil, cat, time.Unix(0, 0))
					delete(n.Labels, "karpenter.sh/initialized")
					n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute})
					nodes = append(nodes, n)
					launched[name] = true
					bind(nc.Pods, name)
				}
			}
			used := map[string]int64{}
			for _, p := range bound {
				used[p.Spec.NodeName] += p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
			}
			var roomy []string
			for _, n := range nodes {
				if free := n.Status.Allocatable.Cpu().MilliValue() - used[n.Name]; free >= 1000 {
					roomy = append(roomy, fmt.Sprintf("%s (%dm free)", n.Name, free))
				}
			}
			t.Logf("B-143: %d pods on %d nodes; with 1 cpu or more free: %v", next, len(nodes), roomy)
			if len(roomy) > 1 {
				t.Errorf("B-143: %d of %d nodes have 1 cpu or more free after %d pods, want at most one: %v", len(roomy), len(nodes), next, roomy)
			}
		})
	}
}

// b2Node is a running, initialized node of Catalog K (built as
// disruption.Launch makes one) and its NodeClaim, whose last pod event
// was `ago` before now.
func b2Node(t *testing.T, cat instancetypes.Catalog, name, typ string, now time.Time, ago time.Duration) (*corev1.Node, disruption.NodeClaim) {
	t.Helper()
	nc := scheduler.NodeClaim{Name: name, NodePool: "default", InstanceType: typ, Zone: "z1", CapacityType: "on-demand"}
	n, claim := disruption.Launch(nc, nil, cat, now.Add(-24*time.Hour))
	claim.Status.LastPodEventTime = metav1.NewTime(now.Add(-ago))
	return n, claim
}

// b2Bound is a running ReplicaSet pod of cpu bound to node.
func b2Bound(name, node, cpu string) *corev1.Pod {
	p := testutil.Pod(name).CPU(cpu).OwnedBy("ReplicaSet", "rs").NodeName(node).Obj()
	p.Status.Phase = corev1.PodRunning
	return p
}

// TestBehaviour2B145ConsolidateAfterGate: B-145 (SCH addToExistingNode,
// [code]): in a consolidation simulation the pods that consolidation moves
// (non-pending pods) are not placed on a node still inside its NodePool's
// consolidateAfter window, while pods of nodes being deleted (and pending
// pods) may land there. nodeplan's disruption package runs that simulation
// (simulate.go, the consolidateAfter gate); the cases read where its
// commands put the pods.
//
// The fixture (Catalog K, on-demand only, consolidateAfter 1m): node d1
// (`default`, 3.9 cpu, do-not-disrupt so it is only a destination) runs
// 2 cpu; node n1 (`default`) runs one 500m pod and has been idle for
// 2 minutes, so consolidation removes it.
func TestBehaviour2B145ConsolidateAfterGate(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	pools := []nodepool.NodePool{testutil.NodePool("default").
		Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand").
		ConsolidationPolicy("WhenEmptyOrUnderutilized").ConsolidateAfter("1m").
		Budget(nodepool.Budget{Nodes: "100%"}).Obj()}
	cluster := func(destinationIdle time.Duration, extra func(c *disruption.Cluster)) disruption.Cluster {
		var c disruption.Cluster
		d1, d1c := b2Node(t, cat, "d1", "default", now, destinationIdle)
		d1.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
		n1, n1c := b2Node(t, cat, "n1", "default", now, 2*time.Minute)
		c.Nodes = []*corev1.Node{d1, n1}
		c.NodeClaims = []disruption.NodeClaim{d1c, n1c}
		c.Pods = []*corev1.Pod{b2Bound("x", "d1", "2"), b2Bound("a", "n1", "500m")}
		if extra != nil {
			extra(&c)
		}
		return c
	}
	moves := func(res disruption.Result) map[string]string {
		out := map[string]string{}
		for _, c := range res.Commands {
			for _, m := range c.Moves {
				out[m.Pod] = m.To
			}
		}
		return out
	}
	tests := []struct {
		name string
		c    disruption.Cluster
		// wantTo maps a pod to where a command must put it ("!d1": anywhere
		// but d1); wantDecision is the decision of the command removing n1.
		wantTo       map[string]string
		wantDecision disruption.Decision
	}{
		{name: "B-145 a moved pod does not go to a destination inside consolidateAfter (n1 is replaced instead)",
			c: cluster(30*time.Second, nil), wantTo: map[string]string{"default/a": "!d1"}, wantDecision: disruption.DecisionReplace},
		{name: "B-145 control: once d1's consolidateAfter has passed the pod moves there and n1 is deleted",
			c: cluster(2*time.Minute, nil), wantTo: map[string]string{"default/a": "d1"}, wantDecision: disruption.DecisionDelete},
		{name: "B-145 a pending pod may still land on the destination inside consolidateAfter",
			c: cluster(30*time.Second, func(c *disruption.Cluster) {
				c.Pods = append(c.Pods, testutil.Pod("pending").CPU("1").OwnedBy("ReplicaSet", "rs").Obj())
			}), wantTo: map[string]string{"default/a": "!d1", "default/pending": "d1"}, wantDecision: disruption.DecisionReplace},
		{name: "B-145 a pod of a node being deleted may still land on the destination inside consolidateAfter",
			c: cluster(30*time.Second, func(c *disruption.Cluster) {
				z, zc := b2Node(t, cat, "z", "default", now, time.Hour)
				ts := metav1.NewTime(now.Add(-time.Minute))
				z.DeletionTimestamp, zc.DeletionTimestamp = &ts, &ts
				z.Annotations = map[string]string{disruption.AnnotationDoNotDisrupt: "true"}
				c.Nodes = append(c.Nodes, z)
				c.NodeClaims = append(c.NodeClaims, zc)
				c.Pods = append(c.Pods, b2Bound("from-deleting", "z", "1"))
			}), wantTo: map[string]string{"default/a": "!d1", "default/from-deleting": "d1"}, wantDecision: disruption.DecisionReplace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := disruption.Plan(tc.c, pools, cat, now, disruption.WithoutRepack())
			require.NoError(t, err)
			var decision disruption.Decision
			for _, c := range res.Commands {
				for _, n := range c.Nodes {
					if n.Name == "n1" {
						decision = c.Decision
					}
				}
			}
			require.Equal(t, tc.wantDecision, decision, "decision of the command removing n1; commands %+v", res.Commands)
			got := moves(res)
			for pod, want := range tc.wantTo {
				to, ok := got[pod]
				require.True(t, ok, "no command moves %s; moves %v", pod, got)
				if want == "!d1" {
					require.NotEqual(t, "d1", to, "%s moved onto d1 inside its consolidateAfter", pod)
					continue
				}
				require.Equal(t, want, to, "where %s goes", pod)
			}
		})
	}
}

// TestBehaviour2B164NodeClaimKeepsPoolAsScheduled: B-164. Karpenter stamps
// a NodeClaim with the hash of the NodePool as it was when the pod was
// scheduled, even if the NodePool changes before the NodeClaim is created.
// Solve is pure and returns the NodeClaims at once: what a planned
// NodeClaim carries of its NodePool (labels, taints, startup taints,
// requirements) is copied when Solve decides, so changing the NodePool
// object afterwards (in place, as a controller's cache update would) does
// not change the plan already made.
func TestBehaviour2B164NodeClaimKeepsPoolAsScheduled(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	np := poolP("default").Label("team", "a").Annotation("example.com/owner", "team-a").
		Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "small", "default").
		Taint("dedicated", "a", corev1.TaintEffectNoSchedule).
		StartupTaint("example.com/agent", "init", corev1.TaintEffectNoSchedule).Obj()
	np.Annotations = map[string]string{"karpenter.sh/nodepool-hash": "h1"}
	pools := []nodepool.NodePool{np}
	pod := testutil.Pod("web").CPU("500m").Toleration("dedicated", corev1.TolerationOpEqual, "a", corev1.TaintEffectNoSchedule).Obj()
	res, err := scheduler.Solve([]*corev1.Pod{pod}, pools, cat)
	require.NoError(t, err)
	require.Len(t, res.NodeClaims, 1, "B-164: one NodeClaim")
	before, err := json.Marshal(res)
	require.NoError(t, err)
	require.Contains(t, string(before), `"team":"a"`)

	// The NodePool changes after the decision, in place.
	spec := &pools[0].Spec.Template
	spec.ObjectMeta.Labels["team"] = "b"
	pools[0].Annotations["karpenter.sh/nodepool-hash"] = "h2"
	spec.ObjectMeta.Annotations["example.com/owner"] = "team-b"
	spec.Spec.Taints[0].Value = "b"
	spec.Spec.StartupTaints[0].Value = "changed"
	for i := range spec.Spec.Requirements {
		for j := range spec.Spec.Requirements[i].Values {
			spec.Spec.Requirements[i].Values[j] = "changed"
		}
	}
	after, err := json.Marshal(res)
	require.NoError(t, err)
	if diff := gocmp.Diff(string(before), string(after)); diff != "" {
		t.Errorf("B-164: the plan changed with the NodePool after Solve (-before +after):\n%s", diff)
	}
}

// TestBehaviour2B257BufferPodsNeverNominate: B-257. Capacity-buffer pods
// (virtual pods standing for headroom) are scheduled like real pods and
// can make nodes be created, but never nominate a node or record a
// decision. nodeplan has no CapacityBuffer input: a caller passes the
// virtual pods as pods. They are planned like any pod (here node-0 has
// room for one and a NodeClaim is made for the rest), and Solve, being pure, writes nothing back: no pod
// gets a nodeName, a nominated node or a condition, and the existing
// node is untouched.
func TestBehaviour2B257BufferPodsNeverNominate(t *testing.T) {
	t.Parallel()
	cat := kCatalog(t)
	pools := []nodepool.NodePool{poolP("default").Obj()}
	node := testutil.Node("node-0").Label("karpenter.sh/nodepool", "default").Label("karpenter.sh/initialized", "true").
		Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").Label("topology.kubernetes.io/zone", "z1").
		Label("node.kubernetes.io/instance-type", "small").Label("karpenter.sh/capacity-type", "on-demand").
		Size("1900m", "2038Mi", "5").Obj()
	real := testutil.Pod("real").CPU("1").Obj()
	var pods []*corev1.Pod
	pods = append(pods, real)
	for i := range 2 {
		// A buffer's virtual pod: never created in the API server (no UID,
		// no creation time), its spec copied from the buffer's template.
		pods = append(pods, testutil.Pod(fmt.Sprintf("buffer-%d", i)).Label("capacity-buffer", "headroom").CPU("1500m").Obj())
	}
	podsBefore := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		podsBefore[i] = p.DeepCopy()
	}
	nodeBefore := node.DeepCopy()
	opts := []scheduler.Option{scheduler.WithExistingNodes([]*corev1.Node{node}, nil)}
	res, err := scheduler.Solve(pods, pools, cat, opts...)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(pods, pools, cat, res, opts...))
	require.Empty(t, res.PodErrors, "B-257: every pod is scheduled")
	bufferOnClaim := false
	for _, nc := range res.NodeClaims {
		for _, p := range nc.Pods {
			bufferOnClaim = bufferOnClaim || strings.HasPrefix(p, "default/buffer-")
		}
	}
	require.True(t, bufferOnClaim, "B-257: the buffer pods cause a node to be created (node-0 holds one 1500m pod at most); plan %+v", res.NodeClaims)
	if diff := gocmp.Diff(podsBefore, pods); diff != "" {
		t.Errorf("B-257: Solve changed its pods (-before +after):\n%s", diff)
	}
	for _, p := range pods {
		require.Empty(t, p.Spec.NodeName, "B-257: %s bound", p.Name)
		require.Empty(t, p.Status.NominatedNodeName, "B-257: %s nominated", p.Name)
	}
	if diff := gocmp.Diff(nodeBefore, node); diff != "" {
		t.Errorf("B-257: Solve changed the existing node (-before +after):\n%s", diff)
	}
}
