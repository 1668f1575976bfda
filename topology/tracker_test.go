package topology_test

import (
	"fmt"
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

const (
	spreadZoneWeb = "topology spread on topology.kubernetes.io/zone (app=web)"
	spreadHostWeb = "topology spread on kubernetes.io/hostname (app=web)"
	affinityZone  = "pod affinity on topology.kubernetes.io/zone (app=db)"
	antiZoneDB    = "pod anti-affinity on topology.kubernetes.io/zone (app=db)"
	antiZoneWeb   = "pod anti-affinity on topology.kubernetes.io/zone (app=web)"
	antiHostWeb   = "pod anti-affinity on kubernetes.io/hostname (app=web)"
)

func pin(key, value string) string { return requirements.In(key, value).String() }

func zoneSpread(maxSkew int32, when corev1.UnsatisfiableConstraintAction) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: zoneKey, WhenUnsatisfiable: when,
		LabelSelector: &metav1.LabelSelector{MatchLabels: web}}
}

func TestRegisterTerms(t *testing.T) {
	t.Parallel()
	// termView is the public part of a Term.
	type termView struct {
		Kind     topology.Kind
		Key      string
		Required bool
		Weight   int32
		Describe string
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want []termView
	}{
		{
			name: "no constraints: no terms",
			pod:  testutil.Pod("plain").Label("app", "web").Obj(),
		},
		{
			name: "spread: DoNotSchedule is required, ScheduleAnyway is not",
			pod: testutil.Pod("web").Label("app", "web").
				Spread(zoneKey, 1, corev1.DoNotSchedule, web).
				Spread(hostKey, 2, corev1.ScheduleAnyway, web).Obj(),
			want: []termView{
				{Kind: topology.Spread, Key: zoneKey, Required: true, Describe: spreadZoneWeb},
				{Kind: topology.Spread, Key: hostKey, Describe: spreadHostWeb},
			},
		},
		{
			name: "affinity then anti-affinity, required then preferred with weights",
			pod: testutil.Pod("api").Label("app", "api").
				PreferredPodAntiAffinity(20, hostKey, web).
				PodAntiAffinity(zoneKey, db).
				PreferredPodAffinity(70, zoneKey, db).
				PodAffinity(zoneKey, db).Obj(),
			want: []termView{
				{Kind: topology.Affinity, Key: zoneKey, Required: true, Describe: affinityZone},
				{Kind: topology.Affinity, Key: zoneKey, Weight: 70, Describe: affinityZone},
				{Kind: topology.AntiAffinity, Key: zoneKey, Required: true, Describe: antiZoneDB},
				{Kind: topology.AntiAffinity, Key: hostKey, Weight: 20, Describe: antiHostWeb},
			},
		},
		{
			name: "deprecated topology key is normalised",
			pod:  testutil.Pod("api").Label("app", "api").PodAntiAffinity("failure-domain.beta.kubernetes.io/zone", db).Obj(),
			want: []termView{{Kind: topology.AntiAffinity, Key: zoneKey, Required: true, Describe: antiZoneDB}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(tc.pod))[0]
			var got []termView
			for _, term := range p.Terms {
				got = append(got, termView{Kind: term.Kind, Key: term.Key, Required: term.Required, Weight: term.Weight, Describe: term.Describe()})
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Terms (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegisterTopologyKeyNormalised(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema requirements.Schema
		key    string
		want   string
	}{
		{name: "deprecated zone key, default schema", schema: requirements.DefaultSchema(), key: "failure-domain.beta.kubernetes.io/zone", want: zoneKey},
		{name: "deprecated zone key, a schema without aliases", schema: requirements.Schema{}, key: "failure-domain.beta.kubernetes.io/zone", want: zoneKey},
		{name: "EBS CSI zone key, AWS schema", schema: aws.Schema(), key: aws.LabelEBSCSIZone, want: zoneKey},
		{name: "EBS CSI zone key, default schema", schema: requirements.DefaultSchema(), key: aws.LabelEBSCSIZone, want: aws.LabelEBSCSIZone},
		{name: "custom key", schema: requirements.DefaultSchema(), key: rackKey, want: rackKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(tc.schema, []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(tc.key, 1, corev1.DoNotSchedule, web).Obj()))[0]
			require.Len(t, p.Terms, 1)
			if diff := gocmp.Diff([]string{tc.want}, []string{p.Terms[0].Key}); diff != "" {
				t.Errorf("term key (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff([]string{tc.want}, p.Keys()); diff != "" {
				t.Errorf("Keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegisterInvalidSelector(t *testing.T) {
	t.Parallel()
	bad := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus", Values: []string{"x"}}}}
	tests := []struct {
		name string
		pod  *corev1.Pod
	}{
		{
			name: "spread",
			pod: testutil.Pod("a").SpreadConstraint(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: zoneKey,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: bad}).Obj(),
		},
		{
			name: "affinity",
			pod:  testutil.Pod("a").PodAffinityTerm(corev1.PodAffinityTerm{TopologyKey: zoneKey, LabelSelector: bad}).Obj(),
		},
		{
			name: "anti-affinity namespace selector",
			pod: testutil.Pod("a").PodAntiAffinityTerm(corev1.PodAffinityTerm{TopologyKey: zoneKey,
				LabelSelector: &metav1.LabelSelector{MatchLabels: db}, NamespaceSelector: bad}).Obj(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			if _, err := tr.Register(specOf(tc.pod)); err == nil {
				t.Fatal("Register accepted an invalid selector")
			}
		})
	}
}

func TestCheckZoneSpread(t *testing.T) {
	t.Parallel()
	three := int32(3)
	five := int32(5)
	tests := []struct {
		name       string
		maxSkew    int32
		minDomains *int32
		recorded   []string // zones a pod of the class was recorded in first
		host       *topology.Host
		rank       topology.Ranker
		want       outcome
	}{
		{
			name:    "empty: open claim pinned to the first zone by value",
			maxSkew: 1, host: openClaim("c"),
			want: ok(pin(zoneKey, zoneA)),
		},
		{
			name:    "empty: the ranker breaks the tie",
			maxSkew: 1, host: openClaim("c"), rank: rankBy(map[string]float64{zoneA: 3, zoneB: 1, zoneC: 2}),
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "the least loaded zone beats the ranker",
			maxSkew: 2, recorded: []string{zoneB}, host: openClaim("c"), rank: rankBy(map[string]float64{zoneA: 3, zoneB: 1, zoneC: 2}),
			want: ok(pin(zoneKey, zoneC)),
		},
		{
			name:    "the least loaded zone beats a cheaper loaded zone that sorts first",
			maxSkew: 2, recorded: []string{zoneA}, host: openClaim("c"), rank: rankBy(map[string]float64{zoneA: 1, zoneB: 3, zoneC: 2}),
			want: ok(pin(zoneKey, zoneC)),
		},
		{
			name:    "maxSkew keeps the pod out of the loaded zone",
			maxSkew: 1, recorded: []string{zoneA}, host: openClaim("c"), rank: rankBy(map[string]float64{zoneA: 0}),
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "only the empty zone is left",
			maxSkew: 1, recorded: []string{zoneA, zoneB}, host: openClaim("c"),
			want: ok(pin(zoneKey, zoneC)),
		},
		{
			name:    "balanced: every zone is allowed again",
			maxSkew: 1, recorded: []string{zoneA, zoneB, zoneC}, host: openClaim("c"), rank: rankBy(map[string]float64{zoneC: 0}),
			want: ok(pin(zoneKey, zoneC)),
		},
		{
			name:    "maxSkew 2 allows a second pod in the same zone",
			maxSkew: 2, recorded: []string{zoneA}, host: zonalClaim("c", zoneA),
			want: ok(),
		},
		{
			name:    "planned claim in the loaded zone is refused",
			maxSkew: 1, recorded: []string{zoneA}, host: zonalClaim("c", zoneA),
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false),
		},
		{
			name:    "planned claim in an empty zone needs no pin",
			maxSkew: 1, recorded: []string{zoneA}, host: zonalClaim("c", zoneB),
			want: ok(),
		},
		{
			name:    "planned claim open over two zones is pinned to the allowed one",
			maxSkew: 1, recorded: []string{zoneA}, host: zonalClaim("c", zoneA, zoneB),
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "a domain lister restricts the candidates",
			maxSkew: 1, recorded: []string{zoneB},
			host: &topology.Host{Hostname: "c", Domains: domainList{zoneKey: {zoneB, zoneC}}},
			want: ok(pin(zoneKey, zoneC)),
		},
		{
			name:    "a domain lister is restricted by the claim's requirements",
			maxSkew: 1,
			host: &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(zoneKey, zoneB, zoneC)),
				Domains: domainList{zoneKey: {zoneA, zoneB, zoneC}}},
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "a domain lister with a lone value still pins it",
			maxSkew: 1, host: &topology.Host{Hostname: "c", Domains: domainList{zoneKey: {zoneB}}},
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "without a domain lister every zone seen is a candidate",
			maxSkew: 1, recorded: []string{zoneA}, host: &topology.Host{Hostname: "c"},
			want: ok(pin(zoneKey, zoneB)),
		},
		{
			name:    "existing node in the loaded zone is refused",
			maxSkew: 1, recorded: []string{zoneA}, host: onNode(zoneNode("n", zoneA)),
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false),
		},
		{
			name:    "existing node without the zone label is refused",
			maxSkew: 1, host: onNode(zoneNode("n", "")),
			want: refused(topology.Spread, zoneKey, "", false),
		},
		{
			name:    "minDomains above the eligible zones makes the global minimum 0",
			maxSkew: 1, minDomains: &five, recorded: []string{zoneA, zoneB, zoneC}, host: openClaim("c"),
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false),
		},
		{
			name:    "minDomains equal to the eligible zones keeps the real minimum",
			maxSkew: 1, minDomains: &three, recorded: []string{zoneA, zoneB, zoneC}, host: openClaim("c"),
			want: ok(pin(zoneKey, zoneA)),
		},
		{
			name:    "minDomains with a larger maxSkew still allows",
			maxSkew: 2, minDomains: &five, recorded: []string{zoneA, zoneB, zoneC}, host: zonalClaim("c", zoneB),
			want: ok(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			c := zoneSpread(tc.maxSkew, corev1.DoNotSchedule)
			c.MinDomains = tc.minDomains
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").SpreadConstraint(c).Obj()))[0]
			for i, z := range tc.recorded {
				tr.Record(p, allTerms, zonalClaim(fmt.Sprintf("r%d", i), z))
			}
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, tc.rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckWhenUnsatisfiable: a required term is always enforced; whether a
// preferred one is enforced is the caller's choice (Active).
func TestCheckWhenUnsatisfiable(t *testing.T) {
	t.Parallel()
	bare := zoneNode("bare", "")
	full := zonalClaim("c", zoneA) // zone a holds a pod already
	tests := []struct {
		name   string
		when   corev1.UnsatisfiableConstraintAction
		active topology.Active
		host   *topology.Host
		want   outcome
	}{
		{name: "DoNotSchedule is enforced even when inactive", when: corev1.DoNotSchedule, active: requiredOnly, host: full,
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		{name: "DoNotSchedule active", when: corev1.DoNotSchedule, active: allTerms, host: full,
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		{name: "ScheduleAnyway inactive is ignored", when: corev1.ScheduleAnyway, active: requiredOnly, host: full,
			want: ok()},
		{name: "ScheduleAnyway active is enforced", when: corev1.ScheduleAnyway, active: allTerms, host: full,
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		{name: "DoNotSchedule on a node without the key, inactive", when: corev1.DoNotSchedule, active: requiredOnly, host: onNode(bare),
			want: refused(topology.Spread, zoneKey, "", false)},
		{name: "ScheduleAnyway on a node without the key, inactive", when: corev1.ScheduleAnyway, active: requiredOnly, host: onNode(bare),
			want: ok()},
		{name: "ScheduleAnyway on a node without the key, active", when: corev1.ScheduleAnyway, active: allTerms, host: onNode(bare),
			want: refused(topology.Spread, zoneKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").SpreadConstraint(zoneSpread(1, tc.when)).Obj()))[0]
			require.Len(t, p.Terms, 1)
			require.Equal(t, tc.when == corev1.DoNotSchedule, p.Terms[0].Required)
			tr.Record(p, allTerms, zonalClaim("r", zoneA))
			if diff := gocmp.Diff(tc.want, check(tr, p, tc.active, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckHostnameSpread: on hostname the global minimum is always 0 (a new
// node is an empty domain), so a refusal is permanent.
func TestCheckHostnameSpread(t *testing.T) {
	t.Parallel()
	n1, n2, n3 := zoneNode("n1", zoneA), zoneNode("n2", zoneA), zoneNode("n3", zoneB)
	tests := []struct {
		name    string
		maxSkew int32
		when    corev1.UnsatisfiableConstraintAction
		host    *topology.Host
		want    outcome
	}{
		{name: "node with a match refused although every node has one", maxSkew: 1, when: corev1.DoNotSchedule, host: onNode(n1),
			want: refused(topology.Spread, hostKey, spreadHostWeb, true)},
		{name: "empty existing node allowed", maxSkew: 1, when: corev1.DoNotSchedule, host: onNode(n3), want: ok()},
		{name: "new claim allowed without a pin", maxSkew: 1, when: corev1.DoNotSchedule, host: openClaim("c"), want: ok()},
		{name: "recorded claim refused", maxSkew: 1, when: corev1.DoNotSchedule, host: zonalClaim("rec", zoneB),
			want: refused(topology.Spread, hostKey, spreadHostWeb, true)},
		{name: "maxSkew 2 allows a second pod", maxSkew: 2, when: corev1.DoNotSchedule, host: onNode(n1), want: ok()},
		{name: "ScheduleAnyway refusal is not permanent", maxSkew: 1, when: corev1.ScheduleAnyway, host: onNode(n1),
			want: refused(topology.Spread, hostKey, spreadHostWeb, false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(),
				[]topology.Source{zonePool(), nodeSource(n1), nodeSource(n2), nodeSource(n3)}, nil,
				[]topology.ExistingPod{bound(n1, web), bound(n2, web)})
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(hostKey, tc.maxSkew, tc.when, web).Obj()))[0]
			tr.Record(p, allTerms, zonalClaim("rec", zoneB))
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckCapacityTypeSpread(t *testing.T) {
	t.Parallel()
	onDemand := &topology.Host{Hostname: "od", Requirements: requirements.NewRequirements(requirements.In(ctKey, requirements.CapacityTypeOnDemand))}
	spot := &topology.Host{Hostname: "spot", Requirements: requirements.NewRequirements(requirements.In(ctKey, requirements.CapacityTypeSpot))}
	tests := []struct {
		name     string
		recorded []*topology.Host
		host     *topology.Host
		rank     topology.Ranker
		want     outcome
	}{
		{name: "empty: on-demand first by value", host: openClaim("c"), want: ok(pin(ctKey, requirements.CapacityTypeOnDemand))},
		{name: "empty: ranker prefers spot", host: openClaim("c"),
			rank: rankBy(map[string]float64{requirements.CapacityTypeSpot: 1, requirements.CapacityTypeOnDemand: 2}),
			want: ok(pin(ctKey, requirements.CapacityTypeSpot))},
		{name: "after on-demand, spot", recorded: []*topology.Host{onDemand}, host: openClaim("c"),
			want: ok(pin(ctKey, requirements.CapacityTypeSpot))},
		{name: "after on-demand, an on-demand claim is refused", recorded: []*topology.Host{onDemand}, host: onDemand,
			want: refused(topology.Spread, ctKey, "topology spread on karpenter.sh/capacity-type (app=web)", false)},
		{name: "balanced: both allowed", recorded: []*topology.Host{onDemand, spot}, host: openClaim("c"),
			want: ok(pin(ctKey, requirements.CapacityTypeOnDemand))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(ctKey, 1, corev1.DoNotSchedule, web).Obj()))[0]
			for _, h := range tc.recorded {
				tr.Record(p, allTerms, h)
			}
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, tc.rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckCustomKeySpread: a key no schema declares exists only where a
// node has the label or a claim's requirements give it values.
func TestCheckCustomKeySpread(t *testing.T) {
	t.Parallel()
	r1 := &topology.Node{Name: "r1-node", Labels: map[string]string{hostKey: "r1-node", rackKey: "r1"}}
	bare := zoneNode("bare", zoneA)
	racks := func(values ...string) *topology.Host {
		return &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(rackKey, values...))}
	}
	group := "topology spread on example.com/rack (app=web)"
	tests := []struct {
		name string
		host *topology.Host
		want outcome
	}{
		{name: "claim without the label is refused", host: openClaim("c"), want: refused(topology.Spread, rackKey, "", false)},
		{name: "claim without the label or a domain lister is refused", host: &topology.Host{Hostname: "c"}, want: refused(topology.Spread, rackKey, "", false)},
		{name: "existing node without the label is refused", host: onNode(bare), want: refused(topology.Spread, rackKey, "", false)},
		{name: "claim over two racks is pinned to the empty one", host: racks("r1", "r2"), want: ok(pin(rackKey, "r2"))},
		{name: "claim in the loaded rack is refused", host: racks("r1"), want: refused(topology.Spread, rackKey, group, false)},
		{name: "existing node in the loaded rack is refused", host: onNode(r1), want: refused(topology.Spread, rackKey, group, false)},
		// A claim whose NodePool declares the label with Exists carries it
		// with a value no instance type decides: it takes a known domain.
		{name: "claim that must carry the label is pinned to the empty rack", host: &topology.Host{Hostname: "c",
			Requirements: requirements.NewRequirements(requirements.Exists(rackKey)), Domains: domainList{}}, want: ok(pin(rackKey, "r2"))},
		{name: "claim that must carry the label other than r2 is refused", host: &topology.Host{Hostname: "c",
			Requirements: requirements.NewRequirements(requirements.Exists(rackKey).Intersect(requirements.NotIn(rackKey, "r2"))), Domains: domainList{}},
			want: refused(topology.Spread, rackKey, group, false)},
		// NotIn alone lets the node go without the label, as finalisation
		// labels it when the key is counted: no domain.
		{name: "claim that may go without the label is refused", host: &topology.Host{Hostname: "c",
			Requirements: requirements.NewRequirements(requirements.NotIn(rackKey, "r1")), Domains: domainList{}},
			want: refused(topology.Spread, rackKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool := topology.Source{Name: "racks", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r1", "r2")),
				Values: func(key string, _ requirements.Requirements) []string {
					if key == rackKey {
						return []string{"r1", "r2"}
					}
					return nil
				}}
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool, nodeSource(r1), nodeSource(bare)}, nil,
				[]topology.ExistingPod{bound(r1, web)})
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(rackKey, 1, corev1.DoNotSchedule, web).Obj()))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckSpreadCounting: which pods a spread group counts (namespace,
// selector, matchLabelKeys, node inclusion policies).
func TestCheckSpreadCounting(t *testing.T) {
	t.Parallel()
	nA := zoneNode("na", zoneA)
	tainted := zoneNode("tainted", zoneA)
	tainted.Taints = []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	spread := func(p *testutil.PodBuilder, mut func(*corev1.TopologySpreadConstraint)) *testutil.PodBuilder {
		c := zoneSpread(1, corev1.DoNotSchedule)
		if mut != nil {
			mut(&c)
		}
		return p.SpreadConstraint(c)
	}
	tests := []struct {
		name      string
		existing  []topology.ExistingPod
		pod       *corev1.Pod
		reqs      []requirements.Requirements // the pod's strict node requirements
		wantZoneA bool                        // zone a still allowed
	}{
		{
			name:     "a match in the pod's namespace counts",
			existing: []topology.ExistingPod{bound(nA, web)},
			pod:      spread(testutil.Pod("web").Label("app", "web"), nil).Obj(),
		},
		{
			name:      "a match in another namespace does not count",
			existing:  []topology.ExistingPod{{Namespace: "other", Labels: web, Node: nA}},
			pod:       spread(testutil.Pod("web").Label("app", "web"), nil).Obj(),
			wantZoneA: true,
		},
		{
			name:      "a pod the selector does not select does not count",
			existing:  []topology.ExistingPod{bound(nA, db)},
			pod:       spread(testutil.Pod("web").Label("app", "web"), nil).Obj(),
			wantZoneA: true,
		},
		{
			name:      "a pod that does not match its own selector adds no self count",
			existing:  []topology.ExistingPod{bound(nA, web)},
			pod:       spread(testutil.Pod("api").Label("app", "api"), nil).Obj(),
			wantZoneA: true, // 1 + 0 - 0 <= 1
		},
		{
			name:     "matchLabelKeys: a pod of the same version counts",
			existing: []topology.ExistingPod{bound(nA, map[string]string{"app": "web", "version": "v1"})},
			pod: spread(testutil.Pod("web").Label("app", "web").Label("version", "v1"),
				func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"version"} }).Obj(),
		},
		{
			name:     "matchLabelKeys: a pod of another version does not count",
			existing: []topology.ExistingPod{bound(nA, map[string]string{"app": "web", "version": "v1"})},
			pod: spread(testutil.Pod("web").Label("app", "web").Label("version", "v2"),
				func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"version"} }).Obj(),
			wantZoneA: true,
		},
		{
			name:     "matchLabelKeys: a key the pod lacks is ignored",
			existing: []topology.ExistingPod{bound(nA, map[string]string{"app": "web", "version": "v1"})},
			pod: spread(testutil.Pod("web").Label("app", "web"),
				func(c *corev1.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"version"} }).Obj(),
		},
		{
			name:     "nodeTaintsPolicy Ignore (default) counts a pod on a tainted node",
			existing: []topology.ExistingPod{bound(tainted, web)},
			pod:      spread(testutil.Pod("web").Label("app", "web"), func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = &ignore }).Obj(),
		},
		{
			name:      "nodeTaintsPolicy Honor skips a pod on a node whose taint the pod does not tolerate",
			existing:  []topology.ExistingPod{bound(tainted, web)},
			pod:       spread(testutil.Pod("web").Label("app", "web"), func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = &honor }).Obj(),
			wantZoneA: true,
		},
		{
			name:     "nodeTaintsPolicy Honor counts a pod on a node whose taint the pod tolerates",
			existing: []topology.ExistingPod{bound(tainted, web)},
			pod: spread(testutil.Pod("web").Label("app", "web").Toleration("dedicated", corev1.TolerationOpEqual, "x", corev1.TaintEffectNoSchedule),
				func(c *corev1.TopologySpreadConstraint) { c.NodeTaintsPolicy = &honor }).Obj(),
		},
		{
			name:      "nodeAffinityPolicy Honor (default) skips a pod on a node the pod's affinity excludes",
			existing:  []topology.ExistingPod{bound(nA, web)},
			pod:       spread(testutil.Pod("web").Label("app", "web"), nil).Obj(),
			reqs:      []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))},
			wantZoneA: true,
		},
		{
			name:     "nodeAffinityPolicy Ignore counts it",
			existing: []topology.ExistingPod{bound(nA, web)},
			pod:      spread(testutil.Pod("web").Label("app", "web"), func(c *corev1.TopologySpreadConstraint) { c.NodeAffinityPolicy = &ignore }).Obj(),
			reqs:     []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, tc.existing)
			spec := specOf(tc.pod)
			spec.Requirements = tc.reqs
			p := register(t, tr, spec)[0]
			// The claim is in zone a and carries the label the pod requires.
			host := &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(zoneKey, zoneA), requirements.In("team", "blue"))}
			got := check(tr, p, allTerms, host, nil)
			if diff := gocmp.Diff(tc.wantZoneA, got.Violation == nil); diff != "" {
				t.Errorf("zone a allowed (-want +got):\n%s\ncheck: %+v", diff, got)
			}
		})
	}
}

// TestCheckSpreadOwners: a pod a required spread group counts but does not
// own is kept within the skew of the owners already in a domain.
func TestCheckSpreadOwners(t *testing.T) {
	t.Parallel()
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
	pods := register(t, tr,
		specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj()),
		specOf(testutil.Pod("follower").Label("app", "web").Obj()),
		specOf(testutil.Pod("other").Label("app", "other").Obj()),
	)
	owner, follower, other := pods[0], pods[1], pods[2]
	require.True(t, follower.Relevant())
	require.False(t, other.Relevant())

	checks := func() []outcome {
		return []outcome{
			check(tr, follower, allTerms, zonalClaim("c", zoneA), nil),
			check(tr, follower, allTerms, zonalClaim("c", zoneB), nil),
			check(tr, follower, allTerms, openClaim("c"), nil),
		}
	}
	// No owner anywhere yet: the follower goes anywhere (pinned by load).
	if diff := gocmp.Diff([]outcome{ok(), ok(), ok(pin(zoneKey, zoneA))}, checks()); diff != "" {
		t.Errorf("before the owner (-want +got):\n%s", diff)
	}
	tr.Record(owner, allTerms, zonalClaim("r", zoneA))
	if diff := gocmp.Diff([]outcome{refused(topology.Spread, zoneKey, spreadZoneWeb, false), ok(), ok(pin(zoneKey, zoneB))}, checks()); diff != "" {
		t.Errorf("after the owner (-want +got):\n%s", diff)
	}
	// A preferred (ScheduleAnyway) spread makes no owner.
	tr2 := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
	pods = register(t, tr2,
		specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.ScheduleAnyway, web).Obj()),
		specOf(testutil.Pod("follower").Label("app", "web").Obj()),
	)
	tr2.Record(pods[0], allTerms, zonalClaim("r", zoneA))
	if diff := gocmp.Diff(ok(), check(tr2, pods[1], allTerms, zonalClaim("c", zoneA), nil)); diff != "" {
		t.Errorf("after a preferred owner (-want +got):\n%s", diff)
	}
}

