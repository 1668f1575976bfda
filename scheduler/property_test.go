package scheduler_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// propertySeed seeds every generated input; case i uses the stream
// (propertySeed, i), so a failing case reruns alone with -run.
const propertySeed = 20261130

// Wider sweeps than CI's: go test ./scheduler -run 'TestSolveProperties'
// -property.from 500 -property.cases 8500 checks cases 500-8999 (each is
// named by its index, so a failing one reruns alone with -run and the same
// -property.from).
var (
	propertyFrom  = flag.Int("property.from", 0, "first case of the property tests")
	propertyCount = flag.Int("property.cases", 0, "cases of the property tests (0: the test's own count)")
)

// propertyCases returns the case indexes to check, [from, to): the flags',
// else n (short under -short) from 0.
func propertyCases(n, short int) (from, to int) {
	if testing.Short() {
		n = short
	}
	if *propertyCount > 0 {
		n = *propertyCount
	}
	return *propertyFrom, *propertyFrom + n
}

// TestSolveProperties solves random small inputs and checks the plan:
// Solve succeeds, every pending pod appears exactly once, and Verify finds
// no violation.
func TestSolveProperties(t *testing.T) {
	cats := propertyCatalogs(t)
	from, to := propertyCases(500, 100)
	for i := from; i < to; i++ {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
			res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, in.opts...)
			require.NoError(t, err)
			checkOnce(t, in, res)
			err = verify.Plan(in.pods, in.pools, in.catalog.cat, res, in.opts...)
			if err != nil {
				t.Errorf("catalog %s: %v", in.catalog.name, err)
			}
		})
	}
}

// TestSolvePropertiesExistingFirst is TestSolveProperties under
// scheduler.WithExistingNodesFirst: a pod planned on a ready existing node
// may pass its spreads against the existing nodes alone, and Verify, which
// binds those pods first as kube-scheduler does, finds no violation.
func TestSolvePropertiesExistingFirst(t *testing.T) {
	cats := propertyCatalogs(t)
	from, to := propertyCases(300, 60)
	for i := from; i < to; i++ {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
			opts := append(slices.Clip(in.opts), scheduler.WithExistingNodesFirst())
			res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, opts...)
			require.NoError(t, err)
			checkOnce(t, in, res)
			err = verify.Plan(in.pods, in.pools, in.catalog.cat, res, opts...)
			if err != nil {
				t.Errorf("catalog %s: %v", in.catalog.name, err)
			}
		})
	}
}

func honorsTaints(p *corev1.Pod) bool {
	return p != nil && slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool {
		return c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	})
}

// uninitialized reports a tainted Karpenter node that has not finished
// initialising.
func uninitialized(n *corev1.Node) bool {
	_, managed := n.Labels[requirements.LabelNodePool]
	return managed && n.Labels[requirements.LabelNodeInitialized] != "true" && len(n.Spec.Taints) > 0 && n.DeletionTimestamp == nil
}

// checkOnce checks, without Verify, that every pending pod appears
// exactly once in the plan and that the plan names no other pod. The
// pending pods are the input's plus the pods of deleting nodes, which need
// a new home (but for DaemonSet pods and pods that are done or going away).
func checkOnce(t *testing.T, in propertyInput, res scheduler.Result) {
	t.Helper()
	seen := map[string]int{}
	for _, nc := range res.NodeClaims {
		for _, p := range nc.Pods {
			seen[p]++
		}
	}
	for _, n := range res.ExistingNodes {
		for _, p := range n.Pods {
			seen[p]++
		}
	}
	for _, e := range res.PodErrors {
		seen[e.Pod]++
	}
	pending := slices.Clone(in.pods)
	deleting := map[string]bool{}
	for _, n := range in.nodes {
		deleting[n.Name] = n.DeletionTimestamp != nil
	}
	for _, p := range in.bound {
		daemon := slices.ContainsFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" })
		if deleting[p.Spec.NodeName] && !daemon && p.Status.Phase != corev1.PodSucceeded && p.DeletionTimestamp == nil {
			pending = append(pending, p)
		}
	}
	want := map[string]int{}
	for _, p := range pending {
		want[p.Namespace+"/"+p.Name] = 1
	}
	if diff := gocmp.Diff(want, seen); diff != "" {
		t.Errorf("appearances of pods in the plan (-want +got):\n%s", diff)
	}
}

