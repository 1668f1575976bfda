package scheduler_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TestUnreportedPreferencesHold: every preference a plan does not list in
// Relaxations holds on the plan as it ends. Random inputs (the property
// generator's, each group given a few more preferences: zone affinity and
// anti-affinity to another group, a zone node preference) are solved; then
// each placed pod's preferences that its Relaxations do not name are made
// hard (ScheduleAnyway becomes DoNotSchedule, preferred pod affinity and
// anti-affinity terms become required) and Verify, which shares nothing
// with the solver, checks the same plan against those pods; preferred
// node-affinity terms are matched against the labels of the node the pod
// ends on (a NodeClaim's: its instance type's, its own, its launch zone,
// capacity type and name). A pod with several unreported affinity terms,
// or a required one, keeps them soft (Verify checks required affinity
// terms together).
func TestUnreportedPreferencesHold(t *testing.T) {
	cats := propertyCatalogs(t)
	cases := 300
	if testing.Short() {
		cases = 80
	}
	for i := range cases {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(propertySeed+13, uint64(i)))
			in := genInput(rng, cats)
			in.pods = withMorePreferences(rng, in)
			// Ignore judges nothing (its preferences are never reported).
			policy := []scheduler.PreferencePolicy{scheduler.PreferenceRespect, scheduler.PreferenceHonor, scheduler.PreferenceWhileFree}[i%3]
			in.opts = append(in.options(), scheduler.WithPreferencePolicy(policy))
			res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, in.opts...)
			require.NoError(t, err)
			if verify.Plan(in.pods, in.pools, in.catalog.cat, res, in.opts...) != nil {
				return // TestSolveProperties reports invalid plans
			}
			dropped := map[string]string{}
			for _, r := range res.Relaxations {
				dropped[r.Pod] = strings.Join(r.Dropped, "\n")
			}
			checkNodePreferences(t, in, res, dropped)
			hard := hardenUnreported(in.pods, dropped)
			err = verify.Plan(hard, in.pools, in.catalog.cat, res, in.opts...)
			var ve *verify.Error
			if err != nil && !errors.As(err, &ve) {
				t.Fatalf("verify: %v", err)
			}
			if ve == nil {
				return
			}
			for _, v := range ve.Violations {
				if strings.Contains(v.Message, "queue order") {
					// A preference holds or not on the plan as it ends;
					// kube-scheduler scores it, it never holds a pod back.
					continue
				}
				switch v.Code {
				case scheduler.ReasonTopologySpread, scheduler.ReasonPodAffinity, scheduler.ReasonPodAntiAffinity:
					t.Errorf("a preference not in Relaxations is broken: %s (relaxations of the pod: %q)", v, dropped[v.Pod])
				}
			}
		})
	}
}

// withMorePreferences gives some groups preferred zone affinity or
// anti-affinity to another group, or a preferred zone.
func withMorePreferences(rng *rand.Rand, in propertyInput) []*corev1.Pod {
	apps := map[string]bool{}
	for _, p := range in.pods {
		apps[p.Labels["app"]] = true
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for a := range apps {
			if !yield(a) {
				return
			}
		}
	})
	extra := map[string]func(*corev1.Pod){}
	for _, app := range names {
		other := names[rng.IntN(len(names))]
		term := corev1.WeightedPodAffinityTerm{Weight: int32(1 + rng.IntN(100)), PodAffinityTerm: corev1.PodAffinityTerm{
			TopologyKey: pick(rng, "topology.kubernetes.io/zone", "kubernetes.io/hostname"), LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": other}}}}
		zone := in.catalog.zones[rng.IntN(len(in.catalog.zones))]
		switch rng.IntN(4) {
		case 0:
			extra[app] = func(p *corev1.Pod) {
				aff := affinityOf(p)
				if aff.PodAntiAffinity == nil {
					aff.PodAntiAffinity = &corev1.PodAntiAffinity{}
				}
				aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, term)
			}
		case 1:
			extra[app] = func(p *corev1.Pod) {
				aff := affinityOf(p)
				if aff.PodAffinity == nil {
					aff.PodAffinity = &corev1.PodAffinity{}
				}
				aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, term)
			}
		case 2:
			extra[app] = func(p *corev1.Pod) {
				aff := affinityOf(p)
				if aff.NodeAffinity == nil {
					aff.NodeAffinity = &corev1.NodeAffinity{}
				}
				aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(aff.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
					corev1.PreferredSchedulingTerm{Weight: term.Weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}})
			}
		}
	}
	out := make([]*corev1.Pod, len(in.pods))
	for i, p := range in.pods {
		out[i] = p.DeepCopy()
		if f := extra[p.Labels["app"]]; f != nil {
			f(out[i])
		}
	}
	return out
}