// TestCheckSpreadOwnersNodeFilter: a placement counts for the owners' group
// only on nodes that pass the owners' node filter, so only there is it kept
// within their skew.
func TestCheckSpreadOwnersNodeFilter(t *testing.T) {
	t.Parallel()
	blueZone := func(name, zone string) *topology.Host {
		return &topology.Host{Hostname: name, Requirements: requirements.NewRequirements(requirements.In(zoneKey, zone), requirements.In("team", "blue"))}
	}
	tests := []struct {
		name string
		host *topology.Host
		want outcome
	}{
		{name: "a node the owners' affinity selects", host: blueZone("c", zoneA), want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		// A claim whose team is still open is kept out of the owners'
		// filter, so that the follower is certainly not counted there.
		{name: "a node it does not select", host: zonalClaim("c", zoneA), want: ok("team NotIn [blue]")},
	}
	t.Run("a placement on a node it does not select is not counted", func(t *testing.T) {
		t.Parallel()
		pool := zonePool()
		pool.Requirements = requirements.NewRequirements(requirements.Exists("team"))
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool}, nil, nil)
		owner := specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj())
		owner.Requirements = []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))}
		pods := register(t, tr, owner, specOf(testutil.Pod("follower").Label("app", "web").Obj()))
		tr.Record(pods[0], allTerms, blueZone("r", zoneA))
		tr.Record(pods[1], allTerms, zonalClaim("f1", zoneB))
		tr.Record(pods[1], allTerms, zonalClaim("f2", zoneC))
		// Counted, b and c would raise the minimum to 1 and let a take a second owner.
		want := refused(topology.Spread, zoneKey, spreadZoneWeb, false)
		if diff := gocmp.Diff(want, check(tr, pods[0], allTerms, blueZone("c", zoneA), nil)); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool := zonePool()
			pool.Requirements = requirements.NewRequirements(requirements.Exists("team"))
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool}, nil, nil)
			owner := specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj())
			owner.Requirements = []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))}
			pods := register(t, tr, owner, specOf(testutil.Pod("follower").Label("app", "web").Obj()))
			tr.Record(pods[0], allTerms, blueZone("r", zoneA))
			if diff := gocmp.Diff(tc.want, check(tr, pods[1], allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckAffinity(t *testing.T) {
	t.Parallel()
	nA, nB := zoneNode("na", zoneA), zoneNode("nb", zoneB)
	hostGroup := "pod affinity on kubernetes.io/hostname (app=db)"
	tests := []struct {
		name   string
		pod    *corev1.Pod
		active topology.Active
		host   *topology.Host
		want   outcome
	}{
		{name: "required zone affinity pins the zone with the match", pod: testutil.Pod("api").PodAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: openClaim("c"), want: ok(pin(zoneKey, zoneB))},
		{name: "required zone affinity refuses a zone without a match", pod: testutil.Pod("api").PodAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: zonalClaim("c", zoneA), want: refused(topology.Affinity, zoneKey, affinityZone, false)},
		{name: "required zone affinity allows another node in the zone", pod: testutil.Pod("api").PodAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: zonalClaim("c", zoneB), want: ok()},
		{name: "preferred zone affinity inactive: pinned by value alone", pod: testutil.Pod("api").PreferredPodAffinity(10, zoneKey, db).Obj(),
			active: requiredOnly, host: openClaim("c"), want: ok(pin(zoneKey, zoneA))},
		{name: "preferred zone affinity active: pinned to the match", pod: testutil.Pod("api").PreferredPodAffinity(10, zoneKey, db).Obj(),
			active: allTerms, host: openClaim("c"), want: ok(pin(zoneKey, zoneB))},
		{name: "preferred zone affinity active refuses a zone without a match", pod: testutil.Pod("api").PreferredPodAffinity(10, zoneKey, db).Obj(),
			active: allTerms, host: onNode(nA), want: refused(topology.Affinity, zoneKey, affinityZone, false)},
		{name: "hostname affinity: the node with the match", pod: testutil.Pod("api").PodAffinity(hostKey, db).Obj(),
			active: requiredOnly, host: onNode(nB), want: ok()},
		{name: "hostname affinity: a new node has no match", pod: testutil.Pod("api").PodAffinity(hostKey, db).Obj(),
			active: requiredOnly, host: openClaim("c"), want: refused(topology.Affinity, hostKey, hostGroup, false)},
		{name: "hostname affinity: another existing node", pod: testutil.Pod("api").PodAffinity(hostKey, db).Obj(),
			active: requiredOnly, host: onNode(nA), want: refused(topology.Affinity, hostKey, hostGroup, false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil,
				[]topology.ExistingPod{bound(nB, db)})
			p := register(t, tr, specOf(tc.pod))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, tc.active, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckAntiAffinityNamespaces: an anti-affinity term counts pods in the
// owner's namespace by default, in its listed namespaces, in namespaces its
// namespaceSelector selects, or everywhere with an empty namespaceSelector.
func TestCheckAntiAffinityNamespaces(t *testing.T) {
	t.Parallel()
	nA := zoneNode("na", zoneA)
	namespaces := map[string]map[string]string{
		"default": {"team": "red"},
		"other":   {"team": "blue"},
	}
	term := func(nss []string, sel *metav1.LabelSelector) corev1.PodAffinityTerm {
		return corev1.PodAffinityTerm{TopologyKey: zoneKey, LabelSelector: &metav1.LabelSelector{MatchLabels: db},
			Namespaces: nss, NamespaceSelector: sel}
	}
	blocked := refused(topology.AntiAffinity, zoneKey, antiZoneDB, true)
	tests := []struct {
		name       string
		existingNS string
		term       corev1.PodAffinityTerm
		want       outcome
	}{
		{name: "own namespace by default: match there", existingNS: "default", term: term(nil, nil), want: blocked},
		{name: "own namespace by default: match elsewhere", existingNS: "other", term: term(nil, nil), want: ok()},
		{name: "listed namespace", existingNS: "other", term: term([]string{"other"}, nil), want: blocked},
		{name: "listed namespaces exclude the owner's", existingNS: "default", term: term([]string{"other"}, nil), want: ok()},
		{name: "namespaceSelector selects", existingNS: "other",
			term: term(nil, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}), want: blocked},
		{name: "namespaceSelector does not select", existingNS: "other",
			term: term(nil, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "green"}}), want: ok()},
		{name: "namespaceSelector or namespaces", existingNS: "default",
			term: term([]string{"default"}, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}), want: blocked},
		{name: "namespaceSelector alone leaves out the owner's namespace", existingNS: "default",
			term: term(nil, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}), want: ok()},
		{name: "empty namespaceSelector selects every namespace", existingNS: "unlabelled",
			term: term(nil, &metav1.LabelSelector{}), want: blocked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA)}, namespaces,
				[]topology.ExistingPod{{Namespace: tc.existingNS, Labels: db, Node: nA}})
			p := register(t, tr, specOf(testutil.Pod("api").Label("app", "api").PodAntiAffinityTerm(tc.term).Obj()))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, onNode(nA), nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckAntiAffinity(t *testing.T) {
	t.Parallel()
	nA, nB := zoneNode("na", zoneA), zoneNode("nb", zoneB)
	tests := []struct {
		name   string
		pod    *corev1.Pod
		active topology.Active
		host   *topology.Host
		want   outcome
	}{
		{name: "required: the zone with a match is refused for good", pod: testutil.Pod("api").PodAntiAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: onNode(nA), want: refused(topology.AntiAffinity, zoneKey, antiZoneDB, true)},
		{name: "required: another zone is allowed", pod: testutil.Pod("api").PodAntiAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: onNode(nB), want: ok()},
		{name: "required: an open claim is pinned away from the match", pod: testutil.Pod("api").PodAntiAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: openClaim("c"), want: ok(pin(zoneKey, zoneB))},
		{name: "required: a claim open over a and c is pinned to c", pod: testutil.Pod("api").PodAntiAffinity(zoneKey, db).Obj(),
			active: requiredOnly, host: zonalClaim("c", zoneA, zoneC), want: ok(pin(zoneKey, zoneC))},
		{name: "preferred inactive is ignored", pod: testutil.Pod("api").PreferredPodAntiAffinity(5, zoneKey, db).Obj(),
			active: requiredOnly, host: onNode(nA), want: ok()},
		{name: "preferred active refuses, not for good", pod: testutil.Pod("api").PreferredPodAntiAffinity(5, zoneKey, db).Obj(),
			active: allTerms, host: onNode(nA), want: refused(topology.AntiAffinity, zoneKey, antiZoneDB, false)},
		{name: "hostname: the node with the match is refused", pod: testutil.Pod("api").PodAntiAffinity(hostKey, db).Obj(),
			active: requiredOnly, host: onNode(nA), want: refused(topology.AntiAffinity, hostKey, "pod anti-affinity on kubernetes.io/hostname (app=db)", true)},
		{name: "hostname: a new node is allowed", pod: testutil.Pod("api").PodAntiAffinity(hostKey, db).Obj(),
			active: requiredOnly, host: zonalClaim("c", zoneA), want: ok()},
		{name: "missing key: anti-affinity is trivially satisfied", pod: testutil.Pod("api").PodAntiAffinity(rackKey, db).Obj(),
			active: requiredOnly, host: onNode(nA), want: ok()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil,
				[]topology.ExistingPod{bound(nA, db)})
			p := register(t, tr, specOf(tc.pod))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, tc.active, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckInverseAntiAffinity: a pod whose required anti-affinity selects a
// pending pod keeps it out of its domain, whether it is bound already or
// recorded in this solve.
func TestCheckInverseAntiAffinity(t *testing.T) {
	t.Parallel()
	nA, nB := zoneNode("na", zoneA), zoneNode("nb", zoneB)
	guardTerm := corev1.PodAffinityTerm{TopologyKey: zoneKey, LabelSelector: &metav1.LabelSelector{MatchLabels: web}}
	hostTerm := corev1.PodAffinityTerm{TopologyKey: hostKey, LabelSelector: &metav1.LabelSelector{MatchLabels: web}}
	blocked := refused(topology.AntiAffinity, zoneKey, antiZoneWeb, true)
	tests := []struct {
		name     string
		existing []topology.ExistingPod
		pod      *corev1.Pod
		host     *topology.Host
		want     outcome
	}{
		{name: "existing guard blocks its zone",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}},
			pod:      testutil.Pod("web").Label("app", "web").Obj(), host: onNode(nA), want: blocked},
		{name: "existing guard leaves other zones",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}},
			pod:      testutil.Pod("web").Label("app", "web").Obj(), host: onNode(nB), want: ok()},
		{name: "existing guard: open claim pinned away",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}},
			pod:      testutil.Pod("web").Label("app", "web").Obj(), host: openClaim("c"), want: ok(pin(zoneKey, zoneB))},
		{name: "existing guard does not select another app",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}},
			pod:      testutil.Pod("api").Label("app", "api").Obj(), host: onNode(nA), want: ok()},
		{name: "existing guard does not select another namespace",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}},
			pod:      testutil.Pod("web").Namespace("other").Label("app", "web").Obj(), host: onNode(nA), want: ok()},
		{name: "existing hostname guard blocks its node only",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{hostTerm}}},
			pod:      testutil.Pod("web").Label("app", "web").Obj(), host: zonalClaim("c", zoneA), want: ok()},
		{name: "existing hostname guard on its node",
			existing: []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{hostTerm}}},
			pod:      testutil.Pod("web").Label("app", "web").Obj(), host: onNode(nA), want: refused(topology.AntiAffinity, hostKey, antiHostWeb, true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil, tc.existing)
			p := register(t, tr, specOf(tc.pod))[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, requiredOnly, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("LeaveInverseOpen: existing guard leaves an open claim open on the zones it leaves", func(t *testing.T) {
		t.Parallel()
		existing := []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}}
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil, existing)
		tr.LeaveInverseOpen()
		p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Obj()))[0]
		require.True(t, tr.HasInverseOnly())
		if diff := gocmp.Diff(ok(requirements.In(zoneKey, zoneB, zoneC).String()), check(tr, p, requiredOnly, openClaim("c"), nil)); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
		if diff := gocmp.Diff(blocked, check(tr, p, requiredOnly, onNode(nA), nil)); diff != "" {
			t.Errorf("Check on the guard's node (-want +got):\n%s", diff)
		}
	})

	t.Run("LeaveInverseOpen: existing guard whose term a pending pod owns too: open claim pinned away", func(t *testing.T) {
		t.Parallel()
		existing := []topology.ExistingPod{{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA, AntiAffinity: []corev1.PodAffinityTerm{guardTerm}}}
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil, existing)
		tr.LeaveInverseOpen()
		pods := register(t, tr,
			specOf(testutil.Pod("guard").Label("app", "guard").PodAntiAffinityTerm(guardTerm).Obj()),
			specOf(testutil.Pod("web").Label("app", "web").Obj()),
		)
		require.False(t, tr.HasInverseOnly())
		if diff := gocmp.Diff(ok(pin(zoneKey, zoneB)), check(tr, pods[1], requiredOnly, openClaim("c"), nil)); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})

	t.Run("a recorded pending guard blocks its zone until unrecorded", func(t *testing.T) {
		t.Parallel()
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
		pods := register(t, tr,
			specOf(testutil.Pod("guard").Label("app", "guard").PodAntiAffinityTerm(guardTerm).Obj()),
			specOf(testutil.Pod("soft").Label("app", "soft").PreferredPodAntiAffinity(1, zoneKey, web).Obj()),
			specOf(testutil.Pod("web").Label("app", "web").Obj()),
		)
		guard, soft, pod := pods[0], pods[1], pods[2]
		require.True(t, pod.Relevant())
		at := zonalClaim("g", zoneA)

		tr.Record(soft, allTerms, at)
		if diff := gocmp.Diff(ok(), check(tr, pod, requiredOnly, zonalClaim("c", zoneA), nil)); diff != "" {
			t.Errorf("after a preferred anti-affinity owner (-want +got):\n%s", diff)
		}
		tr.Record(guard, allTerms, at)
		if diff := gocmp.Diff(blocked, check(tr, pod, requiredOnly, zonalClaim("c", zoneA), nil)); diff != "" {
			t.Errorf("after Record (-want +got):\n%s", diff)
		}
		tr.Unrecord(guard, allTerms, at)
		if diff := gocmp.Diff(ok(), check(tr, pod, requiredOnly, zonalClaim("c", zoneA), nil)); diff != "" {
			t.Errorf("after Unrecord (-want +got):\n%s", diff)
		}
	})
}