// propertyCatalog is a catalog with the facts the generator needs.
type propertyCatalog struct {
	name  string
	cat   instancetypes.Catalog
	zones []string
	gpu   corev1.ResourceName
	arm   bool
	// exprs are requirements on the catalog's own labels, for NodePools
	// and pods.
	exprs []corev1.NodeSelectorRequirement
}

func propertyCatalogs(t *testing.T) []propertyCatalog {
	t.Helper()
	data, err := os.ReadFile("../testdata/catalogs/k.json")
	require.NoError(t, err)
	k, err := instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)
	awsCat, err := aws.Catalog(aws.WithZones("us-east-1a", "us-east-1b", "us-east-1c"))
	require.NoError(t, err)
	return []propertyCatalog{
		{name: "k", cat: k, zones: []string{"z1", "z2", "z3"}, gpu: "vendor-a.com/gpu", arm: true, exprs: []corev1.NodeSelectorRequirement{
			testutil.Expr("size", corev1.NodeSelectorOpIn, "large"), testutil.Expr("integer", corev1.NodeSelectorOpGt, "2"),
			testutil.Expr("special", corev1.NodeSelectorOpDoesNotExist)}},
		{name: "mixed", cat: mixedCatalog(t), zones: []string{"z1", "z2", "z3"}, gpu: "nvidia.com/gpu", arm: true, exprs: []corev1.NodeSelectorRequirement{
			testutil.Expr("example.com/family", corev1.NodeSelectorOpIn, "m", "c"), testutil.Expr("example.com/family", corev1.NodeSelectorOpNotIn, "g")}},
		{name: "aws", cat: awsCat, zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, gpu: "nvidia.com/gpu", arm: true, exprs: []corev1.NodeSelectorRequirement{
			testutil.Expr("karpenter.k8s.aws/instance-cpu", corev1.NodeSelectorOpLt, "9"), testutil.Expr("karpenter.k8s.aws/instance-family", corev1.NodeSelectorOpIn, "m5", "c5", "t3")}},
	}
}

// mixedCatalog has prices that differ by zone and capacity type, offerings
// that are unavailable, a GPU type and a capacity reservation.
func mixedCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	type spec struct {
		name, arch, family string
		cpu, mem, pods     string
		price              float64
		zones              []string
	}
	specs := []spec{
		{"m.small", "amd64", "m", "2", "4Gi", "10", 0.05, []string{"z1", "z2", "z3"}},
		{"m.large", "amd64", "m", "4", "8Gi", "20", 0.10, []string{"z1", "z2", "z3"}},
		{"c.xlarge", "amd64", "c", "8", "8Gi", "30", 0.17, []string{"z1", "z2", "z3"}},
		{"a.medium", "arm64", "a", "2", "4Gi", "10", 0.04, []string{"z1", "z2"}},
		{"a.2xlarge", "arm64", "a", "8", "32Gi", "30", 0.16, []string{"z2", "z3"}},
		{"g.large", "amd64", "g", "4", "16Gi", "10", 0.50, []string{"z1", "z2"}},
		{"r.large", "amd64", "r", "2", "16Gi", "10", 0.12, []string{"z1", "z3"}},
	}
	var types []instancetypes.InstanceType
	for i, s := range specs {
		b := testutil.InstanceType(s.name).Label("kubernetes.io/arch", s.arch).Label("kubernetes.io/os", "linux").
			Label("example.com/family", s.family).CPU(s.cpu).Memory(s.mem).Pods(s.pods).
			KubeReserved(corev1.ResourceCPU, "100m").KubeReserved(corev1.ResourceMemory, "200Mi")
		if s.family == "g" {
			b.Capacity("nvidia.com/gpu", "1")
		}
		for j, z := range s.zones {
			spot := s.price * (0.3 + 0.1*float64((i+j)%4))
			if (i+j)%5 == 3 {
				b.UnavailableOffering(z, "spot", spot/2)
			} else {
				b.Offering(z, "spot", spot)
			}
			b.Offering(z, "on-demand", s.price+0.001*float64(j))
		}
		if s.family == "r" {
			b.OfferingOf(instancetypes.Offering{Zone: "z1", CapacityType: "reserved", Price: 0.01,
				ReservationID: "cr-1", ReservationCapacity: 2})
		}
		types = append(types, b.Obj())
	}
	cat, err := instancetypes.NewCatalog(types, instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)
	return cat
}

