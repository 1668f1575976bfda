package scheduler

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
)

// Solve makes more than one plan where one greedy order can go wrong, and
// keeps the plan that places the most pods, then the cheapest, then the
// first made:
//
//   - nodeplan's own plan, always;
//   - Karpenter's packing: pods queued by size, each joining a planned
//     claim that takes it (whatever it grows to) before a new one, then
//     improved like nodeplan's own (up to joinPlannedMaxPods pods); as in
//     Karpenter, a claim is not pinned to a zone for another pod's
//     preferred anti-affinity, nor for its own pod's (which is checked
//     against the pods placed before it only; topology.Tracker.LeaveSoftTargetsOpen);
//     where replicas prefer apart on a zone, that plan twice: with those
//     terms dropped (pessimisticAntiAffinity) and kept;
//   - where Karpenter's order of relaxing preferences could differ from
//     nodeplan's, a plan that relaxes them in Karpenter's order (so that
//     honouring preferences never costs more than Karpenter's relaxation);
//   - where a ScheduleAnyway spread counts a key other than hostname under
//     the Respect policy (up to joinPlannedMaxPods pods; not under
//     WithoutRelaxations), that plan and Karpenter's packing again
//     with the spread's domains counted as Karpenter counts them (every
//     value a NodePool offers, whether or not the pod can launch there:
//     Karpenter's spread then fails, and it relaxes the pod's other
//     preferences first);
//   - where capacity reservations exist and a topology group counts on a
//     key other than hostname, a plan that pins the claims of the pods it
//     counts to the domain where their class packs cheapest per pod, not
//     the one cheapest for the first pod alone (reservedpins.go);
//   - under the Ignore or WhileFree policy, the plans of the stricter
//     policies too (a plan that honours more preferences is a valid plan
//     under a looser policy), so that looser never costs more:
//     Ignore ≤ WhileFree ≤ Respect;
//   - when pods are left unplaced and a bounded NodePool's claims hold
//     capacity no pod uses, a plan that fills claims first and sizes new
//     ones for the limits (limitsize.go);
//   - when pods are left unplaced that a NodePool with limits could take, a
//     plan that opens its claims on the largest type within the limits and
//     refits them once every pod was queued (Karpenter's packing, which
//     spends less of the limits on the room small nodes leave);
//   - when pods are left unplaced and a NodePool has minValues, a plan
//     whose topology pins claims only to domains where their types meet
//     them (the cheapest domain may leave too few);
//   - when pods are left unplaced and a topology group counts on an
//     instance type's label (instance size, family), a plan that pins the
//     claims of the pods it counts to the domain where their class packs
//     cheapest per pod, not the one cheapest for the first pod alone
//     (densepins.go), kept only when it places more pods;
//   - when pods are left unplaced although a NodePool or node could take
//     them, a plan that queues those pods first (the room that others took
//     before them is then theirs).
//
// "Left unplaced" is by nodeplan's own plan: where Karpenter's packing
// places every pod, those plans may place them all too, for less.
//
// Plans share nothing mutable and are made on goroutines of their own.
//
// Where the required anti-affinity of existing pods alone counts a
// pending pod on a key other than hostname, one more plan, finished,
// replaces the finished best when it places more pods, or the same pods
// for less (inverseopen.go).
//
// More plans of the whole portfolio, each finished, replace the best
// (finished) if they place more pods: when pods are left unplaced that a
// NodePool with limits could take, the plan with every preference the
// policy need not Honor dropped from the start (dropprefs.go); when a
// class with topology rules is left wholly unplaced, and other pods too,
// the plan with that class held (never placed, its rules not registered;
// heldowners.go); when pods are left unplaced that need a pod-affinity
// target in their domain and spread themselves over the same key, the plan
// whose targets prefer to spread over that key too, then must
// (targetspread.go); when such followers select a few values of the key,
// the plan whose targets prefer those values (targetdomains.go); when
// followers are left while pods keep topology preferences, the plan with
// preferences dropped (dropprefs.go); when pods are left unplaced whose
// DoNotSchedule spread under nodeAffinityPolicy Ignore counts domains they
// cannot enter, the plan with new NodeClaims held to the values they can
// take (avoiddomains.go).
//
// Then, when the plan kept, closed, leaves pods unplaced that a required
// spread of other placed pods counts, a plan that queues the spread's
// owners after all others replaces it if it places more (ownerslast.go);
// then, when it leaves every pod of classes with required topology terms
// unplaced, and other pods too, a plan that leaves those classes out from
// the start replaces it if it places more (leftout.go).