// TestCheckScope: HostnameOnly checks what differs between claims that share
// requirements, ExceptHostname what they share.
func TestCheckScope(t *testing.T) {
	t.Parallel()
	hostAnti := refused(topology.AntiAffinity, hostKey, antiHostWeb, true)
	zoneRefused := refused(topology.Spread, zoneKey, spreadZoneWeb, false)
	tests := []struct {
		name  string
		host  *topology.Host
		scope topology.Scope
		want  outcome
	}{
		{name: "recorded claim, all keys", host: zonalClaim("c1", zoneA), scope: topology.AllKeys, want: hostAnti},
		{name: "recorded claim, hostname only", host: zonalClaim("c1", zoneA), scope: topology.HostnameOnly, want: hostAnti},
		{name: "recorded claim, except hostname", host: zonalClaim("c1", zoneA), scope: topology.ExceptHostname, want: zoneRefused},
		{name: "same name open, except hostname pins the zone", host: openClaim("c1"), scope: topology.ExceptHostname, want: ok(pin(zoneKey, zoneB))},
		{name: "new claim, all keys", host: openClaim("c2"), scope: topology.AllKeys, want: ok(pin(zoneKey, zoneB))},
		{name: "new claim, hostname only: no pins", host: openClaim("c2"), scope: topology.HostnameOnly, want: ok()},
		{name: "new claim in zone a, hostname only", host: zonalClaim("c2", zoneA), scope: topology.HostnameOnly, want: ok()},
		{name: "new claim in zone a, all keys", host: zonalClaim("c2", zoneA), scope: topology.AllKeys, want: zoneRefused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").
				Spread(zoneKey, 1, corev1.DoNotSchedule, web).PodAntiAffinity(hostKey, web).Obj()))[0]
			tr.Record(p, allTerms, zonalClaim("c1", zoneA))
			got := scopeOutcome(tr, p, allTerms, tc.host, nil, tc.scope)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CheckScope (-want +got):\n%s", diff)
			}
		})
	}
}