// propertyInput is one generated input.
type propertyInput struct {
	catalog propertyCatalog
	pods    []*corev1.Pod
	pools   []nodepool.NodePool
	opts    []scheduler.Option
	// what the options carry, for messages and reproductions
	nodes      []*corev1.Node
	bound      []*corev1.Pod
	daemonSets []*appsv1.DaemonSet
	pvcs       []*corev1.PersistentVolumeClaim
	pvs        []*corev1.PersistentVolume
	policies   []scheduler.Option
}

// options returns the solve options of the input.
func (in propertyInput) options() []scheduler.Option {
	var opts []scheduler.Option
	if len(in.nodes) > 0 {
		opts = append(opts, scheduler.WithExistingNodes(in.nodes, in.bound))
	}
	if len(in.daemonSets) > 0 {
		opts = append(opts, scheduler.WithDaemonSets(in.daemonSets))
	}
	if len(in.pvcs) > 0 {
		opts = append(opts, scheduler.WithVolumes(in.pvcs, in.pvs, []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("zonal", in.catalog.zones[:2]...)}))
	}
	return append(opts, in.policies...)
}

// generator draws one input; every choice comes from rng.
type generator struct {
	rng    *rand.Rand
	cat    propertyCatalog
	pools  []nodepool.NodePool
	groups int
	pvcs   []*corev1.PersistentVolumeClaim
	pvs    []*corev1.PersistentVolume
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) zone() string { return g.cat.zones[g.rng.IntN(len(g.cat.zones))] }