// bestOf makes the plans, and returns the best, finished (finish); then,
// where it applies, the finished plan with preferences dropped
// (dropprefs.go), with never-placed owners held (heldowners.go) or with
// targets spread for their followers (targetspread.go) instead, when it
// places more pods; last, when a NodePool's limit left pods out, the
// finished plan with the limited NodePools kept for them (reserve.go), when
// it places more pods or the same pods for less; after that, the solve
// made again with new claims going to the cheapest of tied NodePools
// (orCheapTies), the one counting held reservations for minValues
// (heldlaunch.go), and the one with the pods an unplaced owner's spread
// counts kept out of one domain (ownerdomain.go), each where it applies.
func bestOf(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if cfg.tieSeen == nil {
		cfg.tieSeen = new(atomic.Bool)
	}
	// The limited pools' reserve is tried on the plan kept; when that is
	// the plan in Karpenter's order, also on the portfolio's plan, kept in
	// its place only when it places more (seed 24273: the Karpenter-order
	// plan won with 191 pods, the reserve on it gained nothing, and on the
	// portfolio's plan it places 192).
	var own *solver
	best, err := orFewest(pods, nodePools, catalog, cfg, func(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
		var err error
		own, err = bestOfAll(pods, nodePools, catalog, cfg)
		return own, err
	})
	if err != nil {
		return nil, err
	}
	if best, err = best.orLimitReserved(pods, nodePools, catalog, cfg); err != nil {
		return nil, err
	}
	if own != nil && own != best && best.cfg.joinFewest {
		r, err := own.orLimitReserved(pods, nodePools, catalog, cfg)
		if err != nil {
			return nil, err
		}
		if r != own && r.finalPlaced() > best.finalPlaced() {
			best = r
		}
	}
	if best, err = best.orCheapTies(pods, nodePools, catalog, cfg); err != nil {
		return nil, err
	}
	if best, err = best.orHeldLaunched(pods, nodePools, catalog, cfg); err != nil {
		return nil, err
	}
	return best.orOwnerDomainCleared(pods, nodePools, catalog, cfg)
}

// sawTie reports whether a plan of the solve raised tieSeen (newOf); a
// config made outside bestOf has no flag and never does.
func (c *config) sawTie() bool { return c.tieSeen != nil && c.tieSeen.Load() }

// noteTie raises tieSeen, when the solve has one.
func (c *config) noteTie() {
	if c.tieSeen != nil {
		c.tieSeen.Store(true)
	}
}

// orCheapTies is best, or the whole solve made again with new claims going
// to the cheapest of the NodePools of one weight (cheapTies, newOf) when a
// plan of the solve saw one cheaper than the pool Karpenter's order
// names, and that solve places more pods or the same pods for less. It is
// made last, finished like the first: which pool a claim goes to changes
// what every later plan of the solve starts from (a plan whose claims cost
// 4% less left eight pods out that the first solve's owners-last plan
// placed, and its own fallbacks then kept Karpenter's packing at 2.8 times
// the price).
func (best *solver) orCheapTies(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if cfg.cheapTies || cfg.nameOrderTies || !cfg.sawTie() || len(best.pending) > fallbackMaxPods {
		return best, nil
	}
	ties := cfg
	ties.cheapTies = true
	alt, err := bestOf(pods, nodePools, catalog, ties)
	if err != nil {
		return nil, err
	}
	return bestPlan([]*solver{best, alt}), nil // judged as they launch
}

// bestOfAll is bestOf but for the plan in Karpenter's order of in-flight
// NodeClaims (orFewest).
func bestOfAll(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	if looserApplies(pods, cfg) {
		return bestOfTrio(pods, nodePools, catalog, cfg)
	}
	best, err := bestOfOne(pods, nodePools, catalog, cfg, false)
	if err != nil || len(best.pending) > fallbackMaxPods || best.finalPlaced() == len(best.pending) {
		return best, err
	}
	// The plans after finishing are made for the caller's policy only: a
	// stricter policy's, which is valid under a looser one, may place more
	// or the same pods for less (Ignore ≤ WhileFree ≤ Respect).
	for _, c := range stricterPolicies(cfg) {
		s, err := bestOfOne(pods, nodePools, catalog, c, false)
		if err != nil {
			return nil, err
		}
		if n, bn := s.finalPlaced(), best.finalPlaced(); n > bn || (n == bn && s.planPrice() < best.planPrice()-priceEps && samePlaced(best, s)) {
			best = s
		}
	}
	return best, nil
}

