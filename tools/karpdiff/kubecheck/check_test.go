package kubecheck

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	tk "github.com/nodeplan/nodeplan/tools/karpdiff/internal/testkit"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

const (
	zoneKey = corev1.LabelTopologyZone
	hostKey = corev1.LabelHostname
)

// claim places pods on a NodeClaim of NodePool "default", type "small"
// (2 cpu, 10 pods, $0.1) unless the test's catalog says otherwise.
func claimOf(name, typ, zone string, price float64, pods ...string) plan.NodeClaim {
	return plan.NodeClaim{Name: name, NodePool: "default", InstanceType: typ, Zone: zone, CapacityType: "on-demand", Price: price, Pods: pods}
}

func small(name, zone string, pods ...string) plan.NodeClaim {
	return claimOf(name, "small", zone, 0.1, pods...)
}

// outcome is what a test asserts: each refused pod with the plugin (or
// "NodeClaim") that refused it, and the number of pods that bind.
type outcome struct {
	Refused map[string]string
	Bound   int
	Errors  []string
}

func run(t *testing.T, in manifest.Input, cat instancetypes.Catalog, p plan.Plan) outcome {
	t.Helper()
	if in.NodePools == nil {
		in.NodePools = []nodepool.NodePool{tk.NodePool("default")}
	}
	s := &scenario.Scenario{Input: in, Catalog: cat}
	scenario.DefaultPods(&s.Input)
	res, err := Check(s, p)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	out := outcome{Refused: map[string]string{}, Bound: len(res.Bound), Errors: res.Errors}
	for _, r := range res.Refused {
		plugin, _, _ := strings.Cut(r.Reason, ":")
		if strings.HasPrefix(r.Reason, "NodeClaim ") {
			plugin = "NodeClaim"
		}
		out.Refused[strings.TrimPrefix(r.Pod, "default/")] = plugin
	}
	return out
}

func defaultCatalog() instancetypes.Catalog {
	return tk.Catalog(tk.Type("small", 2, 4, 10, 0.1, "zone-a", "zone-b", "zone-c"), tk.Type("tiny", 2, 4, 2, 0.05, "zone-a", "zone-b"))
}