// zones returns a random non-empty subset of the catalog's zones.
func (g *generator) zones() []string {
	var out []string
	for _, z := range g.cat.zones {
		if g.chance(0.6) {
			out = append(out, z)
		}
	}
	if len(out) == 0 {
		out = []string{g.zone()}
	}
	return out
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func genInput(rng *rand.Rand, cats []propertyCatalog) propertyInput {
	g := &generator{rng: rng}
	switch r := rng.IntN(10); {
	case r < 4:
		g.cat = cats[0]
	case r < 9:
		g.cat = cats[1]
	default:
		g.cat = cats[2]
	}
	in := propertyInput{catalog: g.cat}
	for i := range 1 + rng.IntN(3) {
		g.pools = append(g.pools, g.pool(i))
	}
	in.pools = g.pools
	g.groups = 1 + rng.IntN(5)
	left := 1 + rng.IntN(60)
	for grp := 0; grp < g.groups && left > 0; grp++ {
		n := 1 + rng.IntN(left)
		if grp == g.groups-1 {
			n = left
		}
		left -= n
		in.pods = append(in.pods, g.group(grp, n)...)
	}
	var ds []*appsv1.DaemonSet
	if g.chance(0.4) {
		ds = append(ds, g.daemonSet())
	}
	in.nodes, in.bound = g.existing(ds)
	in.daemonSets, in.pvcs, in.pvs = ds, g.pvcs, g.pvs
	switch r := rng.IntN(10); {
	case r == 0:
		in.policies = append(in.policies, scheduler.WithPreferencePolicy(scheduler.PreferenceIgnore))
	case r == 1:
		in.policies = append(in.policies, scheduler.WithPreferencePolicy(scheduler.PreferenceWhileFree))
	}
	if g.chance(0.2) {
		in.policies = append(in.policies, scheduler.WithMinValuesPolicy(scheduler.MinValuesBestEffort))
	}
	if g.chance(0.1) {
		in.policies = append(in.policies, scheduler.WithMaxInstanceTypeOptions(1+rng.IntN(3)))
	}
	in.opts = in.options()
	return in
}

func (g *generator) pool(i int) nodepool.NodePool {
	name := "np-" + strconv.Itoa(i)
	b := testutil.NodePool(name)
	if g.chance(0.5) {
		b.Weight(int32(1 + g.rng.IntN(100)))
	}
	if g.chance(0.3) {
		b.Requirement("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, g.zones()...)
	}
	if g.chance(0.25) {
		b.Requirement("kubernetes.io/arch", corev1.NodeSelectorOpIn, pick(g.rng, "amd64", "arm64"))
	}
	if g.chance(0.3) {
		b.Requirement("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, pick(g.rng, []string{"spot"}, []string{"on-demand"}, []string{"spot", "on-demand"})...)
	}
	if g.chance(0.2) {
		if g.chance(0.5) {
			b.Requirement("team", corev1.NodeSelectorOpExists)
		} else {
			b.Requirement("team", corev1.NodeSelectorOpIn, "a", "b")
		}
	}
	if g.chance(0.15) {
		b.Label("tier", pick(g.rng, "x", "y"))
	}
	if g.chance(0.1) {
		e := g.cat.exprs[g.rng.IntN(len(g.cat.exprs))]
		b.Requirement(e.Key, e.Operator, e.Values...)
	}
	if g.chance(0.1) {
		b.Requirement("node.kubernetes.io/instance-type", corev1.NodeSelectorOpExists).MinValues(2)
	}
	if g.chance(0.25) {
		b.Taint("dedicated", name, corev1.TaintEffectNoSchedule)
	}
	if g.chance(0.1) {
		b.StartupTaint("example.com/booting", "true", corev1.TaintEffectNoSchedule)
	}
	if g.chance(0.2) {
		b.Limit(corev1.ResourceCPU, strconv.Itoa(4+g.rng.IntN(60)))
	}
	if g.chance(0.05) {
		b.Limit("nodes", strconv.Itoa(1+g.rng.IntN(5)))
	}
	return b.Obj()
}

// group returns n replicas of one random pod spec, labelled app=g<grp>.
func (g *generator) group(grp, n int) []*corev1.Pod {
	app := "g" + strconv.Itoa(grp)
	self := map[string]string{"app": app}
	b := testutil.Pod(app).Label("app", app)
	if cpu := pick(g.rng, "", "100m", "250m", "500m", "1", "1500m", "3"); cpu != "" {
		b.CPU(cpu)
	}
	if mem := pick(g.rng, "", "128Mi", "512Mi", "1Gi", "3Gi"); mem != "" {
		b.Memory(mem)
	}
	if g.chance(0.1) {
		b.Request(g.cat.gpu, "1")
	}
	if g.chance(0.1) {
		b.InitContainer("init", pick(g.rng, "500m", "2"), "256Mi", g.chance(0.5))
	}
	g.selectors(b)
	if g.chance(0.3) {
		b.Toleration("dedicated", corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)
	}
	if g.chance(0.05) {
		b.Toleration("", corev1.TolerationOpExists, "", "")
	}
	g.topology(b, self)
	if g.chance(0.05) {
		b.HostPort(8080, corev1.ProtocolTCP)
	}
	if g.chance(0.1) {
		b.Namespace("team-b")
	}
	pods := make([]*corev1.Pod, n)
	volume := pick(g.rng, "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "bound", "unbound")
	for i := range n {
		name := app + "-" + strconv.Itoa(i)
		p := b.Obj()
		p.Name = name
		p.Labels["version"] = "v" + strconv.Itoa(i%2)
		if volume != "" {
			claim := "data-" + name
			pvc := testutil.PVC(claim, "pv-"+name, "")
			if volume == "bound" {
				g.pvs = append(g.pvs, testutil.ZonalPV("pv-"+name, g.zone()))
			} else {
				pvc = testutil.PVC(claim, "", "zonal")
			}
			pvc.Namespace = p.Namespace
			g.pvcs = append(g.pvcs, pvc)
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		}
		pods[i] = p
	}
	return pods
}

// selectors adds random node selectors and node affinity.
func (g *generator) selectors(b *testutil.PodBuilder) {
	if g.chance(0.3) {
		switch g.rng.IntN(4) {
		case 0:
			b.NodeSelector("topology.kubernetes.io/zone", g.zone())
		case 1:
			b.NodeSelector(pick(g.rng, "kubernetes.io/arch", "beta.kubernetes.io/arch"), pick(g.rng, "amd64", "arm64"))
		case 2:
			b.NodeSelector("team", pick(g.rng, "a", "b", "c"))
		default:
			b.NodeSelector("tier", pick(g.rng, "x", "y"))
		}
	}
	if g.chance(0.1) {
		b.RequiredTerm(testutil.Expr("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, g.zones()...))
		if g.chance(0.5) {
			b.RequiredTerm(testutil.Expr("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand"))
		}
	}
	if g.chance(0.1) {
		b.PreferredTerm(10, testutil.Expr("topology.kubernetes.io/zone", corev1.NodeSelectorOpIn, g.zone()))
	}
	if g.chance(0.05) {
		b.RequiredTerm(testutil.Expr("team", corev1.NodeSelectorOpNotIn, "a"))
	}
	if g.chance(0.1) {
		b.RequiredTerm(g.cat.exprs[g.rng.IntN(len(g.cat.exprs))])
	}
}

// topology adds random spread constraints and pod (anti-)affinity.
func (g *generator) topology(b *testutil.PodBuilder, self map[string]string) {
	when := func() corev1.UnsatisfiableConstraintAction {
		if g.chance(0.7) {
			return corev1.DoNotSchedule
		}
		return corev1.ScheduleAnyway
	}
	if g.chance(0.25) {
		c := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + g.rng.IntN(2)), TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: when(), LabelSelector: &metav1.LabelSelector{MatchLabels: self}}
		if g.chance(0.1) {
			three := int32(3)
			c.MinDomains = &three
		}
		if g.chance(0.15) {
			honor := corev1.NodeInclusionPolicyHonor
			c.NodeTaintsPolicy = &honor
		}
		if g.chance(0.1) {
			ignore := corev1.NodeInclusionPolicyIgnore
			c.NodeAffinityPolicy = &ignore
		}
		b.SpreadConstraint(c)
	}
	if g.chance(0.2) {
		c := corev1.TopologySpreadConstraint{MaxSkew: int32(1 + g.rng.IntN(3)), TopologyKey: "kubernetes.io/hostname",
			WhenUnsatisfiable: when(), LabelSelector: &metav1.LabelSelector{MatchLabels: self}}
		if g.chance(0.2) {
			c.MatchLabelKeys = []string{"version"}
		}
		b.SpreadConstraint(c)
	}
	if g.chance(0.05) {
		b.Spread("karpenter.sh/capacity-type", 1, when(), self)
	}
	if g.chance(0.15) {
		b.PodAntiAffinity("kubernetes.io/hostname", self)
	}
	if g.chance(0.05) {
		b.PodAntiAffinity("topology.kubernetes.io/zone", self)
	}
	if g.chance(0.05) {
		term := corev1.PodAffinityTerm{TopologyKey: pick(g.rng, "kubernetes.io/hostname", "topology.kubernetes.io/zone"),
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "g" + strconv.Itoa(g.rng.IntN(g.groups))}}}
		if g.chance(0.5) {
			term.NamespaceSelector = &metav1.LabelSelector{}
		}
		b.PodAffinityTerm(term)
	}
	if g.chance(0.05) {
		b.PreferredPodAntiAffinity(50, "kubernetes.io/hostname", self)
	}
}

func (g *generator) daemonSet() *appsv1.DaemonSet {
	b := testutil.Pod("agent").CPU("100m").Memory("100Mi")
	if g.chance(0.5) {
		b.Toleration("", corev1.TolerationOpExists, "", "")
	}
	if g.chance(0.2) {
		b.HostPort(9100, corev1.ProtocolTCP)
	}
	if g.chance(0.2) {
		b.NodeSelector("kubernetes.io/arch", "amd64")
	}
	if g.chance(0.15) {
		b.NodeSelector("topology.kubernetes.io/zone", g.zone())
	}
	return testutil.DaemonSet("agent", b.Obj())
}

// existing returns 0–3 existing nodes and the pods bound to them.
func (g *generator) existing(ds []*appsv1.DaemonSet) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var bound []*corev1.Pod
	for i := range g.rng.IntN(4) {
		name := "node-" + strconv.Itoa(i)
		b := testutil.Node(name).Label("topology.kubernetes.io/zone", g.zone()).Label("kubernetes.io/arch", "amd64").
			Label("karpenter.sh/capacity-type", "on-demand").Size(pick(g.rng, "2", "4", "8"), pick(g.rng, "4Gi", "8Gi"), "10")
		if g.chance(0.5) {
			pool := g.pools[g.rng.IntN(len(g.pools))].Name
			b.Label("karpenter.sh/nodepool", pool)
			if g.chance(0.7) {
				b.Label("karpenter.sh/initialized", "true")
			} else {
				b.Taint("node.kubernetes.io/not-ready", "", corev1.TaintEffectNoExecute)
			}
		}
		if g.chance(0.2) {
			b.Taint("dedicated", "np-0", corev1.TaintEffectNoSchedule)
		}
		if g.chance(0.05) {
			b.Unschedulable()
		}
		if g.chance(0.05) {
			b.Deleting()
		}
		nodes = append(nodes, b.Obj())
		for j := range g.rng.IntN(4) {
			app := "g" + strconv.Itoa(g.rng.IntN(g.groups))
			p := testutil.Pod(name+"-bound-"+strconv.Itoa(j)).Label("app", app).NodeName(name).CPU(pick(g.rng, "100m", "500m", "1"))
			if g.chance(0.2) {
				p.PodAntiAffinity("kubernetes.io/hostname", map[string]string{"app": app})
			}
			if g.chance(0.1) {
				p.Phase(corev1.PodSucceeded)
			}
			bound = append(bound, p.Obj())
		}
		if len(ds) > 0 && g.chance(0.5) {
			bound = append(bound, testutil.Pod(name+"-agent").Namespace(ds[0].Namespace).OwnedBy("DaemonSet", ds[0].Name).
				NodeName(name).CPU("100m").Memory("100Mi").Obj())
		}
	}
	return nodes, bound
}

// TestGeneratorCoversFeatures guards the generator: across the property
// cases it draws every feature at least once.
func TestGeneratorCoversFeatures(t *testing.T) {
	cats := propertyCatalogs(t)
	seen := map[string]bool{}
	for i := range 500 {
		in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
		seen["catalog "+in.catalog.name] = true
		for _, np := range in.pools {
			if len(np.Spec.Template.Spec.Taints) > 0 {
				seen["pool taint"] = true
			}
			if len(np.Spec.Limits) > 0 {
				seen["pool limits"] = true
			}
		}
		for _, p := range in.pods {
			for _, c := range p.Spec.TopologySpreadConstraints {
				seen["spread "+c.TopologyKey] = true
			}
			if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
				seen["anti-affinity"] = true
			}
			if len(p.Spec.Volumes) > 0 {
				seen["volume"] = true
			}
			if honorsTaints(p) {
				seen["nodeTaintsPolicy Honor"] = true
			}
			if p.Namespace != "default" {
				seen["namespace"] = true
			}
		}
		for _, n := range in.nodes {
			if n.DeletionTimestamp != nil {
				seen["deleting node"] = true
			}
			if uninitialized(n) {
				seen["uninitialized node"] = true
			}
		}
		if len(in.daemonSets) > 0 {
			seen["DaemonSet"] = true
		}
		if len(in.opts) > 0 {
			seen["options"] = true
		}
	}
	for _, want := range []string{"catalog k", "catalog mixed", "catalog aws", "pool taint", "pool limits",
		"spread topology.kubernetes.io/zone", "spread kubernetes.io/hostname", "spread karpenter.sh/capacity-type",
		"anti-affinity", "volume", "options", "nodeTaintsPolicy Honor", "namespace", "deleting node", "uninitialized node", "DaemonSet"} {
		if !seen[want] {
			t.Errorf("the generator never draws %s", want)
		}
	}
}
