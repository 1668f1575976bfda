package scheduler

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// Targets spread for their followers: a pod with required pod affinity on
// a key such as the zone can only go to a domain where one of its targets
// runs, and when it also spreads itself over that key (DoNotSchedule), the
// domains without a target still count in its spread, at zero: with the
// targets all in one or two zones (the cheapest), the followers place one
// a zone and stop. Karpenter's order often spreads the targets by chance
// (their own spread, or the zones their NodeClaims happen to take), and
// then places every follower.
//
// So when the finished plan leaves pods of such a class unplaced, Solve
// also plans the same input with its targets given one more preference: a
// ScheduleAnyway spread of their own class over that key (maxSkew 1), which
// the plan honours while it costs no pod; finished too, that plan replaces
// the first only when it places more pods. The plan's policy may still drop
// such a preference where honouring it costs more (a target's cheap nodes
// are all in one zone); when the plan does not place more pods, the same
// spread is made DoNotSchedule, and that plan is kept when it places more
// and every target (else a target would be refused for a rule not its own).
// The added spread only narrows where targets go, so its plan binds as any
// does: kube-scheduler never sees the rule. The added preference is the
// plan's own device, not the pods': it is never reported as relaxed
// (relaxations are judged on the pods' own rules).

// orTargetsSpread returns, in place of best, the plan of the same input
// with the targets of best's unplaced followers spread (above), when it
// places more pods; else best.
func (best *solver) orTargetsSpread(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	spread := best.targetsToSpread()
	if len(spread) == 0 {
		return best, nil
	}
	// The caller's config, with the policies and held classes of the plan
	// it replaces (which may have dropped preferences or held owners).
	c := cfg.replanOf(best)
	c.spreadTargets = spread
	v, err := best.orFinishedReplan(pods, nodePools, catalog, c)
	if err != nil || v != best {
		return v, err
	}
	c.spreadTargetsHard = true
	if v, err = best.orFinishedReplan(pods, nodePools, catalog, c); err != nil || v == best {
		return v, err
	}
	// A pod the hard plan leaves unplaced would be refused for a rule that
	// is not its own: the plan is kept only when it places every target.
	for _, cl := range v.classes {
		if cl.invalid == nil && len(cl.pods) > 0 && spread[cl.pods[0].name] != "" && !allPlaced(cl.pods) {
			return best, nil
		}
	}
	return v, nil
}

// targetsToSpread maps the first pod of each target class to spread to the
// key its followers need it spread over: the targets of every class with
// pods left unplaced that has a required pod-affinity term and a
// DoNotSchedule spread of its own on one key other than hostname, and,
// where such a target has a required pod-affinity term on that key itself,
// its own targets (a target can only go where its targets are).
func (s *solver) targetsToSpread() map[string]string {
	var out map[string]string
	for _, c := range s.classes {
		if c.invalid != nil || len(c.targets) == 0 || allPlaced(c.pods) {
			continue
		}
		if key := followerSpreadKey(c.sample); key != "" {
			if out == nil {
				out = map[string]string{}
			}
			addTargets(out, c, key)
		}
	}
	return out
}

// addTargets adds c's targets to out under key, and the targets of those
// with a required pod-affinity term on key, each class once.
func addTargets(out map[string]string, c *class, key string) {
	for _, t := range c.targets {
		if t.invalid != nil || len(t.pods) == 0 {
			continue
		}
		if _, ok := out[t.pods[0].name]; ok {
			continue
		}
		out[t.pods[0].name] = key
		if requiredAffinityOn(t.sample, key) {
			addTargets(out, t, key)
		}
	}
}

// requiredAffinityOn reports whether pod p has a required pod-affinity term
// on key.
func requiredAffinityOn(p *corev1.Pod, key string) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAffinity != nil && slices.ContainsFunc(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		func(t corev1.PodAffinityTerm) bool { return t.TopologyKey == key })
}

// followerSpreadKey is the key, other than hostname, on which pod p has
// both a required pod-affinity term and a DoNotSchedule spread; "" if none.
func followerSpreadKey(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return ""
	}
	for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey == requirements.LabelHostname {
			continue
		}
		if slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool {
			return c.TopologyKey == t.TopologyKey && c.WhenUnsatisfiable == corev1.DoNotSchedule
		}) {
			return t.TopologyKey
		}
	}
	return ""
}

// spreadTargets gives the classes config.spreadTargets names their added
// ScheduleAnyway spread (called before they are registered).
func (s *solver) spreadTargets() {
	if len(s.cfg.spreadTargets) == 0 {
		return
	}
	when := corev1.ScheduleAnyway
	if s.cfg.spreadTargetsHard {
		when = corev1.DoNotSchedule
	}
	for _, c := range s.classes {
		if c.invalid != nil || len(c.pods) == 0 || len(c.labels) == 0 {
			continue
		}
		key, ok := s.cfg.spreadTargets[c.pods[0].name]
		if !ok {
			continue
		}
		c.topoSpec.Spread = append(slices.Clone(c.topoSpec.Spread), corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: maps.Clone(c.labels)},
		})
	}
}