// bestOfOne is bestOf for the policy of cfg: with the stricter policies'
// plans compared before finishing and the plans made again when the
// finished plan leaves pods unplaced, unless alone (the looser plans of
// bestOfTrio, which only replace the Respect plan at equal pods).
func bestOfOne(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config, alone bool) (*solver, error) {
	if alone {
		// A looser policy's plan replaces the Respect plan only at the same
		// pods and when it honours what that plan honours (bestOfTrio):
		// whole spread classes queued first make a plan apart from it.
		cfg.looser = true
	}
	return unguarded(cfg, func(c config) (*solver, bool, error) {
		return bestOfOneWith(pods, nodePools, catalog, c, alone)
	})
}

// bestOfOneWith is bestOfOne's plan for cfg, and whether the portfolio
// chose a guarded plan.
func bestOfOneWith(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config, alone bool) (best *solver, usedFill bool, err error) {
	if alone {
		best, err = bestOfPolicy(pods, nodePools, catalog, cfg)
	} else {
		best, err = bestOfPolicies(pods, nodePools, catalog, cfg)
	}
	if err != nil {
		return nil, false, err
	}
	usedFill = best.cfg.guarded
	if best, err = best.finish(pods, nodePools, catalog, cfg); err != nil || alone {
		return best, usedFill, err
	}
	for _, or := range []func(*solver, []*corev1.Pod, []nodepool.NodePool, instancetypes.Catalog, config) (*solver, error){
		(*solver).orInverseOpen,
		(*solver).orPreferencesDropped,
		(*solver).orOwnersHeld,
		(*solver).orTargetsSpread,
		(*solver).orTargetsToFollowerDomains,
		(*solver).orPreferencesDroppedForFollowers,
		(*solver).orDomainsAvoided,
		(*solver).orTargetsToFollowerNodes,
		(*solver).orOwnersHeldForLess,
	} {
		if best, err = or(best, pods, nodePools, catalog, cfg); err != nil {
			return nil, false, err
		}
	}
	return best, usedFill, nil
}

// finish returns the plan with what it left out placed on its own nodes
// (plandomains.go), closed, or the plan with a spread's owners queued last
// (ownerslast.go) or with classes left out (leftout.go) instead, then its
// claims drained by ejection where that makes it cheaper (eject.go), then
// pods of different shapes swapped between two claims that then cost less
// together (swap.go), then claims relocated whole to another zone where
// they cost less, or where they cost no more and take in a claim of their
// NodePool, and repinned to the zone or capacity type where they cost
// least, judged on the plan's own domains (relocate.go).
func (s *solver) finish(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	s.placeLeftAhead()
	s.closePlan()
	s, err := s.orOwnersLast(pods, nodePools, catalog, cfg)
	if err != nil {
		return nil, err
	}
	s, err = s.orWithoutLeftOut(pods, nodePools, catalog, cfg)
	if err != nil {
		return nil, err
	}
	s.ejectLast()
	s.swapLast()
	s.shiftLast()
	s.relocateLast()
	s.repinLast()
	s.redeclare()
	return s, nil
}

// bestOfPolicies makes the plans of the policy and of the stricter ones,
// and returns the best.
func bestOfPolicies(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	strict := stricterPolicies(cfg)
	if len(pods) > alternativeMaxPods {
		strict = nil // the pods are too many for them (below)
	}
	// The stricter policies' plans are made on goroutines of their own
	// while this one makes the caller's policy's.
	plans := make([]*solver, 1+len(strict))
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, c := range strict {
		wg.Go(func() { plans[1+i], errs[1+i] = bestOfPolicy(pods, nodePools, catalog, c) })
	}
	plans[0], errs[0] = bestOfPolicy(pods, nodePools, catalog, cfg)
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, err
	}
	if len(plans[0].pending) > alternativeMaxPods {
		return plans[0], nil
	}
	return bestPlan(plans), nil
}

