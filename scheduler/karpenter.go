package scheduler

import (
	"cmp"
	"slices"
	"sort"

	"github.com/samber/lo"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Karpenter's order of in-flight NodeClaims. Before each pod, Karpenter's
// scheduler sorts the NodeClaims it has planned so far by how many pods
// they hold, fewest first, and the pod joins the first that takes it
// (keeping every instance type that still fits), whatever that claim then
// grows to; only when none takes it does a new NodeClaim open. Spreading
// pods over the claims this way often packs followers beside a pod that
// made its claim large (a preference for a big type, say), where joining
// the claim whose price grows least (joinPlanned's choice) leaves the
// large claim nearly empty and opens another. The plan made with
// joinFewest is one more plan Solve compares (bestPlan): it is kept only
// when it places more pods, or the same pods for less. It is made apart
// from the portfolio and compared with the portfolio's finished plan last
// (orFewest): as one more plan of a policy's portfolio it steered the
// fallbacks made when pods are left unplaced (they start from the best
// plan's unplaced pods) and the looser policies' guard (which keeps what the
// Respect plan honours) into dearer plans, where it should only ever add a
// better one.

// joinFewestMaxPods bounds the inputs also planned in Karpenter's order
// of in-flight NodeClaims (each pod examines every planned claim).
const joinFewestMaxPods = 300

// joinFewestOrNew places pp on the planned claim holding the fewest pods
// that takes it (then the one opened first) of a NodePool no lighter than
// the new claim's, or with joinAnyWeight of any weight (as Karpenter, which
// tries its in-flight NodeClaims before any new one), else on the new
// claim nc when there is one (haveNew).
func (s *solver) joinFewestOrNew(pp *pending, a attempt, nc evaluation, haveNew bool) bool {
	var order []*claim
	if s.cfg.fewestInPlace {
		order = s.fewestOrder()
	} else {
		order = s.liveClaims()
		slices.SortStableFunc(order, func(x, y *claim) int { return cmp.Compare(len(x.pods), len(y.pods)) })
	}
	for _, cl := range order {
		if !s.poolTolerated(a.c, cl.pool, a.level) || (haveNew && !s.cfg.joinAnyWeight && cl.pool.tmpl.Weight < nc.pool.tmpl.Weight) {
			continue
		}
		if ev, ok := s.evalClaim(a, cl); ok {
			s.commit(pp, a, ev)
			return true
		}
	}
	if haveNew {
		s.commit(pp, a, nc)
		return true
	}
	return false
}

// fewestOrder is Karpenter's list of in-flight NodeClaims as it sorts it
// before each pod that no existing node takes: in place, fewest pods first,
// with sort.Slice (the call Karpenter makes, so that its unstable order of
// ties is Karpenter's too). Claims holding as many pods stay in the order
// the earlier sorts left them, not in the order they were opened (seed
// 42474: sorted from their opening order at every pod, a zone's claims
// filled differently and the plan opened an eighth claim where Karpenter
// packed seven). New claims join at the end, as Karpenter appends them;
// dropped or emptied ones leave.
func (s *solver) fewestOrder() []*claim {
	s.fewest = append(s.fewest, s.claims[s.fewestSeen:]...)
	s.fewestSeen = len(s.claims)
	s.fewest = slices.DeleteFunc(s.fewest, func(cl *claim) bool { return cl.dropped || len(cl.pods) == 0 })
	sort.Slice(s.fewest, func(i, j int) bool { return len(s.fewest[i].pods) < len(s.fewest[j].pods) })
	return s.fewest
}

// orFewest returns the plan of all (the portfolio, finished), or the plan
// made in Karpenter's order of in-flight NodeClaims (finished too) when it
// places more pods, or the same pods for less. That plan is made on a
// goroutine of its own while all runs, for inputs of at most
// joinFewestMaxPods pods whose plans judge their preferences (not under
// WithoutRelaxations, as in consolidation's simulations) and whose policy
// Honors no preference (Karpenter's relaxation would drop it).
func orFewest(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config, all func([]*corev1.Pod, []nodepool.NodePool, instancetypes.Catalog, config) (*solver, error)) (*solver, error) {
	if len(pods) > joinFewestMaxPods || cfg.noRelaxations {
		return all(pods, nodePools, catalog, cfg)
	}
	fc := cfg
	fc.karpenterRelaxation, fc.joinPlanned, fc.joinFewest = true, true, true
	var fewest *solver
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A stricter policy's plan is valid under a looser one: made in
		// this order too, it keeps Ignore ≤ WhileFree ≤ Respect.
		cfgs := append([]config{fc}, stricterPolicies(fc)...)
		if weightsDiffer(nodePools) {
			// Karpenter's own order: a planned claim of a lighter pool
			// before a heavier pool's new one (B-162; seed 54729: 49 pods
			// where this plan places 68). It is kept only when it places
			// more pods: for the same pods the weights say which pool
			// the user wants filled first (a weighted pool of reserved
			// instances, already paid for, that a cheaper plan joining the
			// unweighted pool's claims would leave empty). Both are made:
			// the one that keeps to the weights is what the plans made
			// last for limits start from where it places more (seed
			// 55036: 188 pods from its 181, 180 from the other's 180).
			ac := fc
			ac.joinAnyWeight = true
			cfgs = append(cfgs, ac)
		}
		if cfg.policyFor(PreferPodAffinity) != PreferenceIgnore && slices.ContainsFunc(pods, preferredPodAffinity) {
			uc := cfg
			uc.karpenterRelaxation, uc.unfollowPreferred = true, true
			cfgs = append(cfgs, uc)
			// Karpenter's whole loop: its queue (by size: no follower,
			// preferred or required, waits for its targets), its
			// relaxation, its in-flight claims in its in-place order.
			// uc packs nodeplan's way; the plans above wait for targets.
			// Seed 72246: a larger pod dropped its preferred affinity to
			// pods queued after it and left their claims' pod slots to
			// others ($147.32/h, Karpenter's, where the plans above paid
			// $167.56 and uc $205.63). Seed 72268: a preferred follower
			// took the room an existing node had left, so every target
			// of the required followers went to a new claim with room
			// for them (270 pods where the plans with either kind
			// waiting placed 266).
			kc := fc
			kc.unfollowPreferred, kc.unfollowRequired, kc.fewestInPlace = true, slices.ContainsFunc(pods, requiredPodAffinity), true
			cfgs = append(cfgs, kc)
			if slices.ContainsFunc(pods, offHostPreferredPodAffinity) {
				// Karpenter's view of such a term: its targets on claims
				// no rule pins are not seen (seed 38037: the first of three
				// required terms gave r5.metal at $6.05/h, Karpenter
				// dropped it for $1.85/h).
				bc := fc
				bc.unseenTargets = true
				cfgs = append(cfgs, bc)
			}
		}
		if slices.ContainsFunc(pods, requiredPodAffinity) {
			rc := fc
			rc.unfollowRequired = true
			cfgs = append(cfgs, rc)
		}
		// Karpenter's order of tied claims is the one its in-place sorts
		// leave (seed 42474: seven claims where the plan sorted from the
		// opening order at every pod opened eight); made beside the plan
		// sorted from the opening order, which other inputs' fixes were
		// made against (held-reservations, owners-last).
		ic := fc
		ic.fewestInPlace = true
		cfgs = append(cfgs, ic)
		for _, c := range cfgs {
			f, err := planFewest(pods, nodePools, catalog, c)
			if err == nil && f != nil {
				f, err = f.orStrictReserved(pods, nodePools, catalog, c)
			}
			if err != nil {
				fewest, ferr = nil, err
				return
			}
			if f == nil {
				continue
			}
			if fewest == nil {
				fewest = f
				continue
			}
			if n, bn := f.finalPlaced(), fewest.finalPlaced(); n > bn || (n == bn && !f.cfg.joinAnyWeight && samePlaced(fewest, f) && f.planPrice() < fewest.planPrice()-priceEps) {
				fewest = f
			}
		}
	}()
	best, err := all(pods, nodePools, catalog, cfg)
	<-done
	if err != nil || ferr != nil || fewest == nil {
		return best, err
	}
	n, bn := fewest.finalPlaced(), best.finalPlaced()
	if n > bn || (n == bn && !fewest.cfg.joinAnyWeight && sameQueue(best, fewest) && samePlaced(best, fewest) && fewest.planPrice() < best.planPrice()-priceEps) {
		return fewest, nil
	}
	return best, nil
}

