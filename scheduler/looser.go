package scheduler

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Under the Respect policy a preference is kept while some node can honour
// it, whatever that node costs; Karpenter's relaxation keeps the same
// preferences only as far as its greedy order reaches them. So that
// honouring preferences never costs more than it must, the input is also
// planned under the looser policies (WhileFree, then Ignore: bestOfTrio),
// and such a plan replaces the Respect plan when it places the same pods
// for less and honours every preference the Respect plan honours, pod by
// pod (judged
// under Respect on both final plans, a spread over every domain its pods
// could launch in, as placing counts it: relaxations.go). The plan returned
// then reports its relaxations as the Respect plan's judge sees them.

// looserMaxPods bounds the inputs also planned under the looser policies
// (two more plans).
const looserMaxPods = 2000

// looserApplies reports whether the input is planned under the three
// policies (bestOfTrio): one of them is asked for every kind, some pod
// carries a preference, the pods are few enough, and the plan's
// preferences are judged (not under WithoutRelaxations: choosing a looser
// plan is judging both plans' preferences).
func looserApplies(pods []*corev1.Pod, cfg config) bool {
	switch {
	case len(pods) > looserMaxPods || len(cfg.preferenceByKind) > 0 || cfg.noRelaxations:
		return false
	case cfg.preference != PreferenceRespect && cfg.preference != PreferenceWhileFree && cfg.preference != PreferenceIgnore:
		return false
	}
	return slices.ContainsFunc(pods, hasPreference)
}

// hasPreference reports whether a pod carries a preferred node affinity,
// pod affinity or anti-affinity term or a ScheduleAnyway spread.
func hasPreference(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	a := p.Spec.Affinity
	return hasTopologyPreference(p) || (a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

// bestOfTrio plans the input under Respect, WhileFree and Ignore, each
// finished with its fallbacks (bestOfOne), on goroutines of their own. The
// Respect plan is the cheapest of the three that honours what Respect's own
// honours (cheaperHonouring); WhileFree's is the better of its own and
// that; Ignore's the better of its own and WhileFree's, so that a looser
// policy never costs more: Ignore ≤ WhileFree ≤ Respect. The plan returned
// reports its relaxations as judged under cfg's policy.
func bestOfTrio(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	policies := []PreferencePolicy{PreferenceRespect, PreferenceWhileFree, PreferenceIgnore}
	plans := make([]*solver, len(policies))
	errs := make([]error, len(plans))
	plan := func(i int) {
		c := cfg
		c.preference = policies[i]
		s, err := bestOfOne(pods, nodePools, catalog, c, i > 0)
		plans[i], errs[i] = s, err
	}
	var wg sync.WaitGroup
	for i := 1; i < len(policies); i++ {
		wg.Go(func() { plan(i) })
	}
	plan(0)
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	best := plans[0].cheaperHonouring(plans[1:])
	judge := plans[0]
	switch cfg.preference {
	case PreferenceWhileFree:
		best, judge = bestPlan([]*solver{plans[1], best}), plans[1]
	case PreferenceIgnore:
		best, judge = bestPlan([]*solver{plans[2], bestPlan([]*solver{plans[1], best})}), plans[2]
	}
	if best != judge {
		best.judgedBy = judge
	}
	return best, nil
}

// cheaperHonouring returns the cheapest of s and the plans ls that place
// the same pods as s and honour, pod by pod, every preference s honours
// (judged by s); s when none is cheaper.
func (s *solver) cheaperHonouring(ls []*solver) *solver {
	s.nodeClaims()
	var own [][]string
	best, bc := s, s.planPrice()
	for _, l := range ls {
		l.nodeClaims()
		if l.planPrice() >= bc-priceEps || !sameQueue(s, l) || !samePlaced(s, l) {
			continue
		}
		if own == nil {
			var ok bool
			if own, ok = s.brokenOf(s, true); !ok {
				return s
			}
		}
		theirs, ok := s.brokenOf(l, true)
		if !ok || !honoursAll(own, theirs) {
			continue
		}
		best, bc = l, l.planPrice()
	}
	return best
}

// sameQueue reports whether two plans list the same pods in the same order.
func sameQueue(a, b *solver) bool {
	if len(a.pending) != len(b.pending) {
		return false
	}
	for i, pp := range a.pending {
		if pp.name != b.pending[i].name {
			return false
		}
	}
	return true
}

// honoursAll reports whether every pod's broken preferences in theirs are
// among its broken preferences in own.
func honoursAll(own, theirs [][]string) bool {
	for i, t := range theirs {
		for _, d := range t {
			if !slices.Contains(own[i], d) {
				return false
			}
		}
	}
	return true
}