// bestOfPolicy makes the plans of one preference policy.
func bestOfPolicy(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	s, err := newSolver(pods, nodePools, catalog, cfg)
	if err != nil {
		return nil, err
	}
	var more []config
	if s.relaxesPreferences() && len(s.pending) <= alternativeMaxPods {
		alt := cfg
		alt.karpenterRelaxation = true
		more = append(more, alt)
	}
	// With capacity reservations too: a claim that grows into a reserved
	// offering may find it used up only when the plan is finalised, and
	// bestPlan judges every plan as it launches then.
	if len(s.pending) <= joinPlannedMaxPods && !s.honorsPreferences() {
		join := cfg
		join.karpenterRelaxation, join.joinPlanned = true, true
		more = append(more, join)
		if slices.ContainsFunc(s.classes, selfZoneAntiAffinity) {
			keep := join
			keep.keepSelfAntiAffinity = true
			more = append(more, keep)
		}
		if !cfg.noRelaxations && cfg.policyFor(PreferTopologySpread) == PreferenceRespect && s.softSpreadOffHostname() {
			for _, c := range []config{cfg, join} {
				c.karpenterRelaxation, c.poolSoftDomains = true, true
				more = append(more, c)
			}
		}
		if !cfg.noRelaxations && s.requiredSpreadWithPreferences() {
			pick := join
			pick.poolSoftDomains, pick.pickRequired = true, true
			more = append(more, pick)
		}
	}
	if s.hasReservations && s.countsOffHostname() && len(s.pending) <= alternativeMaxPods {
		res := cfg
		res.reservedPins = true
		more = append(more, res)
	}

	best, own, err := planWith(s, more, pods, nodePools, catalog)
	if err != nil {
		return nil, err
	}
	if !cfg.enterFilter && len(s.pending) <= alternativeMaxPods && own.topo.EnterWasCheaper() {
		// A pod a spread merely counts went to a type dearer than one in
		// the spread's node filter: the plan letting such claims enter.
		enter := cfg
		enter.enterFilter = true
		if best, _, err = planWith(best, []config{enter}, pods, nodePools, catalog); err != nil {
			return nil, err
		}
	}
	if own.placed() == len(own.pending) {
		return best, nil
	}
	// The plans below are made when nodeplan's own plan left pods
	// unplaced, even where Karpenter's packing placed them all: they may
	// place them too, for less.
	judge := own
	if best.placed() < len(best.pending) {
		judge = best
	}
	more = s.cfg.whenLeft(judge, own)
	if len(more) == 0 {
		return best, nil
	}
	best, _, err = planWith(best, more, pods, nodePools, catalog)
	if err == nil && best.cfg.firstUnfollow && cfg.firstUnfollowSeen != nil {
		cfg.firstUnfollowSeen.Store(true) // it won: orWithoutFirstUnfollow
	}
	return best, err
}

// whenLeft is the configs of the plans made when the plan judge (the
// better of nodeplan's own, own, and Karpenter's packing) leaves pods
// unplaced: each for a cause judge shows. The plans for limits start from
// nodeplan's own config c: Karpenter's charging of NodeClaims
// (karpenterRelaxation) spends limits faster.
func (c config) whenLeft(judge, own *solver) []config {
	var more []config
	if judge.fillMayHelp() {
		fill := c
		fill.fillBounded = true
		more = append(more, fill)
	}
	if judge.limitsLeftPods() && len(judge.pending) <= alternativeMaxPods {
		pack := c
		pack.packLargest, pack.fillBounded = true, true
		more = append(more, pack)
	}
	if judge.minValuesMayPin() && len(judge.pending) <= alternativeMaxPods {
		pins := c
		pins.minValuesPins = true
		more = append(more, pins)
	}
	if judge.countsOnTypeLabel() && len(judge.pending) <= alternativeMaxPods {
		dense := c
		dense.densePins = true
		more = append(more, dense)
	}
	if !c.fillExisting && !c.noGuarded && judge.existingBound() && len(judge.pending) <= alternativeMaxPods {
		fill := own.cfg
		fill.fillExisting, fill.guarded = true, true
		more = append(more, fill)
	}
	if judge.repelledFollowers && !c.unfollowRepelled && len(judge.pending) <= alternativeMaxPods {
		unfollow := own.cfg
		unfollow.unfollowRepelled = true
		more = append(more, unfollow)
	}
	if judge.reorderMayHelp() && len(judge.pending) <= alternativeMaxPods {
		first := own.cfg // Karpenter's packing is a plan to compare with, not to refine
		first.first = judge.unplacedNames()
		more = append(more, first)
		if !c.noFirstUnfollow && judge.unplacedFollower() {
			ahead := first
			ahead.firstUnfollow = true
			more = append(more, ahead)
		}
		if whole := judge.withSpreadClasses(first.first); whole != nil && !c.noGuarded && !c.looser {
			spread := own.cfg
			spread.first, spread.guarded = whole, true
			more = append(more, spread)
		}
	}
	return more
}

