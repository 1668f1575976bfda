package scheduler

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Preferences that cost limits: a preference is soft, so it must never be
// why a pod stays unplaced. Under a NodePool's limits it can be: a pod kept
// on the kind of node its preference names, or a NodeClaim pinned to one
// domain of a ScheduleAnyway spread that counts its pods (the domain
// cheapest for the first pod, whose types are small), spends the limit's
// nodes or resources on nodes that hold few pods, and the pods that come
// last find the limit spent. A plan relaxes a pod's preferences only when
// that pod cannot be placed, which is too late: the budget went to the
// pods before it, which kept theirs.
//
// Topology preferences cost followers too: a pod that a preferred pod
// (anti-)affinity or ScheduleAnyway spread counts is pinned to a domain
// when placed, perhaps one its own followers (required pod affinity)
// cannot enter.
//
// So when the plan leaves pods unplaced that a NodePool with limits could
// take, or followers of a pod-affinity target while pods carry topology
// preferences, and pods carry preferences the policy keeps but does not Honor,
// Solve also plans the same input with those preferences dropped from the
// start, and keeps that plan only when it places more pods. Its
// relaxations are judged under the caller's policy (config.judgedAs), so
// every preference the plan does not honour is reported, as for any plan.

// orPreferencesDropped returns, in place of best, the plan of the same
// input with every preference cfg keeps but does not Honor dropped from the
// start, when that places more pods; else best.
func (best *solver) orPreferencesDropped(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods || !best.preferencesMayCostLimits() {
		return best, nil
	}
	return best.withPreferencesDroppedReplan(pods, nodePools, catalog, cfg)
}

// orPreferencesDroppedForFollowers is orPreferencesDropped for followers of
// a pod-affinity target left unplaced while pods keep topology preferences
// (preferencesMayCostFollowers). It comes after the other fallbacks (held
// owners, targets spread), which keep the preferences: it is kept only when
// it places more than they do.
func (best *solver) orPreferencesDroppedForFollowers(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if len(best.pending) > fallbackMaxPods || !best.preferencesMayCostFollowers() {
		return best, nil
	}
	return best.withPreferencesDroppedReplan(pods, nodePools, catalog, cfg)
}

// withPreferencesDroppedReplan returns the plan of the same input with the
// preferences cfg keeps but does not Honor dropped, when it places more
// pods than best; else best.
func (best *solver) withPreferencesDroppedReplan(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	loose, ok := cfg.withPreferencesDropped()
	if !ok {
		return best, nil
	}
	return best.orFinishedReplan(pods, nodePools, catalog, loose)
}

// preferencesMayCostLimits reports whether the plan leaves pods unplaced
// that a NodePool with limits could take while some pod keeps a preference
// it need not (one with a step whose policy is not Honor).
func (s *solver) preferencesMayCostLimits() bool {
	if s.placed() == len(s.pending) || !s.limitsLeftPods() {
		return false
	}
	return slices.ContainsFunc(s.classes, func(c *class) bool {
		return c.invalid == nil && slices.ContainsFunc(c.steps, func(st step) bool { return st.policy != PreferenceHonor })
	})
}

// preferencesMayCostFollowers reports whether the plan leaves pods
// unplaced that need a pod-affinity target (a class with targets) while
// some pod keeps a topology preference it need not: a preferred pod
// affinity, anti-affinity or ScheduleAnyway spread counts the pods it
// selects per domain, so their NodeClaims are pinned to a domain when they
// are placed, which may be one the followers cannot enter (5017: a target's
// claims pinned to the zone cheapest for it, for the preference of a pod
// that was never placed, and the followers select another zone).
func (s *solver) preferencesMayCostFollowers() bool {
	if !slices.ContainsFunc(s.classes, func(c *class) bool {
		return c.invalid == nil && len(c.targets) > 0 && !allPlaced(c.pods)
	}) {
		return false
	}
	return slices.ContainsFunc(s.classes, func(c *class) bool {
		return c.invalid == nil && slices.ContainsFunc(c.steps, func(st step) bool {
			return st.policy != PreferenceHonor && (st.kind == PreferPodAffinity || st.kind == PreferPodAntiAffinity || st.kind == PreferTopologySpread)
		})
	})
}

// withPreferencesDropped returns c with every preference kind whose policy
// is Respect or WhileFree ignored (Honor kinds keep theirs), judging the
// plan's relaxations under c's policies; ok is false when no kind changes.
func (c config) withPreferencesDropped() (config, bool) {
	out := c
	out.preferenceByKind = map[PreferenceKind]PreferencePolicy{}
	out.judgedAs = map[PreferenceKind]PreferencePolicy{}
	changed := false
	for _, k := range PreferenceKinds() {
		p := c.policyFor(k)
		out.judgedAs[k] = p
		if p == PreferenceRespect || p == PreferenceWhileFree {
			p, changed = PreferenceIgnore, true
		}
		out.preferenceByKind[k] = p
	}
	return out, changed
}

// judgedPolicy is the policy a plan's relaxations are judged under for
// kind k: the caller's (judgedAs) in the plan that dropped preferences,
// else the plan's own.
func (c *config) judgedPolicy(k PreferenceKind) PreferencePolicy {
	if p, ok := c.judgedAs[k]; ok {
		return p
	}
	return c.policyFor(k)
}

// finalPlaced counts the pods the finished plan places as it launches:
// finalising may drop a claim whose reservation others took, or whose
// options fall short of a minValues, and with it its pods.
func (s *solver) finalPlaced() int {
	if s.final == nil && s.finalMayDrop() {
		s.nodeClaims()
	}
	return s.placed()
}