// TestViolationMessage: the message names the group (kind, key, selector),
// the rule broken with its numbers, and the counts of the domains.
func TestViolationMessage(t *testing.T) {
	t.Parallel()
	nA, nB := zoneNode("na", zoneA), zoneNode("nb", zoneB)
	five := int32(5)
	guard := topology.ExistingPod{Namespace: "default", Labels: map[string]string{"app": "guard"}, Node: nA,
		AntiAffinity: []corev1.PodAffinityTerm{{TopologyKey: zoneKey, LabelSelector: &metav1.LabelSelector{MatchLabels: web}}}}
	tests := []struct {
		name     string
		existing []topology.ExistingPod
		pods     []*corev1.Pod // the first is checked; every pod is recorded in the zones of record
		record   []string
		host     *topology.Host
		want     string
	}{
		{
			name:   "zone spread",
			pods:   []*corev1.Pod{testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj()},
			record: []string{zoneA}, host: onNode(nA),
			want: "topology spread on topology.kubernetes.io/zone (app=web): maxSkew 1 would be exceeded (global minimum 0); domains us-east-1a=1 us-east-1b=0 us-east-1c=0",
		},
		{
			name:   "zone spread with a non-zero global minimum",
			pods:   []*corev1.Pod{testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj()},
			record: []string{zoneA, zoneA, zoneB, zoneC}, host: zonalClaim("c", zoneA),
			want: "topology spread on topology.kubernetes.io/zone (app=web): maxSkew 1 would be exceeded (global minimum 1); domains us-east-1a=2 us-east-1b=1 us-east-1c=1",
		},
		{
			name: "minDomains not met: global minimum 0",
			pods: []*corev1.Pod{testutil.Pod("web").Label("app", "web").SpreadConstraint(corev1.TopologySpreadConstraint{MaxSkew: 1,
				TopologyKey: zoneKey, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: web}, MinDomains: &five}).Obj()},
			record: []string{zoneA, zoneB, zoneC}, host: zonalClaim("c", zoneA),
			want: "topology spread on topology.kubernetes.io/zone (app=web): maxSkew 1 would be exceeded (global minimum 0); domains us-east-1a=1 us-east-1b=1 us-east-1c=1",
		},
		{
			name:     "matchLabelKeys narrow the selector",
			existing: []topology.ExistingPod{bound(nA, map[string]string{"app": "web", "version": "v1"}), bound(nA, map[string]string{"app": "web", "version": "v1"})},
			pods: []*corev1.Pod{testutil.Pod("web").Label("app", "web").Label("version", "v1").SpreadConstraint(corev1.TopologySpreadConstraint{MaxSkew: 1,
				TopologyKey: zoneKey, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: web}, MatchLabelKeys: []string{"version"}}).Obj()},
			host: onNode(nA),
			want: "topology spread on topology.kubernetes.io/zone (app=web,version=v1): maxSkew 1 would be exceeded (global minimum 0); domains us-east-1a=2 us-east-1b=0 us-east-1c=0",
		},
		{
			name:     "hostname spread shows no domains",
			existing: []topology.ExistingPod{bound(nA, web)},
			pods:     []*corev1.Pod{testutil.Pod("web").Label("app", "web").Spread(hostKey, 1, corev1.DoNotSchedule, web).Obj()},
			host:     onNode(nA),
			want:     "topology spread on kubernetes.io/hostname (app=web): maxSkew 1 would be exceeded (global minimum 0)",
		},
		{
			name: "skew of the owners already there",
			pods: []*corev1.Pod{
				testutil.Pod("follower").Label("app", "web").Obj(),
				testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj(),
			},
			record: []string{zoneA}, host: zonalClaim("c", zoneA),
			want: "topology spread on topology.kubernetes.io/zone (app=web): maxSkew 1 of the pods already there would be exceeded (global minimum 0); domains us-east-1a=1",
		},
		{
			name:     "affinity",
			existing: []topology.ExistingPod{bound(nB, db)},
			pods:     []*corev1.Pod{testutil.Pod("api").PodAffinity(zoneKey, db).Obj()},
			host:     onNode(nA),
			want:     "pod affinity on topology.kubernetes.io/zone (app=db): no matching pod in any possible domain; domains us-east-1a=0 us-east-1b=1 us-east-1c=0",
		},
		{
			name:     "anti-affinity",
			existing: []topology.ExistingPod{bound(nA, db)},
			pods:     []*corev1.Pod{testutil.Pod("api").PodAntiAffinity(zoneKey, db).Obj()},
			host:     zonalClaim("c", zoneA),
			want:     "pod anti-affinity on topology.kubernetes.io/zone (app=db): a matching pod is already in every possible domain; domains us-east-1a=1",
		},
		{
			// The count is the group's (pods app=web): the guard itself is not one.
			name:     "inverse anti-affinity",
			existing: []topology.ExistingPod{guard},
			pods:     []*corev1.Pod{testutil.Pod("web").Label("app", "web").Obj()},
			host:     onNode(nA),
			want:     "pod anti-affinity on topology.kubernetes.io/zone (app=web): a pod whose required anti-affinity selects this pod is in every possible domain; owners per domain us-east-1a=1",
		},
		{
			name: "missing key",
			pods: []*corev1.Pod{testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj()},
			host: onNode(zoneNode("bare", "")),
			want: "topology spread on topology.kubernetes.io/zone (app=web): node has no topology.kubernetes.io/zone label",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil, tc.existing)
			specs := make([]topology.PodSpec, len(tc.pods))
			for i, p := range tc.pods {
				specs[i] = specOf(p)
			}
			pods := register(t, tr, specs...)
			for i, z := range tc.record {
				tr.Record(pods[len(pods)-1], allTerms, zonalClaim(fmt.Sprintf("r%d", i), z))
			}
			pins, v := tr.Check(pods[0], allTerms, tc.host, nil)
			require.Nil(t, pins)
			require.NotNil(t, v, "Check allowed the pod")
			if diff := gocmp.Diff(tc.want, v.Message()); diff != "" {
				t.Errorf("Message (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(v.Message(), v.Error()); diff != "" {
				t.Errorf("Error differs from Message (-Message +Error):\n%s", diff)
			}
		})
	}
}