// planWith plans base (unless planned) and a solver per config, and
// returns the best of them, and the best but Karpenter's packing.
func planWith(base *solver, cfgs []config, pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog) (best, own *solver, err error) {
	// Each plan is prepared on its goroutine too (preparing the existing
	// nodes and topology costs as much as planning); an error is the
	// first plan's, in config order.
	if len(cfgs) > 0 && !base.planned && len(base.pending) <= planFirstMaxPods {
		base.plan() // see planFirstMaxPods
	}
	if len(cfgs) > 0 && base.planned && base.unbeatable() {
		return unbeaten(base) // unbeatable.go: no alternative could be chosen
	}
	plans := make([]*solver, 1+len(cfgs))
	plans[0] = base
	errs := make([]error, len(cfgs))
	stop := new(stopFlag)
	var wg sync.WaitGroup
	for i, c := range cfgs {
		c.stop = stop
		wg.Go(func() {
			if stop.Load() {
				return
			}
			v, err := newSolver(pods, nodePools, catalog, c)
			if err != nil || v.stopped() {
				errs[i] = err
				return
			}
			v.plan()
			plans[1+i] = v
		})
	}
	if !base.planned {
		base.plan()
	}
	if len(cfgs) > 0 && base.unbeatable() {
		stop.Store(true) // unbeatable.go: the alternatives cannot be chosen
	}
	wg.Wait()
	if stop.Load() {
		return unbeaten(base)
	}
	if err := firstError(errs); err != nil {
		return nil, nil, err
	}
	// Karpenter's packing and the guarded plans are plans to compare with,
	// not to refine: the plans made next start from own's config.
	ownPlans := slices.DeleteFunc(slices.Clone(plans), func(p *solver) bool { return p.cfg.joinPlanned || p.cfg.guarded })
	return bestPlan(plans), bestPlan(ownPlans), nil
}

// planFirstMaxPods bounds the solves whose own plan planWith makes before
// it prepares the alternatives, rather than beside them: a small solve's
// own plan costs little next to an alternative's preparation (the existing
// nodes and topology: a disruption planner's simulation places a node's
// pods over hundreds of existing nodes), and when it is unbeatable the
// alternatives are never prepared. The answer is the same either way (an
// unbeatable own plan is the answer whatever the alternatives give); only
// the work done and when it is done differ.
const planFirstMaxPods = 64

// unbeaten is planWith's answer when base, planned, is unbeatable.
func unbeaten(base *solver) (best, own *solver, err error) {
	if base.finalMayDrop() {
		base.nodeClaims() // as bestPlan judges plans
	}
	return base, base, nil
}

// firstError is the first non-nil error.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// joinPlannedMaxPods bounds the inputs that are also planned with
// Karpenter's packing (a pod joins any planned claim that takes it): a
// third plan on two cores doubles the time of a 1,000-pod solve, and on the
// differential check's scenarios (up to 300 pods) it is where Karpenter's
// first-fit packing beats nodeplan's own.
const joinPlannedMaxPods = 500

// fallbackMaxPods bounds the inputs that are planned again after the best
// plan is finished, when it leaves pods unplaced (preferences dropped under
// limits, never-placed owners held, targets spread for their followers,
// the stricter policies' finished plans): each such plan is a whole solve
// after the first, so it doubles the time; at 5,000 aws-mixed pods (the
// GPU pool's limit leaves pods out) none of them places more.
const fallbackMaxPods = 2000

// alternativeMaxPods bounds the inputs that are also planned with
// Karpenter's relaxation order (it doubles the work and the memory).
const alternativeMaxPods = 20000

// plan places every pod, improves the plan and repairs what binding order
// could break.
func (s *solver) plan() {
	s.run()
	if s.stopped() {
		return // unbeatable.go: never read
	}
	if s.cfg.packLargest || s.cfg.karpenterRelaxation {
		for _, cl := range s.liveClaims() {
			s.recharge(cl)
			s.refit(cl)
		}
	}
	s.improve()
	if s.stopped() {
		return
	}
	if s.retryUnplaced() {
		s.improve() // what the retry placed may share room with the rest
	}
	s.unstrand()
	s.settle()
	s.planned = true
}

// bestPlan returns the plan that places the most pods; among plans that
// place the same pods, the cheapest (but the densePins plan, which wins
// only by pods); else the first. Two plans that place as many pods but
// not the same ones are not compared on price: which pods run is the
// queue's decision (size, then name), not the price's.
func bestPlan(plans []*solver) *solver {
	best := plans[0]
	if len(plans) > 1 && best.finalMayDrop() {
		// Judge the plans as they launch: finalising may drop a claim
		// whose reservation others took, or whose options fall short of
		// a minValues, and with it its pods.
		for _, p := range plans {
			p.nodeClaims()
		}
	}
	bp, bc := best.placed(), best.planPrice()
	for _, p := range plans[1:] {
		n, c := p.placed(), p.planPrice()
		if n > bp || (n == bp && c < bc-priceEps && samePlaced(best, p) && !p.cfg.densePins) {
			best, bp, bc = p, n, c
		}
	}
	return best
}

