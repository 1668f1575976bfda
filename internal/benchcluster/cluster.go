package benchcluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/benchdata"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// Case is a generated cluster and what planning it needs.
type Case struct {
	Cluster   disruption.Cluster
	NodePools []nodepool.NodePool
	Catalog   instancetypes.Catalog
	// Now is the time the cluster is planned at.
	Now time.Time
	// Pods counts the pods of the cluster (DaemonSet pods included).
	Pods int
}

// Options shape a generated cluster.
type Options struct {
	// Nodes is about how many nodes the cluster has (the aws-mixed workload
	// is sized to fill them).
	Nodes int
	// ScaleDown is the fraction of workload pods removed after launch
	// (default 0.3).
	ScaleDown float64
	Seed      uint64
}

// podsPerNode is how many aws-mixed pods one planned node holds, about.
const podsPerNode = 6

// Generate plans the aws-mixed workload, launches the plan as a running
// cluster and scales it down. The workload's "reserved" NodePool is left
// out: on-demand capacity first by weight, priced as on-demand, it would
// make every repack dearer than the cluster it repacks.
func Generate(o Options) (Case, error) {
	if o.ScaleDown == 0 {
		o.ScaleDown = 0.3
	}
	in, err := manifest.Decode([]manifest.File{{Name: "workload.json", Data: benchdata.AWSMixed(o.Nodes*podsPerNode, benchdata.AWSMixedDefaultSeed())}})
	if err != nil {
		return Case{}, err
	}
	cat, err := aws.Catalog()
	if err != nil {
		return Case{}, err
	}
	in.NodePools = slices.DeleteFunc(in.NodePools, func(np nodepool.NodePool) bool { return np.Name == "reserved" })
	// Only where pods go is read (and without the preference judgement the
	// clusters stay the ones README's consolidation figures were measured on).
	plan, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(in.Options(), scheduler.WithoutRelaxations())...)
	if err != nil {
		return Case{}, err
	}
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, 7)), in: in, cat: cat, now: time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)}
	g.c.DaemonSets, g.c.StorageClasses, g.c.Namespaces = in.DaemonSets, in.StorageClasses, in.Namespaces
	g.pools = consolidating(in.NodePools)
	g.launch(plan)
	g.scaleDown(o.ScaleDown)
	g.pdbs()
	return Case{Cluster: g.c, NodePools: g.pools, Catalog: cat, Now: g.now, Pods: len(g.c.Pods)}, nil
}

type gen struct {
	r     *rand.Rand
	in    manifest.Input
	cat   instancetypes.Catalog
	now   time.Time
	c     disruption.Cluster
	pools []nodepool.NodePool
}

// consolidating gives every pool Karpenter's defaults made explicit:
// WhenEmptyOrUnderutilized, consolidateAfter 0s, a budget of 10% (limits
// stay: the reserved pool, first by weight, is full at its cpu limit).
func consolidating(pools []nodepool.NodePool) []nodepool.NodePool {
	out := make([]nodepool.NodePool, len(pools))
	for i, np := range pools {
		np = np.DeepCopy()
		zero := "0s"
		np.Spec.Disruption = &nodepool.Disruption{ConsolidationPolicy: nodepool.ConsolidationWhenEmptyOrUnderutilized,
			ConsolidateAfter: &zero, Budgets: []nodepool.Budget{{Nodes: "10%"}}}
		out[i] = np
	}
	return out
}

// launch turns every planned NodeClaim into a running Node and NodeClaim
// (created two days ago; one in a hundred drifted), binds the pods, adds
// the DaemonSet pods and binds the volumes of stateful pods in the node's
// zone.
func (g *gen) launch(plan scheduler.Result) {
	pods := map[string]*corev1.Pod{}
	for _, p := range g.in.Pods {
		pods[p.Namespace+"/"+p.Name] = p
	}
	created := g.now.Add(-48 * time.Hour)
	for _, nc := range plan.NodeClaims {
		np := g.pool(nc.NodePool)
		n, claim := disruption.Launch(nc, np, g.cat, created)
		if g.r.IntN(100) == 0 {
			claim.Status.Conditions = append(claim.Status.Conditions, metav1.Condition{Type: disruption.ConditionDrifted,
				Status: metav1.ConditionTrue, Reason: "AMIDrift", LastTransitionTime: metav1.NewTime(g.now.Add(-time.Hour))})
		}
		g.c.Nodes = append(g.c.Nodes, n)
		g.c.NodeClaims = append(g.c.NodeClaims, claim)
		for _, key := range nc.Pods {
			g.bind(pods[key], n)
		}
		g.daemonPods(n)
	}
	g.c.PVCs = append(g.c.PVCs, g.in.PVCs...)
}