// TestRecordUnrecordSymmetry: Record then Unrecord leaves every Check result
// as it was.
func TestRecordUnrecordSymmetry(t *testing.T) {
	t.Parallel()
	nA, nB := zoneNode("na", zoneA), zoneNode("nb", zoneB)
	guardTerm := corev1.PodAffinityTerm{TopologyKey: zoneKey, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}}
	newTracker := func(t *testing.T) (*topology.Tracker, []*topology.Pod) {
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA), nodeSource(nB)}, nil,
			[]topology.ExistingPod{bound(nA, web), bound(nB, cache)})
		pods := register(t, tr,
			specOf(testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).
				Spread(hostKey, 1, corev1.DoNotSchedule, web).PodAntiAffinity(hostKey, web).Obj()),
			specOf(testutil.Pod("guard").Label("app", "guard").PodAntiAffinityTerm(guardTerm).Obj()),
			specOf(testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj()),
			specOf(testutil.Pod("api").Label("app", "api").PreferredPodAffinity(10, zoneKey, cache).Obj()),
			specOf(testutil.Pod("soft").Label("app", "web").Spread(zoneKey, 1, corev1.ScheduleAnyway, web).Obj()),
		)
		return tr, pods
	}
	hosts := func() []*topology.Host {
		return []*topology.Host{onNode(nA), onNode(nB), zonalClaim("c1", zoneA), zonalClaim("c2", zoneB),
			zonalClaim("c3", zoneC), zonalClaim("c1", zoneA, zoneB, zoneC), openClaim("c4")}
	}
	snapshot := func(tr *topology.Tracker, pods []*topology.Pod) []outcome {
		var out []outcome
		for _, p := range pods {
			for _, h := range hosts() {
				out = append(out, check(tr, p, allTerms, h, nil))
				out = append(out, check(tr, p, requiredOnly, h, nil))
			}
		}
		return out
	}
	// Each record changes some Check result (checked), so its undoing is seen.
	const podWeb, podGuard, podCache, podAPI, podSoft = 0, 1, 2, 3, 4
	tests := []struct {
		name string
		pod  int
		host *topology.Host
	}{
		{name: "spread and anti-affinity owner on an existing node", pod: podWeb, host: onNode(nB)},
		{name: "spread and anti-affinity owner on a planned claim", pod: podWeb, host: zonalClaim("c1", zoneA)},
		{name: "spread and anti-affinity owner in an empty zone", pod: podWeb, host: zonalClaim("c3", zoneC)},
		{name: "required anti-affinity owner on an existing node", pod: podGuard, host: onNode(nA)},
		{name: "required anti-affinity owner on a planned claim", pod: podGuard, host: zonalClaim("c3", zoneC)},
		{name: "self-affine pod starting a zone", pod: podCache, host: zonalClaim("c1", zoneA)},
		{name: "pod counted by an anti-affinity group", pod: podAPI, host: onNode(nB)},
		{name: "pod counted by an anti-affinity group on a claim", pod: podAPI, host: zonalClaim("c1", zoneA)},
		{name: "preferred spread owner on an existing node", pod: podSoft, host: onNode(nB)},
		{name: "preferred spread owner on a planned claim", pod: podSoft, host: zonalClaim("c3", zoneC)},
	}
	t.Run("Unrecord where nothing is counted changes nothing", func(t *testing.T) {
		t.Parallel()
		tr, pods := newTracker(t)
		before := snapshot(tr, pods)
		for _, p := range pods { // every group now has a slot for zone c
			tr.Record(p, allTerms, zonalClaim("c3", zoneC))
			tr.Unrecord(p, allTerms, zonalClaim("c3", zoneC))
		}
		for _, p := range pods { // where nothing is counted
			tr.Unrecord(p, allTerms, zonalClaim("never", zoneC))
		}
		if diff := gocmp.Diff(before, snapshot(tr, pods)); diff != "" {
			t.Errorf("after Unrecord (-before +after):\n%s", diff)
		}
		tr.Record(pods[podWeb], allTerms, zonalClaim("c3", zoneC))
		want := refused(topology.Spread, zoneKey, spreadZoneWeb, false)
		if diff := gocmp.Diff(want, check(tr, pods[podWeb], allTerms, zonalClaim("c5", zoneC), nil)); diff != "" {
			t.Errorf("after Record (-want +got):\n%s", diff)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, pods := newTracker(t)
			before := snapshot(tr, pods)
			tr.Record(pods[tc.pod], allTerms, tc.host)
			require.False(t, gocmp.Equal(before, snapshot(tr, pods)), "Record changed no Check result")
			tr.Unrecord(pods[tc.pod], allTerms, tc.host)
			if diff := gocmp.Diff(before, snapshot(tr, pods)); diff != "" {
				t.Errorf("after Record and Unrecord (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCheckSpreadEligibleDomains: the global minimum is taken over the zones
// the pod could use: those offered by sources that pass its node filter
// (nodeAffinityPolicy, nodeTaintsPolicy), restricted to the values its
// requirements allow.
func TestCheckSpreadEligibleDomains(t *testing.T) {
	t.Parallel()
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	taint := corev1.Taint{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}
	// unfiltered offers every zone whatever the requirements, so the tracker
	// must apply them itself.
	unfiltered := func(name string, taints []corev1.Taint, values ...string) topology.Source {
		return topology.Source{Name: name, Taints: taints, Values: func(key string, _ requirements.Requirements) []string {
			if key == zoneKey {
				return values
			}
			return nil
		}}
	}
	zoneAB := []requirements.Requirements{requirements.NewRequirements(requirements.In(zoneKey, zoneA, zoneB))}
	blue := []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))}
	bluePool := unfiltered("blue", nil, zoneA, zoneB)
	bluePool.Requirements = blue[0]
	blueNode := &topology.Node{Name: "nc", Labels: map[string]string{hostKey: "nc", zoneKey: zoneC, "team": "blue"}}
	tests := []struct {
		name        string
		sources     []topology.Source
		reqs        []requirements.Requirements
		affinity    *corev1.NodeInclusionPolicy
		taints      *corev1.NodeInclusionPolicy
		tolerations bool
		// With a and b holding one pod each, c none: zone a is allowed
		// exactly when c is not eligible (global minimum 1, not 0).
		wantZoneA bool
	}{
		{name: "every offered zone is eligible", sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB, zoneC)}},
		{name: "the pod's requirements leave c out", sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB, zoneC)},
			reqs: zoneAB, wantZoneA: true},
		{name: "nodeAffinityPolicy Ignore keeps c", sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB, zoneC)},
			reqs: zoneAB, affinity: &ignore},
		{name: "an existing node the pod's requirements exclude offers no zone",
			sources: []topology.Source{bluePool, nodeSource(zoneNode("nc", zoneC))}, reqs: blue, wantZoneA: true},
		{name: "an existing node the pod's requirements allow offers its zone",
			sources: []topology.Source{bluePool, nodeSource(blueNode)}, reqs: blue},
		{name: "a tainted pool's zone counts by default", sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB), unfiltered("t", []corev1.Taint{taint}, zoneC)}},
		{name: "nodeTaintsPolicy Honor leaves out a pool with an untolerated taint",
			sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB), unfiltered("t", []corev1.Taint{taint}, zoneC)},
			taints:  &honor, wantZoneA: true},
		{name: "nodeTaintsPolicy Honor keeps a pool whose taint the pod tolerates",
			sources: []topology.Source{unfiltered("p", nil, zoneA, zoneB), unfiltered("t", []corev1.Taint{taint}, zoneC)},
			taints:  &honor, tolerations: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), tc.sources, nil, nil)
			c := zoneSpread(1, corev1.DoNotSchedule)
			c.NodeAffinityPolicy, c.NodeTaintsPolicy = tc.affinity, tc.taints
			b := testutil.Pod("web").Label("app", "web").SpreadConstraint(c)
			if tc.tolerations {
				b = b.Toleration("dedicated", corev1.TolerationOpEqual, "x", corev1.TaintEffectNoSchedule)
			}
			spec := specOf(b.Obj())
			spec.Requirements = tc.reqs
			p := register(t, tr, spec)[0]
			// A claim carries the pod's requirements, as the scheduler's do.
			claim := func(name, zone string) *topology.Host {
				h := zonalClaim(name, zone)
				for _, r := range tc.reqs {
					h.Requirements = h.Requirements.Intersect(r)
				}
				return h
			}
			tr.Record(p, allTerms, claim("r1", zoneA))
			tr.Record(p, allTerms, claim("r2", zoneB))
			got := check(tr, p, allTerms, claim("c", zoneA), nil)
			if diff := gocmp.Diff(tc.wantZoneA, got.Violation == nil); diff != "" {
				t.Errorf("zone a allowed (-want +got):\n%s\ncheck: %+v", diff, got)
			}
		})
	}
}