// finalMayDrop reports whether finalising the plan may drop a claim:
// capacity reservations, NodePool limits, or a minValues under the Strict
// policy.
func (s *solver) finalMayDrop() bool {
	if s.hasReservations || s.anyLimited() {
		return true
	}
	return s.cfg.minValues != MinValuesBestEffort && slices.ContainsFunc(s.pools, func(p *pool) bool { return len(p.minValues) > 0 })
}

// samePlaced reports whether two plans of the same input place the same pods.
func samePlaced(a, b *solver) bool {
	for i, pp := range a.pending {
		q := b.pending[i]
		if placedOn(pp) != placedOn(q) {
			return false
		}
	}
	return true
}

// placedOn reports whether pp is on a node or a NodeClaim not dropped.
func placedOn(pp *pending) bool {
	return (pp.claim != nil && !pp.claim.dropped) || pp.node != nil
}

// placed counts the pods placed on a node or a NodeClaim.
func (s *solver) placed() int {
	n := 0
	for _, pp := range s.pending {
		if placedOn(pp) {
			n++
		}
	}
	return n
}

// planPrice is the plan's price: its finalised NodeClaims' once finalised.
func (s *solver) planPrice() float64 {
	if s.final == nil {
		return s.totalPrice()
	}
	total := 0.0
	for _, nc := range s.final {
		total += nc.Price
	}
	return total
}

// honorsPreferences reports whether a class keeps a preference under the
// Honor policy (whatever it costs): Karpenter's packing, which relaxes as
// Karpenter does, is then no plan to compare with.
func (s *solver) honorsPreferences() bool {
	for _, c := range s.classes {
		if slices.ContainsFunc(c.steps, func(st step) bool { return st.policy == PreferenceHonor }) {
			return true
		}
	}
	return false
}

// relaxesPreferences reports whether Karpenter's order of relaxation could
// differ from nodeplan's for some pod: it has preferences under the Respect
// policy and two or more of one kind (two preferred node-affinity terms, two
// weights of preferred pod affinity or anti-affinity, two ScheduleAnyway
// constraints), or a preferred term nodeplan drops before placing because
// nothing can satisfy it (Karpenter tries it, and relaxes the kinds before
// it first), or preferred anti-affinity among its replicas on a key other
// than hostname (see pessimisticAntiAffinity). With at most one of each
// kind, both orders are the same (the queue aside: orFewest).
func (s *solver) relaxesPreferences() bool {
	for _, c := range s.classes {
		if !slices.ContainsFunc(c.steps, func(st step) bool { return st.policy == PreferenceRespect }) {
			continue
		}
		if len(c.staticRelaxed) > 0 || len(c.alts) > 1 || selfZoneAntiAffinity(c) || otherAntiAffinity(c) || s.softSpreadOnEmptyValue(c) || s.anyLimited() {
			return true // (with limits, Karpenter charges NodeClaims their largest option and relaxes sooner)
		}
		n := map[PreferenceKind]int{}
		for _, st := range c.steps {
			if st.policy == PreferenceRespect {
				if n[st.kind]++; n[st.kind] > 1 {
					return true
				}
			}
		}
	}
	return false
}

// limitsLeftPods reports whether a pod left unplaced could go to a
// NodePool with limits.
func (s *solver) limitsLeftPods() bool {
	for _, c := range s.classes {
		if c.invalid != nil || c.placedN == len(c.pods) {
			continue
		}
		for _, p := range s.pools {
			if p.bounded() && s.poolTolerated(c, p, len(c.steps)) && s.classFitsPool(c, p) {
				return true
			}
		}
	}
	return false
}

// unplacedNames lists the pods left unplaced and the pods their pod affinity selects.
func (s *solver) unplacedNames() map[string]bool {
	out := map[string]bool{}
	var follow []*class
	for _, pp := range s.pending {
		if pp.claim == nil && pp.node == nil {
			out[pp.name] = true
			if len(pp.cls.targets) > 0 && !slices.Contains(follow, pp.cls) {
				follow = append(follow, pp.cls)
			}
		}
	}
	// The pods an unplaced pod's affinity selects go first too (the queue
	// keeps a pod right after its targets): placed among the rest, their
	// nodes filled up before the pods that must join them came.
	for _, c := range follow {
		for _, t := range c.targets {
			for _, pp := range t.pods {
				out[pp.name] = true
			}
		}
	}
	return out
}