func pods(bs ...*tk.PodBuilder) []*corev1.Pod {
	out := make([]*corev1.Pod, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

func TestCheckResourcesAndNodeRules(t *testing.T) {
	cpu := corev1.ResourceCPU
	tests := []struct {
		name string
		in   manifest.Input
		plan plan.Plan
		want outcome
	}{
		{
			name: "cpu beyond allocatable: the pod that does not fit is refused",
			in:   manifest.Input{Pods: pods(tk.Pod("a").Request(cpu, "1500m"), tk.Pod("b").Request(cpu, "1"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "NodeResourcesFit"}, Bound: 1},
		},
		{
			name: "pod count: a type with room for two pods takes two",
			in:   manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b"), tk.Pod("c"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{claimOf("c1", "tiny", "zone-a", 0.05, "default/a", "default/b", "default/c")}},
			want: outcome{Refused: map[string]string{"c": "NodeResourcesFit"}, Bound: 2},
		},
		{
			name: "an extended resource the type does not have",
			in:   manifest.Input{Pods: pods(tk.Pod("gpu").Request("nvidia.com/gpu", "1"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/gpu")}},
			want: outcome{Refused: map[string]string{"gpu": "NodeResourcesFit"}},
		},
		{
			name: "nodeSelector on the zone: the claim in another zone is refused",
			in:   manifest.Input{Pods: pods(tk.Pod("a").NodeSelector(zoneKey, "zone-b"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a")}},
			want: outcome{Refused: map[string]string{"a": "NodeAffinity"}},
		},
		{
			name: "required node affinity: the second OR'd term is enough",
			in: manifest.Input{Pods: pods(tk.Pod("a").
				RequireNode(corev1.NodeSelectorRequirement{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-c"}}).
				RequireNode(corev1.NodeSelectorRequirement{Key: zoneKey, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"zone-b"}}))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a")}},
			want: outcome{Refused: map[string]string{}, Bound: 1},
		},
		{
			name: "NodePool taint not tolerated",
			in:   manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b").Tolerate("dedicated", "x", corev1.TaintEffectNoSchedule)), NodePools: []nodepool.NodePool{tainted("default")}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/b")}},
			want: outcome{Refused: map[string]string{"a": "TaintToleration"}, Bound: 1},
		},
		{
			name: "startup taints are gone once the node is initialised",
			in:   manifest.Input{Pods: pods(tk.Pod("a")), NodePools: []nodepool.NodePool{startupTainted("default")}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a")}},
			want: outcome{Refused: map[string]string{}, Bound: 1},
		},
		{
			name: "host ports: the second pod on the port is refused",
			in:   manifest.Input{Pods: pods(tk.Pod("a").HostPort(8080), tk.Pod("b").HostPort(8080), tk.Pod("c").HostPort(9090))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/b", "default/c")}},
			want: outcome{Refused: map[string]string{"b": "NodePorts"}, Bound: 2},
		},
		{
			name: "cordoned existing node",
			in:   manifest.Input{Pods: pods(tk.Pod("a")), Nodes: []*corev1.Node{cordoned(tk.Node("n1", 4, 10, nil))}},
			plan: plan.Plan{ExistingNodes: []plan.Placement{{Name: "n1", Pods: []string{"default/a"}}}},
			want: outcome{Refused: map[string]string{"a": "NodeUnschedulable"}},
		},
		{
			name: "existing node: running pods use its capacity",
			in: manifest.Input{Pods: pods(tk.Pod("a").Request(cpu, "2")), Nodes: []*corev1.Node{tk.Node("n1", 4, 10, nil)},
				BoundPods: pods(tk.Pod("run").Request(cpu, "3").Node("n1"))},
			plan: plan.Plan{ExistingNodes: []plan.Placement{{Name: "n1", Pods: []string{"default/a"}}}},
			want: outcome{Refused: map[string]string{"a": "NodeResourcesFit"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.in, defaultCatalog(), tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func tainted(name string) nodepool.NodePool {
	np := tk.NodePool(name)
	np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	return np
}

func startupTainted(name string) nodepool.NodePool {
	np := tk.NodePool(name)
	np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "agent", Value: "starting", Effect: corev1.TaintEffectNoSchedule}}
	return np
}

func cordoned(n *corev1.Node) *corev1.Node { n.Spec.Unschedulable = true; return n }

func spread(key string, maxSkew int32, mod ...func(*corev1.TopologySpreadConstraint)) corev1.TopologySpreadConstraint {
	c := corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	for _, m := range mod {
		m(&c)
	}
	return c
}

func web(name string, c corev1.TopologySpreadConstraint) *tk.PodBuilder {
	return tk.Pod(name).Label("app", "web").Spread(c)
}

func TestCheckTopologySpread(t *testing.T) {
	three := func(c *corev1.TopologySpreadConstraint) { m := int32(3); c.MinDomains = &m }
	honorAffinity := func(c *corev1.TopologySpreadConstraint) {
		p := corev1.NodeInclusionPolicyHonor
		c.NodeAffinityPolicy = &p
	}
	ignoreAffinity := func(c *corev1.TopologySpreadConstraint) {
		p := corev1.NodeInclusionPolicyIgnore
		c.NodeAffinityPolicy = &p
	}
	honorTaints := func(c *corev1.TopologySpreadConstraint) {
		p := corev1.NodeInclusionPolicyHonor
		c.NodeTaintsPolicy = &p
	}
	versions := func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"version"} }
	anyway := func(c *corev1.TopologySpreadConstraint) { c.WhenUnsatisfiable = corev1.ScheduleAnyway }
	tests := []struct {
		name string
		in   manifest.Input
		plan plan.Plan
		want outcome
	}{
		{
			name: "maxSkew 1 over two zones: a second pod in the same zone while the other is empty is refused",
			in:   manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), web("w1", spread(zoneKey, 1)), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{"w1": "PodTopologySpread"}, Bound: 2},
		},
		{
			name: "ScheduleAnyway is no filter",
			in:   manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, anyway)), web("w1", spread(zoneKey, 1, anyway)), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{}, Bound: 3},
		},
		{
			name: "a pod without the constraint is not held to it",
			in:   manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), tk.Pod("w1").Label("app", "web"), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{}, Bound: 3},
		},
		{
			name: "minDomains 3 with two zones: the global minimum counts as zero",
			in:   manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, three)), web("w1", spread(zoneKey, 1, three)), web("w2", spread(zoneKey, 1, three)))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w2"), small("c2", "zone-b", "default/w1")}},
			want: outcome{Refused: map[string]string{"w2": "PodTopologySpread"}, Bound: 2},
		},
		{
			name: "without minDomains the same placement binds",
			in:   manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), web("w1", spread(zoneKey, 1)), web("w2", spread(zoneKey, 1)))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w2"), small("c2", "zone-b", "default/w1")}},
			want: outcome{Refused: map[string]string{}, Bound: 3},
		},
		{
			name: "nodeAffinityPolicy Honor (default): zones the pod cannot use are no domains",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, honorAffinity)).NodeSelector(zoneKey, "zone-a"),
				web("w1", spread(zoneKey, 1, honorAffinity)).NodeSelector(zoneKey, "zone-a"), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{}, Bound: 3},
		},
		{
			name: "nodeAffinityPolicy Ignore: every zone counts",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, ignoreAffinity)).NodeSelector(zoneKey, "zone-a"),
				web("w1", spread(zoneKey, 1, ignoreAffinity)).NodeSelector(zoneKey, "zone-a"), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{"w1": "PodTopologySpread"}, Bound: 2},
		},
		{
			name: "nodeTaintsPolicy Honor: a tainted zone the pod does not tolerate is no domain",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, honorTaints)), web("w1", spread(zoneKey, 1, honorTaints))),
				Nodes: []*corev1.Node{taintedNode(tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-b"}))}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1")}},
			want: outcome{Refused: map[string]string{}, Bound: 2},
		},
		{
			name: "nodeTaintsPolicy Ignore (default): the tainted zone counts",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), web("w1", spread(zoneKey, 1))),
				Nodes: []*corev1.Node{taintedNode(tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-b"}))}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1")}},
			want: outcome{Refused: map[string]string{"w1": "PodTopologySpread"}, Bound: 1},
		},
		{
			name: "nodeTaintsPolicy Honor: a cordoned zone is no domain (the node lifecycle controller taints the node)",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, honorTaints)), web("w1", spread(zoneKey, 1, honorTaints))),
				Nodes: []*corev1.Node{cordoned(tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-b"}))}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1")}},
			want: outcome{Refused: map[string]string{}, Bound: 2},
		},
		{
			name: "nodeTaintsPolicy Ignore (default): the cordoned zone counts",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), web("w1", spread(zoneKey, 1))),
				Nodes: []*corev1.Node{cordoned(tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-b"}))}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1")}},
			want: outcome{Refused: map[string]string{"w1": "PodTopologySpread"}, Bound: 1},
		},
		{
			name: "matchLabelKeys: each version spreads on its own",
			in: manifest.Input{Pods: pods(web("v1", spread(zoneKey, 1, versions)).Label("version", "1"), web("v2", spread(zoneKey, 1, versions)).Label("version", "2"),
				tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/v1", "default/v2"), small("c2", "zone-b", "default/other")}},
			want: outcome{Refused: map[string]string{}, Bound: 3},
		},
		{
			// w0 comes first in the queue, but the pod without the
			// constraint is planned on an existing node: it binds at once,
			// before w0's NodeClaim has a node, and zone-a holds one web
			// pod when w0 is checked.
			name: "pods planned on existing nodes bind before those on NodeClaims",
			in: manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1)), tk.Pod("w1").Label("app", "web"), tk.Pod("other")),
				Nodes: []*corev1.Node{tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-a"})}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0"), small("c2", "zone-b", "default/other")},
				ExistingNodes: []plan.Placement{{Name: "n1", Pods: []string{"default/w1"}}}},
			want: outcome{Refused: map[string]string{"w0": "PodTopologySpread"}, Bound: 2},
		},
		{
			name: "hostname spread: the second pod on one node while another node is empty",
			in:   manifest.Input{Pods: pods(web("w0", spread(hostKey, 1)), web("w1", spread(hostKey, 1)), tk.Pod("other"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-a", "default/other")}},
			want: outcome{Refused: map[string]string{"w1": "PodTopologySpread"}, Bound: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.in, defaultCatalog(), tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func taintedNode(n *corev1.Node) *corev1.Node {
	n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
	return n
}

func TestCheckPodAffinity(t *testing.T) {
	tests := []struct {
		name string
		in   manifest.Input
		plan plan.Plan
		want outcome
	}{
		{
			name: "a matching pod runs in another zone: no bootstrap, the pod is refused",
			in: manifest.Input{Pods: pods(tk.Pod("g1").Label("app", "g1").Affinity("g1", zoneKey)),
				Nodes:     []*corev1.Node{tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-b"})},
				BoundPods: pods(tk.Pod("run").Label("app", "g1").Node("n1"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/g1")}},
			want: outcome{Refused: map[string]string{"g1": "InterPodAffinity"}},
		},
		{
			name: "no matching pod anywhere: a self-affine pod starts the group",
			in:   manifest.Input{Pods: pods(tk.Pod("g1").Label("app", "g1").Affinity("g1", zoneKey))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/g1")}},
			want: outcome{Refused: map[string]string{}, Bound: 1},
		},
		{
			name: "self-affine pair split over two zones: the second is refused",
			in:   manifest.Input{Pods: pods(tk.Pod("a").Label("app", "g").Affinity("g", zoneKey), tk.Pod("b").Label("app", "g").Affinity("g", zoneKey))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a"), small("c2", "zone-b", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "InterPodAffinity"}, Bound: 1},
		},
		{
			name: "affinity to a pod later in the queue: bound on the retry",
			in:   manifest.Input{Pods: pods(tk.Pod("follower").Affinity("leader", hostKey), tk.Pod("leader").Label("app", "leader"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/follower", "default/leader")}},
			want: outcome{Refused: map[string]string{}, Bound: 2},
		},
		{
			name: "own anti-affinity on the hostname",
			in:   manifest.Input{Pods: pods(tk.Pod("a").Label("app", "x").AntiAffinity("x", hostKey), tk.Pod("b").Label("app", "x").AntiAffinity("x", hostKey))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "InterPodAffinity"}, Bound: 1},
		},
		{
			name: "a running pod's anti-affinity keeps matching pods out of its zone",
			in: manifest.Input{Pods: pods(tk.Pod("y").Label("app", "y")),
				Nodes:     []*corev1.Node{tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-a"})},
				BoundPods: pods(tk.Pod("guard").AntiAffinity("y", zoneKey).Node("n1"))},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/y")}},
			want: outcome{Refused: map[string]string{"y": "InterPodAffinity"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.in, defaultCatalog(), tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckVolumesAndDaemonSets(t *testing.T) {
	tests := []struct {
		name string
		in   manifest.Input
		plan plan.Plan
		want outcome
	}{
		{
			name: "a claim bound to a volume in zone-b: a node in zone-a is refused",
			in:   withVolume(manifest.Input{Pods: pods(tk.Pod("db").Claim("data"))}, "zone-b"),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/db")}},
			want: outcome{Refused: map[string]string{"db": "VolumeBinding"}},
		},
		{
			name: "the same claim in zone-b binds",
			in:   withVolume(manifest.Input{Pods: pods(tk.Pod("db").Claim("data"))}, "zone-b"),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-b", "default/db")}},
			want: outcome{Refused: map[string]string{}, Bound: 1},
		},
		{
			name: "a DaemonSet's pod takes its share of every new node",
			in: manifest.Input{Pods: pods(tk.Pod("a").Request(corev1.ResourceCPU, "600m"), tk.Pod("b").Request(corev1.ResourceCPU, "600m")),
				DaemonSets: []*appsv1DaemonSet{daemonSet("agent", "1")}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "NodeResourcesFit"}, Bound: 1},
		},
		{
			name: "a DaemonSet's pod runs on a cordoned node too (its controller tolerates the cordon)",
			in: manifest.Input{Pods: pods(tk.Pod("a").Request(corev1.ResourceCPU, "3500m").Tolerate(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule)),
				Nodes: []*corev1.Node{cordoned(tk.Node("n1", 4, 10, nil))}, DaemonSets: []*appsv1DaemonSet{daemonSet("agent", "1")}},
			plan: plan.Plan{ExistingNodes: []plan.Placement{{Name: "n1", Pods: []string{"default/a"}}}},
			want: outcome{Refused: map[string]string{"a": "NodeResourcesFit"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.in, defaultCatalog(), tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckClaims(t *testing.T) {
	in := func() manifest.Input { return manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b"))} }
	limited := func(l corev1.ResourceList) []nodepool.NodePool {
		np := tk.NodePool("default")
		np.Spec.Limits = l
		return []nodepool.NodePool{np}
	}
	tests := []struct {
		name string
		in   manifest.Input
		plan plan.Plan
		want outcome
	}{
		{
			name: "unknown instance type",
			in:   in(),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{claimOf("c1", "huge", "zone-a", 1, "default/a")}},
			want: outcome{Refused: map[string]string{"a": "NodeClaim"}},
		},
		{
			name: "no offering in the zone",
			in:   in(),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{claimOf("c1", "tiny", "zone-c", 0.05, "default/a")}},
			want: outcome{Refused: map[string]string{"a": "NodeClaim"}},
		},
		{
			name: "a price that is not the offering's",
			in:   in(),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{claimOf("c1", "small", "zone-a", 0.01, "default/a")}},
			want: outcome{Refused: map[string]string{"a": "NodeClaim"}},
		},
		{
			name: "a node outside the NodePool's requirements",
			in:   manifest.Input{Pods: pods(tk.Pod("a")), NodePools: []nodepool.NodePool{zoned("default", "zone-b")}},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a")}},
			want: outcome{Refused: map[string]string{"a": "NodeClaim"}},
		},
		{
			name: "a nodes limit of one: the second claim is over it",
			in:   manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b")), NodePools: limited(corev1.ResourceList{"nodes": resource.MustParse("1")})},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a"), small("c2", "zone-a", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "NodeClaim"}, Bound: 1},
		},
		{
			name: "a cpu limit counts capacity, not requests",
			in:   manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b")), NodePools: limited(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")})},
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a"), small("c2", "zone-a", "default/b")}},
			want: outcome{Refused: map[string]string{"b": "NodeClaim"}, Bound: 1},
		},
		{
			name: "a pod placed twice and a pod the scenario lacks",
			in:   in(),
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/a", "default/a", "default/ghost")}},
			want: outcome{Refused: map[string]string{}, Bound: 1, Errors: []string{
				"pod default/a is placed twice (c1 and c1)", "pod default/ghost is not a pending pod of the scenario"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, tt.in, defaultCatalog(), tt.plan)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckLaunchMinValues: a NodeClaim launches only when its minValues
// hold over the options that have an offering its requirements allow (the
// provider's truncation at launch); a claim on a reservation of one type
// where the NodePool asks for two types does not.
func TestCheckLaunchMinValues(t *testing.T) {
	small := tk.Type("small", 2, 4, 10, 0.1, "zone-a", "zone-b")
	small.Offerings = append(small.Offerings, instancetypes.Offering{Zone: "zone-a", CapacityType: "reserved", Price: 0.02, ReservationID: "cr-1", ReservationCapacity: 2})
	cat := tk.Catalog(small, tk.Type("tiny", 2, 4, 2, 0.05, "zone-a", "zone-b"))
	types := plan.Expression{Key: corev1.LabelInstanceTypeStable, Operator: "In", Values: []string{"small", "tiny"}, MinValues: 2}
	reserved := plan.NodeClaim{Name: "c1", NodePool: "default", InstanceType: "small", Zone: "zone-a", CapacityType: "reserved", Price: 0.02,
		InstanceTypeOptions: []string{"small", "tiny"}, Labels: map[string]string{labelReservation: "cr-1"}, Pods: []string{"default/a"},
		Requirements: []plan.Expression{{Key: labelReservation, Operator: "In", Values: []string{"cr-1"}}, {Key: labelCapacityType, Operator: "In", Values: []string{"reserved"}}, types}}
	onDemand := plan.NodeClaim{Name: "c2", NodePool: "default", InstanceType: "tiny", Zone: "zone-b", CapacityType: "on-demand", Price: 0.05,
		InstanceTypeOptions: []string{"tiny", "small"}, Pods: []string{"default/b"},
		Requirements: []plan.Expression{{Key: labelCapacityType, Operator: "In", Values: []string{"on-demand"}}, {Key: zoneKey, Operator: "In", Values: []string{"zone-b"}}, types}}
	in := manifest.Input{Pods: pods(tk.Pod("a"), tk.Pod("b"))}
	got := run(t, in, cat, plan.Plan{NodeClaims: []plan.NodeClaim{reserved, onDemand}})
	if diff := cmp.Diff(outcome{Refused: map[string]string{"a": "NodeClaim"}, Bound: 1}, got); diff != "" {
		t.Errorf("one reserved type for minValues 2 (-want +got):\n%s", diff)
	}
	types.MinValues = 1
	reserved.Requirements[2] = types
	got = run(t, in, cat, plan.Plan{NodeClaims: []plan.NodeClaim{reserved}})
	if diff := cmp.Diff(outcome{Refused: map[string]string{}, Bound: 1}, got); diff != "" {
		t.Errorf("minValues 1 (-want +got):\n%s", diff)
	}
}

func zoned(name, zone string) nodepool.NodePool {
	np := tk.NodePool(name)
	np.Spec.Template.Spec.Requirements = []nodepool.NodeSelectorRequirementWithMinValues{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}
	return np
}

func TestCheckOrderBound(t *testing.T) {
	three := func(c *corev1.TopologySpreadConstraint) { m := int32(3); c.MinDomains = &m }
	in := manifest.Input{Pods: pods(web("w0", spread(zoneKey, 1, three)), tk.Pod("w1").Label("app", "web")),
		Nodes: []*corev1.Node{tk.Node("n1", 4, 10, map[string]string{zoneKey: "zone-a"})}}
	tests := []struct {
		name string
		plan plan.Plan
		want []string
	}{
		{
			name: "on one existing node only the queue's order binds the carrier first",
			plan: plan.Plan{ExistingNodes: []plan.Placement{{Name: "n1", Pods: []string{"default/w0", "default/w1"}}}},
			want: []string{"default/w0"},
		},
		{
			name: "on one new node only the queue's order binds the carrier first",
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0", "default/w1"), small("c2", "zone-b")}},
			want: []string{"default/w0"},
		},
		{
			name: "the carrier binds only if its node joins before the counted pod's",
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0"), small("c2", "zone-a", "default/w1")}},
			want: []string{"default/w0"},
		},
		{
			name: "the counted pod in another zone: either order binds",
			plan: plan.Plan{NodeClaims: []plan.NodeClaim{small("c1", "zone-a", "default/w0"), small("c2", "zone-b", "default/w1")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scenario.Scenario{Input: in, Catalog: defaultCatalog()}
			s.Input.NodePools = []nodepool.NodePool{tk.NodePool("default")}
			scenario.DefaultPods(&s.Input)
			res, err := Check(s, tt.plan)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if len(res.Bound) != 2 || len(res.Refused) != 0 {
				t.Fatalf("in queue order: bound %v, refused %v; want both bound", res.Bound, res.Refused)
			}
			var got []string
			for _, r := range res.OrderBound {
				got = append(got, r.Pod)
				if !strings.Contains(r.Reason, "PodTopologySpread") {
					t.Errorf("%s: reason %q, want PodTopologySpread's", r.Pod, r.Reason)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order-bound pods (-want +got):\n%s", diff)
			}
		})
	}
}