func (g *gen) pool(name string) *nodepool.NodePool {
	for i := range g.pools {
		if g.pools[i].Name == name {
			return &g.pools[i]
		}
	}
	return nil
}

// bind runs a pod on a node; one pod in two hundred is do-not-disrupt.
func (g *gen) bind(p *corev1.Pod, n *corev1.Node) {
	p = p.DeepCopy()
	p.Spec.NodeName = n.Name
	started := metav1.NewTime(g.now.Add(-47 * time.Hour))
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &started}
	if g.r.IntN(200) == 0 {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[disruption.AnnotationDoNotDisrupt] = "true"
	}
	g.c.Pods = append(g.c.Pods, p)
	g.bindVolumes(p, n)
}

// bindVolumes binds the pod's claims to volumes in the node's zone, as the
// volume controller did when the pod first ran.
func (g *gen) bindVolumes(p *corev1.Pod, n *corev1.Node) {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := "pv-" + p.Namespace + "-" + v.PersistentVolumeClaim.ClaimName
		zone := n.Labels["topology.kubernetes.io/zone"]
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}}}}
		g.c.PVs = append(g.c.PVs, pv)
		for i, c := range g.in.PVCs {
			if c.Namespace == p.Namespace && c.Name == v.PersistentVolumeClaim.ClaimName {
				c = c.DeepCopy()
				c.Spec.VolumeName = name
				g.in.PVCs[i] = c
			}
		}
	}
}

// daemonPods adds the pod of every DaemonSet that tolerates the node's
// taints.
func (g *gen) daemonPods(n *corev1.Node) {
	yes := true
	for _, ds := range g.in.DaemonSets {
		if len(n.Spec.Taints) > 0 && !slices.ContainsFunc(ds.Spec.Template.Spec.Tolerations, func(t corev1.Toleration) bool {
			return t.Operator == corev1.TolerationOpExists && t.Key == ""
		}) {
			continue
		}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: ds.Name + "-" + n.Name, Namespace: ds.Namespace, Labels: ds.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: &yes}}},
			Spec: *ds.Spec.Template.Spec.DeepCopy()}
		p.Spec.NodeName = n.Name
		p.Status.Phase = corev1.PodRunning
		g.c.Pods = append(g.c.Pods, p)
	}
}

// scaleDown removes a fraction of the workload pods (never DaemonSet pods),
// drawn from the seed.
func (g *gen) scaleDown(frac float64) {
	out := g.c.Pods[:0]
	for _, p := range g.c.Pods {
		daemon := len(p.OwnerReferences) > 0 && p.OwnerReferences[0].Kind == "DaemonSet"
		if !daemon && g.r.Float64() < frac {
			continue
		}
		out = append(out, p)
	}
	g.c.Pods = out
}

// pdbs adds a budget of 20% unavailable to every web and api Deployment
// and one of 1 to the stateful pods.
func (g *gen) pdbs() {
	add := func(name string, labels map[string]string, max intstr.IntOrString) {
		g.c.PodDisruptionBudgets = append(g.c.PodDisruptionBudgets, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, MaxUnavailable: &max}})
	}
	for i := range 10 {
		add(fmt.Sprintf("web-%d", i), map[string]string{"app": fmt.Sprintf("web-%d", i)}, intstr.FromString("20%"))
	}
	for i := range 8 {
		add(fmt.Sprintf("api-%d", i), map[string]string{"app": fmt.Sprintf("api-%d", i)}, intstr.FromString("20%"))
	}
	add("db", map[string]string{"app": "db"}, intstr.FromInt32(1))
}