// existingBound reports whether some unplaced pod only existing nodes can
// take: no NodePool that tolerates and fits it can launch a node for it,
// and an existing node would take it but for the pods placed there in this
// solve. Which pods fill that room decides how many are placed.
func (s *solver) existingBound() bool {
	for _, c := range s.classes {
		if c.invalid != nil || c.placedN == len(c.pods) {
			continue
		}
		if !s.launchableFor(c) && s.takenExistingFor(c) {
			return true
		}
	}
	return false
}

// launchableFor reports whether a NodePool that tolerates and fits c's
// pods can still launch a node for one of them within its limits.
func (s *solver) launchableFor(c *class) bool {
	return slices.ContainsFunc(s.pools, func(p *pool) bool {
		return s.poolTolerated(c, p, len(c.steps)) && s.classFitsPool(c, p) && s.canLaunchFor(p, c)
	})
}

// takenExistingFor reports whether an existing node holding pods placed in
// this solve would take c's pods by its taints and labels (room aside).
func (s *solver) takenExistingFor(c *class) bool {
	for alt := range c.alts {
		a, ok := s.newAttempt(c, alt, len(c.steps), false)
		if ok && slices.ContainsFunc(s.existing, func(en *existingNode) bool { return len(en.placed) > 0 && s.existingStatic(a, en) }) {
			return true
		}
	}
	return false
}

// withSpreadClasses returns names with every pod of each class that a
// spread of its own left partly unplaced, or nil when that adds none. Its
// pods are alike and its spread counts those placed: queued first
// together, they take the room of every domain before pods of other
// classes fill the one the counts needed (an existing node's room in a
// zone no NodePool offers).
func (s *solver) withSpreadClasses(names map[string]bool) map[string]bool {
	var out map[string]bool
	for _, c := range s.classes {
		if c.invalid != nil || c.placedN == 0 || c.placedN == len(c.pods) || !selfSpread(c) {
			continue
		}
		for _, pp := range c.pods {
			if names[pp.name] || out[pp.name] {
				continue
			}
			if out == nil {
				out = maps.Clone(names)
			}
			out[pp.name] = true
		}
	}
	return out
}

// selfSpread reports whether c has a DoNotSchedule spread that selects its
// own pods.
func selfSpread(c *class) bool {
	for _, tsc := range c.sample.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule || tsc.LabelSelector == nil {
			continue
		}
		if sel, err := metav1.LabelSelectorAsSelector(tsc.LabelSelector); err == nil && sel.Matches(labels.Set(c.labels)) {
			return true
		}
	}
	return false
}

// reorderMayHelp reports whether an unplaced pod could have been placed had
// it come earlier: some NodePool that tolerates and fits it can still launch
// a node for it (so neither limits nor instance types refused it: the rules
// between pods did, and their counts depend on who came first), or an
// existing node would take it but for pods placed there in this solve.
// Limits are the fill plan's business.
func (s *solver) reorderMayHelp() bool {
	for _, c := range s.classes {
		if c.invalid != nil || c.placedN == len(c.pods) {
			continue
		}
		if s.launchableFor(c) || s.takenExistingFor(c) {
			return true
		}
	}
	return false
}

// unplacedFollower reports whether a pod left unplaced waited in the
// queue for the targets of its pod affinity.
func (s *solver) unplacedFollower() bool {
	return slices.ContainsFunc(s.classes, func(c *class) bool {
		return c.invalid == nil && c.placedN < len(c.pods) && len(c.targets) > 0
	})
}

// minValuesMayPin reports whether topology may have pinned claims to a
// domain whose types fall short of a NodePool's minValues: pods were left
// unplaced (the caller's condition), some pod carries topology rules and
// some NodePool has minValues that the Strict policy enforces.
func (s *solver) minValuesMayPin() bool {
	if s.cfg.minValues == MinValuesBestEffort || !slices.ContainsFunc(s.pools, func(p *pool) bool { return len(p.minValues) > 0 }) {
		return false
	}
	return slices.ContainsFunc(s.classes, func(c *class) bool { return c.topo.Relevant() })
}

// canLaunchFor reports whether pool p can still launch a node of a type
// that holds a pod of c within its limits.
func (s *solver) canLaunchFor(p *pool, c *class) bool {
	if p.nodesLeft == 0 {
		return false
	}
	var zero binpack.Vec
	found := false
	p.types.Each(func(t int) bool {
		capT := s.idx.Capacity(t)
		if c.requests.Fits(p.usable[t]) && p.withinLimits(&capT, &zero) {
			found = true
			return false
		}
		return true
	})
	return found
}