func TestNodeHostname(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		node topology.Node
		want string
	}{
		{name: "hostname label", node: topology.Node{Name: "ip-10-0-0-1", Labels: map[string]string{hostKey: "host-1"}}, want: "host-1"},
		{name: "no hostname label: the name", node: topology.Node{Name: "ip-10-0-0-1"}, want: "ip-10-0-0-1"},
		{name: "empty hostname label: the name", node: topology.Node{Name: "ip-10-0-0-1", Labels: map[string]string{hostKey: ""}}, want: "ip-10-0-0-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tc.want, tc.node.Hostname()); diff != "" {
				t.Errorf("Hostname (-want +got):\n%s", diff)
			}
		})
	}

	// Existing pods and candidate hosts meet in the hostname domain, not the
	// node name: a claim named like the node's hostname label is that domain.
	t.Run("domain", func(t *testing.T) {
		t.Parallel()
		n := &topology.Node{Name: "ip-10-0-0-1", Labels: map[string]string{hostKey: "host-1", zoneKey: zoneA}}
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(n)}, nil, []topology.ExistingPod{bound(n, db)})
		p := register(t, tr, specOf(testutil.Pod("api").PodAntiAffinity(hostKey, db).Obj()))[0]
		got := []outcome{
			check(tr, p, requiredOnly, onNode(n), nil),
			check(tr, p, requiredOnly, zonalClaim("host-1", zoneA), nil),
			check(tr, p, requiredOnly, zonalClaim("ip-10-0-0-1", zoneA), nil),
		}
		blocked := refused(topology.AntiAffinity, hostKey, "pod anti-affinity on kubernetes.io/hostname (app=db)", true)
		if diff := gocmp.Diff([]outcome{blocked, blocked, ok()}, got); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})
}