// weightsDiffer reports whether two NodePools have different weights (an
// unset weight is 0).
func weightsDiffer(nodePools []nodepool.NodePool) bool {
	return len(nodePools) > 0 && slices.ContainsFunc(nodePools[1:], func(np nodepool.NodePool) bool {
		return lo.FromPtr(np.Spec.Weight) != lo.FromPtr(nodePools[0].Spec.Weight)
	})
}

// preferredPodAffinity reports whether the pod has a preferred pod
// affinity term (a nil pod, which Solve reports, has none).
func preferredPodAffinity(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	a := p.Spec.Affinity
	return a != nil && a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
}

// requiredPodAffinity reports whether the pod has a required pod affinity
// term (a nil pod, which Solve reports, has none).
func requiredPodAffinity(p *corev1.Pod) bool {
	if p == nil {
		return false
	}
	a := p.Spec.Affinity
	return a != nil && a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// offHostPreferredPodAffinity reports whether the pod has a preferred pod
// affinity term on a key other than the hostname.
func offHostPreferredPodAffinity(p *corev1.Pod) bool {
	return preferredPodAffinity(p) && slices.ContainsFunc(p.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, func(w corev1.WeightedPodAffinityTerm) bool {
		return w.PodAffinityTerm.TopologyKey != corev1.LabelHostname
	})
}

// planFewest makes and finishes the plan of cfg (joinFewest), or returns
// nil when its policy Honors a preference or it has no pod to place. When
// a class's required spread counts the pods of another class, the plan is
// made with the spread's owners queued after the pods they count
// (ownersLast): in Karpenter's order (largest first, into the emptiest
// claim) such a spread may be checked against fewer of the other pods than
// kube-scheduler's queue binds before it, so the plan's counts held while
// the queue left pods pending (run 21 seed 5022: three of them), and not
// making the plan at all cost pods Karpenter places (seed 26941: 52 of 53).
//
// With unfollowPreferred it makes the plan that relaxes in Karpenter's
// order with Karpenter's queue for pods whose preferred pod affinity
// selects other pending pods (by size, not after those: classes.go,
// followTargets), and only when there are such pods (orFewest asks for it
// only when some pod has a preferred pod affinity the policy does not
// ignore: the plan would be own's). With unfollowRequired, the same for
// pods whose required pod affinity selects other pending pods (made only
// when there are such pods). As a plan of the
// portfolio it steered the plans made next (the unplaced pods they start
// from) into ones placing fewer pods (seed 32099).
func planFewest(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	s, err := newSolver(pods, nodePools, catalog, cfg)
	if err != nil || s.honorsPreferences() || len(s.pending) == 0 || (cfg.unfollowPreferred && !s.preferredFollowers) || (cfg.unfollowRequired && !s.requiredFollowers) {
		return nil, err
	}
	if !cfg.ownersLast && slices.ContainsFunc(s.classes, s.countsOthers) {
		cfg.ownersLast = true
		return planFewest(pods, nodePools, catalog, cfg)
	}
	s.plan()
	return s.finish(pods, nodePools, catalog, cfg)
}