// stricterPolicies returns the configs whose policies are stricter than
// cfg's (Ignore → WhileFree, then Ignore and WhileFree → Respect), where
// they differ. Honor is stricter than Respect and has none.
func stricterPolicies(cfg config) []config {
	up := func(from, to PreferencePolicy) (config, bool) {
		c := cfg
		changed := false
		c.preferenceByKind = map[PreferenceKind]PreferencePolicy{}
		for _, k := range PreferenceKinds() {
			p := cfg.policyFor(k)
			if p == from || (from == "" && (p == PreferenceIgnore || p == PreferenceWhileFree)) {
				p, changed = to, true
			}
			c.preferenceByKind[k] = p
		}
		return c, changed
	}
	var out []config
	if c, ok := up(PreferenceIgnore, PreferenceWhileFree); ok {
		out = append(out, c)
	}
	if c, ok := up("", PreferenceRespect); ok {
		out = append(out, c)
	}
	return out
}

// retryUnplaced places again, in queue order, the pods the first pass left
// unplaced: improving the plan frees room and limits they may now use, and
// a pod that must join one of its pod-affinity targets may have one moved to
// a node of its own (placeBeside). It reports whether it placed any.
func (s *solver) retryUnplaced() bool {
	placed := false
	for _, pp := range s.queue() {
		if pp.claim == nil && pp.node == nil && pp.cls.invalid == nil && (s.place(pp) || s.placeBeside(pp)) {
			placed = true
		}
	}
	return placed
}

// anyLimited reports whether a NodePool has resource limits.
func (s *solver) anyLimited() bool {
	return slices.ContainsFunc(s.pools, func(p *pool) bool { return p.limited })
}

// softSpreadOnEmptyValue reports whether the class has a ScheduleAnyway
// spread (honoured under Respect) on a key some instance type labels with
// an empty value: a domain Karpenter counts but cannot launch a NodeClaim
// into, so where nodeplan honours the spread there, Karpenter relaxes it.
func (s *solver) softSpreadOnEmptyValue(c *class) bool {
	for _, tsc := range c.sample.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.ScheduleAnyway && s.idx.IsLabelKey(tsc.TopologyKey) && slices.Contains(s.idx.LabelValues(tsc.TopologyKey, s.idx.All()), "") {
			return true
		}
	}
	return false
}

// otherAntiAffinity reports whether the class prefers to be apart from
// pods that are not its replicas: Karpenter checks that against the pods
// placed before it (it queues by size), nodeplan against those it placed
// first, so the two orders honour it differently.
func otherAntiAffinity(c *class) bool {
	a := c.sample.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	return slices.ContainsFunc(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, func(w corev1.WeightedPodAffinityTerm) bool {
		sel, err := metav1.LabelSelectorAsSelector(w.PodAffinityTerm.LabelSelector)
		return err == nil && w.PodAffinityTerm.LabelSelector != nil && !sel.Matches(labels.Set(c.labels))
	})
}

// selfZoneAntiAffinity reports whether the class prefers its replicas apart
// on a key other than hostname (which Karpenter's pessimism relaxes).
func selfZoneAntiAffinity(c *class) bool {
	a := c.sample.Spec.Affinity
	return a != nil && pessimisticAntiAffinity(a, c.labels) != a
}

// requiredSpreadWithPreferences reports whether a pod with preferences
// to relax has a DoNotSchedule spread off the hostname: Karpenter's pick
// of the spread's domain may make it relax them (pickRequired).
func (s *solver) requiredSpreadWithPreferences() bool {
	return s.spreadOffHostname(corev1.DoNotSchedule, func(c *class) bool { return len(c.steps) > 0 })
}

// softSpreadOffHostname reports whether some valid class has a
// ScheduleAnyway spread on a key other than hostname.
func (s *solver) softSpreadOffHostname() bool {
	return s.spreadOffHostname(corev1.ScheduleAnyway, func(*class) bool { return true })
}

// spreadOffHostname reports whether some valid class that keep admits has
// a spread with whenUnsatisfiable when on a key other than hostname.
func (s *solver) spreadOffHostname(when corev1.UnsatisfiableConstraintAction, keep func(*class) bool) bool {
	return slices.ContainsFunc(s.classes, func(c *class) bool {
		return c.invalid == nil && keep(c) && slices.ContainsFunc(c.sample.Spec.TopologySpreadConstraints, func(tsc corev1.TopologySpreadConstraint) bool {
			return tsc.WhenUnsatisfiable == when && tsc.TopologyKey != corev1.LabelHostname
		})
	})
}