// TestCheckPinsEveryOpenKey: an open claim is pinned on every key the pod is
// relevant to, in key order; a decided key needs no pin.
func TestCheckPinsEveryOpenKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		host *topology.Host
		want outcome
	}{
		{name: "both keys open", host: openClaim("c"),
			want: ok(pin(ctKey, requirements.CapacityTypeSpot), pin(zoneKey, zoneB))},
		{name: "zone decided", host: &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(zoneKey, zoneC)),
			Domains: domainList{ctKey: {requirements.CapacityTypeOnDemand, requirements.CapacityTypeSpot}}},
			want: ok(pin(ctKey, requirements.CapacityTypeSpot))},
		{name: "capacity type decided in the loaded value", host: &topology.Host{Hostname: "c",
			Requirements: requirements.NewRequirements(requirements.In(ctKey, requirements.CapacityTypeOnDemand)),
			Domains:      domainList{zoneKey: {zoneA, zoneB, zoneC}}},
			want: refused(topology.Spread, ctKey, "topology spread on karpenter.sh/capacity-type (app=web)", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			p := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").
				Spread(zoneKey, 1, corev1.DoNotSchedule, web).Spread(ctKey, 1, corev1.DoNotSchedule, web).Obj()))[0]
			tr.Record(p, allTerms, &topology.Host{Hostname: "r", Requirements: requirements.NewRequirements(
				requirements.In(zoneKey, zoneA), requirements.In(ctKey, requirements.CapacityTypeOnDemand))})
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// DomainSum changes when a pod is counted in another zone, and comes back
// when the counts do; moving a pod between hosts of one zone leaves it.
func TestDomainSum(t *testing.T) {
	t.Parallel()
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
	pods := register(t, tr,
		specOf(testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj()),
		specOf(testutil.Pod("db").Label("app", "db").Spread(hostKey, 1, corev1.DoNotSchedule, map[string]string{"app": "db"}).Obj()))
	p, db := pods[0], pods[1]
	start := tr.DomainSum()
	tr.Record(p, allTerms, zonalClaim("c1", zoneA))
	inA := tr.DomainSum()
	if inA == start {
		t.Fatal("counting a pod in a zone left DomainSum as it was")
	}
	tr.Unrecord(p, allTerms, zonalClaim("c1", zoneA))
	tr.Record(p, allTerms, zonalClaim("c2", zoneA))
	if got := tr.DomainSum(); got != inA {
		t.Errorf("a move between hosts of one zone changed DomainSum: %x, want %x", got, inA)
	}
	tr.Unrecord(p, allTerms, zonalClaim("c2", zoneA))
	tr.Record(p, allTerms, zonalClaim("c3", zoneB))
	if got := tr.DomainSum(); got == inA || got == start {
		t.Errorf("a move to another zone left DomainSum %x (in zone a %x, empty %x)", got, inA, start)
	}
	tr.Unrecord(p, allTerms, zonalClaim("c3", zoneB))
	if got := tr.DomainSum(); got != start {
		t.Errorf("DomainSum after every pod left: %x, want %x", got, start)
	}
	before := tr.DomainSum()
	tr.Record(db, allTerms, zonalClaim("c4", zoneA))
	if got := tr.DomainSum(); got != before {
		t.Errorf("a pod counted only on hostnames changed DomainSum: %x, want %x", got, before)
	}
	tr.Unrecord(p, allTerms, zonalClaim("c5", zoneA)) // nothing recorded there: no change
	if got := tr.DomainSum(); got != before {
		t.Errorf("taking away a count that was never recorded changed DomainSum: %x, want %x", got, before)
	}
}