func affinityOf(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

// hardenUnreported returns the pods with every preference their
// relaxations do not name made required (see TestUnreportedPreferencesHold).
func hardenUnreported(pods []*corev1.Pod, dropped map[string]string) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		p = p.DeepCopy()
		out[i] = p
		d := dropped[p.Namespace+"/"+p.Name]
		for j, c := range p.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable == corev1.ScheduleAnyway && !strings.Contains(d, "ScheduleAnyway topology spread on "+c.TopologyKey+" ") {
				p.Spec.TopologySpreadConstraints[j].WhenUnsatisfiable = corev1.DoNotSchedule
			}
		}
		a := p.Spec.Affinity
		if a == nil {
			continue
		}
		if pa := a.PodAntiAffinity; pa != nil {
			var soft []corev1.WeightedPodAffinityTerm
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if reported(d, "pod anti-affinity", w) {
					soft = append(soft, w)
				} else {
					pa.RequiredDuringSchedulingIgnoredDuringExecution = append(pa.RequiredDuringSchedulingIgnoredDuringExecution, w.PodAffinityTerm)
				}
			}
			pa.PreferredDuringSchedulingIgnoredDuringExecution = soft
		}
		if pa := a.PodAffinity; pa != nil && len(pa.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
			var hard []corev1.WeightedPodAffinityTerm
			for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
				if !reported(d, "pod affinity", w) {
					hard = append(hard, w)
				}
			}
			if len(hard) == 1 {
				pa.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{hard[0].PodAffinityTerm}
			}
		}
	}
	return out
}

// reported reports whether relaxations d name the preferred term w of a
// kind ("pod affinity", "pod anti-affinity").
func reported(d, kind string, w corev1.WeightedPodAffinityTerm) bool {
	return strings.Contains(d, "preferred "+kind+" on "+w.PodAffinityTerm.TopologyKey+" ") &&
		strings.Contains(d, "(weight "+strconv.Itoa(int(w.Weight))+")")
}

// checkNodePreferences checks each placed pod's preferred node-affinity
// terms against the labels of its node, unless its relaxations name the
// term's weight.
func checkNodePreferences(t *testing.T, in propertyInput, res scheduler.Result, dropped map[string]string) {
	t.Helper()
	labelsOf := map[string]map[string]string{}
	for _, nc := range res.NodeClaims {
		l := map[string]string{}
		if it, ok := in.catalog.cat.Get(nc.InstanceType); ok {
			for k, v := range it.Labels {
				l[k] = v
			}
		}
		for k, v := range nc.Labels {
			l[k] = v
		}
		l[requirements.LabelTopologyZone], l[requirements.LabelCapacityType], l[requirements.LabelInstanceType] = nc.Zone, nc.CapacityType, nc.InstanceType
		l[requirements.LabelHostname] = nc.Name
		for _, p := range nc.Pods {
			labelsOf[p] = l
		}
	}
	nodes := map[string]*corev1.Node{}
	for _, n := range in.nodes {
		nodes[n.Name] = n
	}
	for _, np := range res.ExistingNodes {
		for _, p := range np.Pods {
			labelsOf[p] = nodes[np.Name].Labels
		}
	}
	for _, p := range in.pods {
		name := p.Namespace + "/" + p.Name
		l, placed := labelsOf[name]
		if !placed || p.Spec.Affinity == nil || p.Spec.Affinity.NodeAffinity == nil {
			continue
		}
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: l}}
		for _, pt := range p.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{pt.Preference}})
			if err != nil || sel.Match(node) {
				continue
			}
			if !strings.Contains(dropped[name], fmt.Sprintf("preferred node affinity (weight %d)", pt.Weight)) {
				t.Errorf("pod %s: preferred node affinity %v (weight %d) does not hold on its node (labels %v), and its relaxations %q do not name it",
					name, pt.Preference.MatchExpressions, pt.Weight, l, dropped[name])
			}
		}
	}
}