// TestCheckAnyValueClaim: a NodeClaim that must carry a custom label with
// whatever value (its NodePool declares it with Exists) is given a known
// domain of the key that every spread on the key takes its minimum over:
// a domain one spread leaves out (here rack r3, on a GPU node the web
// pods' node affinity excludes) would add a domain kube-scheduler counts
// for that spread whenever the node passes its filter.
func TestCheckAnyValueClaim(t *testing.T) {
	t.Parallel()
	n1 := &topology.Node{Name: "n1", Labels: map[string]string{hostKey: "n1", rackKey: "r1"}}
	n3 := &topology.Node{Name: "n3", Labels: map[string]string{hostKey: "n3", rackKey: "r3", "tier": "gpu"}}
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{nodeSource(n1), nodeSource(n3)}, nil,
		[]topology.ExistingPod{bound(n1, web), bound(n3, db)})
	webSpec := specOf(testutil.Pod("web").Label("app", "web").Spread(rackKey, 1, corev1.DoNotSchedule, web).Obj())
	webSpec.Requirements = []requirements.Requirements{requirements.NewRequirements(requirements.DoesNotExist("tier"))}
	dbSpec := specOf(testutil.Pod("db").Label("app", "db").Spread(rackKey, 1, corev1.DoNotSchedule, db).Obj())
	pods := register(t, tr, webSpec, dbSpec)
	// A claim carries its pod's requirements, as the scheduler's do.
	anyRack := func(reqs ...requirements.Requirement) *topology.Host {
		return &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(append(reqs, requirements.Exists(rackKey))...), Domains: domainList{}}
	}
	got := []outcome{check(tr, pods[0], allTerms, anyRack(requirements.DoesNotExist("tier")), nil), check(tr, pods[1], allTerms, anyRack(), nil)}
	want := []outcome{ok(pin(rackKey, "r1")), ok(pin(rackKey, "r1"))}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Check of web, db (-want +got):\n%s", diff)
	}
}

// TestCheckSpreadOwnerWithinEligible: a spread's owner passes its own node
// filter wherever it goes, so kube-scheduler counts the domain of its node;
// while NodeClaims may still be opened the owner only takes domains the
// spread's minimum runs over. A NodeClaim of a NodePool that does not
// declare team may come to carry team=b (a pod's team NotIn [a] defines
// the label on it), and in a zone no source of the spread offers it would
// add a domain the minimum ignores. Once the plan's nodes are known
// (CloseDomains) their domains are the spread's.
func TestCheckSpreadOwnerWithinEligible(t *testing.T) {
	t.Parallel()
	teamB := requirements.NewRequirements(requirements.In("team", "b"))
	claimIn := func(zones ...string) *topology.Host {
		h := zonalClaim("c", zones...)
		h.Requirements = h.Requirements.Intersect(teamB)
		return h
	}
	nodeIn := func(name, zone string) *topology.Node {
		n := zoneNode(name, zone)
		n.Labels["team"] = "b"
		return n
	}
	tests := []struct {
		name   string
		host   *topology.Host
		closed []*topology.Node
		want   outcome
	}{
		{name: "a claim in a zone the spread's sources offer", host: claimIn(zoneA), want: ok()},
		{name: "a claim in a zone no source offers is refused", host: claimIn(zoneB),
			want: refused(topology.Spread, zoneKey, spreadZoneWeb, false)},
		{name: "an open claim is pinned to the zone a source offers", host: claimIn(zoneA, zoneB), want: ok(pin(zoneKey, zoneA))},
		{name: "once the plan's nodes are known their zones are the domains", host: claimIn(zoneB),
			closed: []*topology.Node{nodeIn("n1", zoneA), nodeIn("n2", zoneB)}, want: ok()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool := poolSource("team-b", map[string][]string{zoneKey: {zoneA}})
			pool.Requirements = teamB
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool}, nil, nil)
			spec := specOf(testutil.Pod("web").Label("app", "web").SpreadConstraint(zoneSpread(1, corev1.DoNotSchedule)).Obj())
			spec.Requirements = []requirements.Requirements{teamB}
			p := register(t, tr, spec)[0]
			if tc.closed != nil {
				tr.CloseDomains(tc.closed)
			}
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, tc.host, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckSpreadOwnersFilterUndeclared: owners whose node filter asks a
// custom label to be absent (team DoesNotExist) count a pod on a NodeClaim
// of a NodePool that does not declare the label, since its node will not
// have it; the claim is never pinned to "team Exists", which no node of
// that NodePool can meet and which would let a pod requiring a team join.
func TestCheckSpreadOwnersFilterUndeclared(t *testing.T) {
	t.Parallel()
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
	owner := specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj())
	owner.Requirements = []requirements.Requirements{requirements.NewRequirements(requirements.DoesNotExist("team"))}
	pods := register(t, tr, owner, specOf(testutil.Pod("follower").Label("app", "web").Obj()))
	tr.Record(pods[0], allTerms, zonalClaim("r", zoneA))
	claim := func(zone string) *topology.Host {
		return &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(zoneKey, zone)),
			Domains: domainList{zoneKey: {zone}}}
	}
	if diff := gocmp.Diff(refused(topology.Spread, zoneKey, spreadZoneWeb, false), check(tr, pods[1], allTerms, claim(zoneA), nil)); diff != "" {
		t.Errorf("Check in zone a (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(ok(), check(tr, pods[1], allTerms, claim(zoneB), nil)); diff != "" {
		t.Errorf("Check in zone b (-want +got):\n%s", diff)
	}
}

// TestCheckSpreadOwnersFilterCheapestAlternative: a counted pod's
// NodeClaim that no form keeps out of the owners' node filter enters the
// alternative of the filter that leaves the cheapest node, not the first:
// any alternative puts the node in the filter (seed 52848: the first term,
// metal, launched $11.31/h nodes where the second held the pod for $0.59/h).
func TestCheckSpreadOwnersFilterCheapestAlternative(t *testing.T) {
	t.Parallel()
	pool := zonePool()
	pool.Requirements = requirements.NewRequirements(requirements.Exists("hv"), requirements.Exists("gen"))
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool}, nil, nil)
	owner := specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, web).Obj())
	gt6, err := requirements.New("gen", requirements.OpGt, "6")
	require.NoError(t, err)
	owner.Requirements = []requirements.Requirements{
		requirements.NewRequirements(requirements.NotIn("hv", "nitro")),
		requirements.NewRequirements(gt6),
	}
	pods := register(t, tr, owner, specOf(testutil.Pod("follower").Label("app", "web").Obj()))
	// A node of the first alternative costs 10, of the second 1; nothing
	// is left below generation 7, so no form keeps the claim out.
	rank := func(pins []requirements.Requirement, _, _ string) float64 {
		price := 5.0
		for _, p := range pins {
			switch _, _, _, hasHi := p.Bounds(); {
			case p.Key() == "gen" && hasHi:
				return math.Inf(1)
			case p.Key() == "gen":
				price = min(price, 1)
			case p.Key() == "hv" && !p.IsFinite():
				price = min(price, 10)
			}
		}
		return price
	}
	claim := &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(
		requirements.In(zoneKey, zoneB), requirements.Exists("hv"), requirements.Exists("gen"))}
	got := check(tr, pods[1], allTerms, claim, rank)
	if diff := gocmp.Diff(ok(gt6.String()), got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
}

// TestCheckSoftSpreadFilterLeftOpen: a pod that only ScheduleAnyway spreads
// count, on nodes their owners' affinity admits, gets its NodeClaim kept
// out of that filter (team NotIn [blue]) unless LeaveSoftFiltersOpen: then
// nothing is pinned for it; a DoNotSchedule owner's filter is settled
// either way.
func TestCheckSoftSpreadFilterLeftOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		when corev1.UnsatisfiableConstraintAction
		open bool
		want outcome
	}{
		{name: "soft owner, settled", when: corev1.ScheduleAnyway, want: ok("team NotIn [blue]")},
		{name: "soft owner, left open", when: corev1.ScheduleAnyway, open: true, want: ok()},
		{name: "required owner, left open asked", when: corev1.DoNotSchedule, open: true, want: ok("team NotIn [blue]")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool := zonePool()
			pool.Requirements = requirements.NewRequirements(requirements.Exists("team"))
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{pool}, nil, nil)
			if tc.open {
				tr.LeaveSoftFiltersOpen()
			}
			owner := specOf(testutil.Pod("owner").Label("app", "web").Spread(zoneKey, 1, tc.when, web).Obj())
			owner.Requirements = []requirements.Requirements{requirements.NewRequirements(requirements.In("team", "blue"))}
			pods := register(t, tr, owner, specOf(testutil.Pod("follower").Label("app", "web").Obj()))
			claim := &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(
				requirements.In(zoneKey, zoneB), requirements.Exists("team"))}
			if diff := gocmp.Diff(tc.want, check(tr, pods[1], allTerms, claim, nil)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
