package scheduler

import (
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Option configures one Solve. Options are resolved once, validated, then the
// solve runs. An option that lists objects (nodes, pods, DaemonSets,
// volumes, namespaces) may be given several times: the lists add up. What
// the solver cannot use — a nil entry, an object without a name or given
// twice, a node or DaemonSet the API server would reject, a NaN, infinite
// or negative number, an unknown policy or preference kind — is an
// *InputError naming the option and the index across its lists (all of
// them together, errors.Join), never a panic.
type Option func(*config)

// PreferencePolicy says how soft constraints are treated.
type PreferencePolicy string

const (
	// PreferenceRespect treats preferences (preferred node affinity,
	// preferred pod affinity and anti-affinity, ScheduleAnyway spread,
	// PreferNoSchedule taints) as requirements first, then relaxes them one
	// at a time until the pod places. This is Karpenter's default, and its
	// price: where honouring the preferences nodeplan's way (every term that
	// can hold, the lightest relaxed first) would cost more than relaxing
	// them in Karpenter's order (one preferred node-affinity term at a time,
	// the heaviest dropped first; replicas' preferred zone anti-affinity
	// relaxed as Karpenter's pessimism does; of several required
	// node-affinity terms, the first ones dropped before any preference; the
	// pods queued by size; a NodeClaim charged the largest
	// of its options against NodePool limits while it schedules; no
	// NodeClaim launched into an empty label value; a soft spread's domains
	// counted from every value a NodePool offers; a preferred term whose
	// In and NotIn leave a key no value, alone or with the required term
	// enforced with it, read as DoesNotExist), the plan
	// relaxes them as Karpenter would. And a plan made with preferences
	// relaxed further (under WhileFree, or Ignore) replaces it when it
	// places the same pods for less and still honours, pod by pod, every
	// preference the Respect plan honours (up to 2,000 pods).
	// Preferences never cost more than under Karpenter.
	PreferenceRespect PreferencePolicy = "Respect"
	// PreferenceHonor honours as many preferences as can hold, relaxing the
	// lightest first, whatever Karpenter would have paid: the richer policy,
	// for preferences that matter more than their price.
	PreferenceHonor PreferencePolicy = "Honor"
	// PreferenceIgnore ignores preferences entirely.
	PreferenceIgnore PreferencePolicy = "Ignore"
	// PreferenceWhileFree keeps a preference only while honouring it does not
	// add a node: a pod may take an existing node or a planned NodeClaim that
	// honours its preferences, but never opens a new NodeClaim for them.
	PreferenceWhileFree PreferencePolicy = "WhileFree"
)

// PreferenceKind names one kind of preference, for per-kind policies.
type PreferenceKind string

// The kinds of preference a pod can carry.
const (
	PreferNodeAffinity    PreferenceKind = "NodeAffinity"
	PreferPodAffinity     PreferenceKind = "PodAffinity"
	PreferPodAntiAffinity PreferenceKind = "PodAntiAffinity"
	PreferTopologySpread  PreferenceKind = "TopologySpread"
	PreferTaints          PreferenceKind = "PreferNoSchedule"
)

// PreferenceKinds lists every kind in relaxation order.
func PreferenceKinds() []PreferenceKind {
	return []PreferenceKind{PreferPodAffinity, PreferPodAntiAffinity, PreferNodeAffinity, PreferTopologySpread, PreferTaints}
}

// MinValuesPolicy says what happens when a NodePool's minValues cannot be met.
type MinValuesPolicy string

const (
	// MinValuesStrict refuses a NodeClaim whose instance-type options fall
	// short of a minValues; the pod falls back to other NodeClaims and
	// NodePools.
	MinValuesStrict MinValuesPolicy = "Strict"
	// MinValuesBestEffort lowers minValues to what is achievable and records
	// that on the NodeClaim.
	MinValuesBestEffort MinValuesPolicy = "BestEffort"
)

type config struct {
	nodes            []*corev1.Node
	existingRank     func(*corev1.Node) float64 // WithExistingNodeRank
	boundPods        []*corev1.Pod
	daemonSets       []*appsv1.DaemonSet
	pvcs             []*corev1.PersistentVolumeClaim
	pvs              []*corev1.PersistentVolume
	storageClasses   []*storagev1.StorageClass
	namespaces       []*corev1.Namespace
	preference       PreferencePolicy
	preferenceByKind map[PreferenceKind]PreferencePolicy
	minValues        MinValuesPolicy
	schema           *requirements.Schema
	seed             *uint64
	budget           *int
	nodeCost         float64
	maxOptions       int
	preferenceCost   bool
	// prepared is the catalog as the solve reads it: WithPrepared's, or
	// the one resolveFor prepares (shared by every plan of the solve).
	prepared *PreparedCatalog
	// ownPrepared: prepared was made for this solve (not WithPrepared's),
	// so the Memo keeps nothing keyed by it (memo_pools.go).
	ownPrepared bool
	// karpenterRelaxation relaxes preferences in Karpenter's order (one
	// preferred node-affinity term at a time, heaviest dropped first); set
	// only for the plan Solve compares with its own.
	karpenterRelaxation bool
	// joinPlanned makes a pod join a planned claim that takes it (the one
	// whose price grows least) whatever it grows to, before any new claim:
	// Karpenter's packing (in-flight NodeClaims first, keeping every
	// instance type that still fits); set only for the plan Solve compares
	// with its own, with karpenterRelaxation.
	joinPlanned bool
	// joinFewest makes the pod of a joinPlanned plan join, of the planned
	// claims that take it, the one holding the fewest pods (then the one
	// opened first), as Karpenter orders its in-flight NodeClaims before
	// each pod; set only for a plan of its own (karpenter.go).
	joinFewest bool
	// fewestInPlace keeps a joinFewest plan's claims in the order
	// Karpenter's in-place sort leaves them (fewestOrder), not sorted
	// from their opening order at every pod: one more plan of orFewest.
	fewestInPlace bool
	// joinAnyWeight lets a joinFewest plan's pod join a planned claim of
	// a NodePool lighter than the one its new claim would open in (one
	// more plan of orFewest when NodePools' weights differ).
	joinAnyWeight bool
	// poolSoftDomains makes the plan that relaxes in Karpenter's order
	// count a ScheduleAnyway spread's domains as Karpenter does
	// (topology.Tracker.SoftSpreadPoolDomains); a plan of its own, next to
	// the one that counts the domains its pods can reach.
	poolSoftDomains bool
	// pickRequired, with poolSoftDomains, makes Karpenter's pick of a
	// least-count domain narrow a required spread too while the pod has
	// preferences left to relax (topology.Tracker.PickRequiredDomains).
	pickRequired bool
	// keepSelfAntiAffinity keeps, in the plan that packs like Karpenter,
	// the preferred anti-affinity on a key other than hostname that selects
	// the pod itself, which that plan otherwise drops
	// (pessimisticAntiAffinity); its tracker then counts a pod on an open
	// claim in every zone the claim may take, as Karpenter does. Set only
	// for a second such plan, with joinPlanned.
	keepSelfAntiAffinity bool
	// fillBounded makes planned claims of NodePools with limits take pods
	// before new claims whatever they grow to; set only for the plan Solve
	// makes when limits left pods unplaced.
	fillBounded bool
	// spendOrder queues pods by what they spend of the bounded NodePools'
	// limits (limitSpends), the least first; set only, with fillBounded,
	// for the plan Solve makes last when limits left pods unplaced
	// (orLimitsFirst).
	spendOrder bool
	// packLargest opens new claims of NodePools with limits on their
	// largest type within the limits, which the pods that follow fill, and
	// refits every claim to its cheapest type once all are queued (the way
	// Karpenter charges a NodeClaim the largest of its options); set only
	// for the plan Solve makes when limits left pods unplaced.
	packLargest bool
	// minValuesPins makes topology pin a claim only to a domain where its
	// types still meet the NodePool's minValues (place.go's ranker); set
	// only for the plan Solve makes when pods were left unplaced and some
	// NodePool has minValues.
	minValuesPins bool
	// densePins makes topology pin a claim, on a key that is an instance
	// type's label, to the domain where the pod's class packs cheapest per
	// pod (densepins.go); set only for the plan Solve makes when a
	// topology group counts on such a key.
	densePins bool
	// reservedPins makes topology pin a claim, on any key but hostname, to
	// the domain where the pod's class packs cheapest per pod
	// (reservedpins.go); set only for the plan Solve makes when capacity
	// reservations exist and a topology group counts on such a key.
	reservedPins bool
	// inverseOpen leaves a claim open on a key where only the required
	// anti-affinity of existing pods counts its pods
	// (topology.Tracker.LeaveInverseOpen); set only for the plan Solve
	// makes when such anti-affinity counts a pending pod.
	inverseOpen bool
	// strictReserved keeps a claim that holds a capacity reservation on
	// reservations (strictres.go); set only for a second plan in
	// Karpenter's order of in-flight NodeClaims, with joinFewest.
	strictReserved bool
	// first names pods queued before all others; set only for the plan
	// Solve makes when pods were left unplaced.
	first map[string]bool
	// firstUnfollow queues the pods first names largest first, as
	// Karpenter does, and before the targets of their pod affinity too
	// (which they otherwise wait for): a follower left unplaced because a
	// pending target took the last room beside a target already running;
	// set only for one more plan made with first when some pod left
	// unplaced follows others (portfolio.go: whenLeft).
	firstUnfollow bool
	// enterFilter lets a NodeClaim for a pod a spread merely counts enter
	// the spread's node filter where that costs less than keeping out
	// (topology.Tracker.EnterFilterWhenCheaper); set only for the plan
	// bestOfPolicy makes when its first plan kept such a claim out at a
	// higher price (topology.Tracker.EnterWasCheaper).
	enterFilter bool
	// reserve names the NodePools whose limits left pods out, kept for
	// the pods first names: a class none of whose pods it names, and that
	// another NodePool can take, uses none of them; set only with first,
	// for the plan Solve makes when a limit left pods out (reserve.go).
	reserve map[string]bool
	// fillExisting queues pods by their largest share of the existing
	// nodes' free room, smallest first (the most pods fit); set only for
	// the plan Solve makes when pods that only existing nodes can take were
	// left unplaced (existingBound).
	fillExisting bool
	// guarded marks a plan the portfolio may choose only as far as, once
	// finished, it beats the plan made without such plans (bestOfOne,
	// finishedOf): the fillExisting plan and the plan with whole spread
	// classes queued first; noGuarded keeps them out of a portfolio (the
	// plan they are compared with).
	guarded, noGuarded bool
	// looser is set for the plans of the looser policies bestOfTrio
	// compares with the Respect plan.
	looser bool
	// unfollowRepelled queues a class with pod affinity to a class that
	// repels it (required anti-affinity on the affinity's key, or on any
	// key for a hostname affinity) in the queue's own order, not after that
	// class; set only for the plan Solve makes when such a plan left pods
	// unplaced (classes.go: followTargets).
	unfollowRepelled bool
	// unfollowPreferred queues a class whose pod affinity to other pending
	// classes is only preferred in the queue's own order, as Karpenter
	// does (it relaxes such a preference when the target comes later);
	// set only for one more plan that relaxes in Karpenter's order, made
	// and finished apart (karpenter.go: orFewest).
	unfollowPreferred bool
	// unfollowRequired queues a class whose required pod affinity selects
	// other pending classes in the queue's own order too: Karpenter tries
	// such a pod by size, before its targets, and it may join a target
	// already running on an existing node before a pending target takes
	// the room there, or relax a preference and try again later. Set only
	// for one more plan of Karpenter's packing (karpenter.go: orFewest).
	unfollowRequired bool
	// unseenTargets fails every attempt that enforces a preferred pod
	// affinity on a key other than the hostname whose selector matches no
	// existing pod, as Karpenter does: it sees a pod in such a domain only
	// once the pod's NodeClaim has one value of the key, and a claim no
	// rule pins stays open, so the term fails and is relaxed, after the
	// pod's first required node-affinity terms (B-068). Set only for one
	// more plan of Karpenter's packing (karpenter.go: orFewest).
	unseenTargets bool
	// ownersLast queues the owners of a required spread that counts other
	// pending pods after all others; set only for the plan Solve makes
	// when pods such a spread counts were left unplaced (ownerslast.go).
	ownersLast bool
	// leftOut maps the sample pod of each class left out from the start
	// (its topology terms dropped) to why it was not placed; set
	// only for the plan Solve makes when the plan it keeps left those
	// classes and other pods unplaced (leftout.go).
	leftOut map[string]*failure
	// judgedAs is the caller's policy per kind, under which the relaxations
	// of the plan made with preferences dropped are judged (dropprefs.go);
	// nil: the plan's own policy.
	judgedAs map[PreferenceKind]PreferencePolicy
	// held maps the pods of the classes the plan never places to the
	// reason they keep (heldowners.go); nil: none.
	held map[string]*failure
	// domainsAvoided is set on the plan whose NodePools were narrowed to
	// the domains an unplaced class's spread can enter (avoiddomains.go).
	domainsAvoided bool
	// ownerDomain is set on the plan whose pods counted by an unplaced
	// owner's spread were kept out of one domain (ownerdomain.go).
	ownerDomain bool
	// launchHeld is set on the plan whose NodeClaims count minValues over
	// the reservations other NodeClaims hold too (heldlaunch.go).
	launchHeld bool
	// spreadTargets maps the first pod of each class that gets an added
	// ScheduleAnyway spread over a key to that key (targetspread.go); set
	// only for the plans Solve makes when followers were left unplaced.
	spreadTargets map[string]string
	// spreadTargetsHard makes those added spreads DoNotSchedule.
	spreadTargetsHard bool
	// targetDomains maps the first pod of each target class that gets an
	// added preferred node-affinity term for its followers' domains to
	// that requirement (targetdomains.go).
	targetDomains map[string]requirements.Requirement
	// targetNodes maps the first pod of each target class of followers
	// with a required pod affinity on the hostname to the node
	// requirements of those followers, which it gets as an added
	// preferred node-affinity term (targetdomains.go).
	targetNodes map[string]requirements.Requirements
	// memo is WithMemo's (nil: none).
	memo *Memo
	// noRelaxations is WithoutRelaxations: the result leaves them out.
	noRelaxations bool
	// existingFirst: WithExistingNodesFirst.
	existingFirst bool
	// noOpenRelaxed marks the plan made without a pod's last try on
	// NodeClaims left open on its relaxed keys (orWithoutOpenRelaxed);
	// openRelaxedSeen is raised by any plan of the solve whose pod took
	// that try (set by Solve, shared by its plans).
	noOpenRelaxed   bool
	openRelaxedSeen *atomic.Bool
	// noFirstUnfollow marks the plan made without the firstUnfollow plans
	// (orWithoutFirstUnfollow); firstUnfollowSeen is raised when such a
	// plan won its portfolio (set by Solve, shared by its plans).
	noFirstUnfollow   bool
	firstUnfollowSeen *atomic.Bool
	// ownersLeftOut marks the plan orOwnersLeftOut makes.
	ownersLeftOut bool
	// keepTiedDomains is WithSpreadDomainsKept.
	keepTiedDomains bool
	// joinCharged lets a pod whose topology finds no domain where a new
	// claim of a limited NodePool fits within what the limits have left
	// join a planned claim of that pool in a domain where the claim's own
	// charge holds it, on a type that spends no more of the limits
	// (plannedRanker; a plan made last when limits leave pods unplaced,
	// kept only when it places more once finished: joincharged.go).
	joinCharged bool
	// nameOrderTies is WithNameOrderOnTies.
	nameOrderTies bool
	// cheapTies makes a new claim go to the NodePool, of those of the
	// weight that first takes the pod, whose claim costs least (newOf);
	// set only for the solve made again when a plan saw a cheaper one.
	cheapTies bool
	// tieSeen is raised by any plan of the solve whose new claim went to a
	// NodePool where another of the same weight would have cost less.
	tieSeen *atomic.Bool
	// shared is the existing nodes as the plans of one solve share them
	// (nil: each plan prepares its own).
	shared *existingShare
	// stop, when raised, tells an alternative plan that the solve's own
	// plan cannot be beaten (unbeatable.go); nil for the own plan.
	stop *stopFlag
	// workers bounds the goroutines of independent work (0: GOMAXPROCS);
	// the plan never depends on it (tests set it).
	workers int
}

// WithExistingNodes adds the cluster's nodes and the pods already bound to
// them (pods whose spec.nodeName names one of the nodes; others are ignored).
// Existing nodes are tried before new NodeClaims; their pods count for
// topology, and their capacity counts against their NodePool's limits.
func WithExistingNodes(nodes []*corev1.Node, boundPods []*corev1.Pod) Option {
	return func(c *config) {
		c.nodes = append(c.nodes, nodes...)
		c.boundPods = append(c.boundPods, boundPods...)
	}
}

// WithExistingNodeRank sets the order in which existing nodes are tried
// for a pod: lowest rank first (NaN counts as lowest), of equal rank by
// name; initialised nodes always come before the others. Without it they
// are tried by name. It changes which existing node takes a pod where
// several could, never whether one can: a consolidation that wants moved
// pods to fill the room it means to keep (the cheapest per unit) first
// ranks nodes by price per unit of room. rank is called once per node and
// solve and must be a function of the node.
func WithExistingNodeRank(rank func(*corev1.Node) float64) Option {
	return func(c *config) { c.existingRank = rank }
}

// WithDaemonSets adds DaemonSets; each adds its pod's requests to every new
// node whose labels, requirements and taints it would accept.
func WithDaemonSets(daemonSets []*appsv1.DaemonSet) Option {
	return func(c *config) { c.daemonSets = append(c.daemonSets, daemonSets...) }
}

// WithVolumes adds the claims, volumes and storage classes that pods mount;
// they turn into zone requirements (volume topology).
func WithVolumes(pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume, classes []*storagev1.StorageClass) Option {
	return func(c *config) {
		c.pvcs = append(c.pvcs, pvcs...)
		c.pvs = append(c.pvs, pvs...)
		c.storageClasses = append(c.storageClasses, classes...)
	}
}

// WithNamespaces gives namespace labels, for pod-affinity namespaceSelectors.
func WithNamespaces(namespaces []*corev1.Namespace) Option {
	return func(c *config) { c.namespaces = append(c.namespaces, namespaces...) }
}

// WithPreferencePolicy sets how every kind of preference is treated
// (default PreferenceRespect).
func WithPreferencePolicy(p PreferencePolicy) Option {
	return func(c *config) { c.preference = p }
}

// WithPreferencePolicyFor sets the policy of one kind of preference,
// overriding WithPreferencePolicy for it.
func WithPreferencePolicyFor(kind PreferenceKind, p PreferencePolicy) Option {
	return func(c *config) {
		if c.preferenceByKind == nil {
			c.preferenceByKind = map[PreferenceKind]PreferencePolicy{}
		}
		c.preferenceByKind[kind] = p
	}
}

// WithMinValuesPolicy sets the minValues policy (default MinValuesStrict).
func WithMinValuesPolicy(p MinValuesPolicy) Option {
	return func(c *config) { c.minValues = p }
}

// WithSchema sets the label vocabulary (well-known keys, aliases, restricted
// domains). By default it is requirements.DefaultSchema extended with every
// label key the instance types carry, plus the offering keys.
func WithSchema(s requirements.Schema) Option {
	return func(c *config) { c.schema = &s }
}

// WithSeed sets the seed of every choice that is not otherwise determined
// (generated label values). By default the seed is derived from the input,
// so the same input always gives the same plan.
func WithSeed(seed uint64) Option {
	return func(c *config) { c.seed = &seed }
}

// WithImprovementBudget bounds the improvement phase that runs after greedy
// placement, in candidate evaluations (0 turns it off). The default scales
// with the number of pods.
func WithImprovementBudget(evaluations int) Option {
	return func(c *config) { c.budget = &evaluations }
}

// WithNodeCost adds a fixed cost per node per hour (per-node licences,
// agents) to the objective the improvement phase minimises. Prices in the
// plan stay the instance prices.
func WithNodeCost(perNodePerHour float64) Option {
	return func(c *config) { c.nodeCost = perNodePerHour }
}

// WithPreferenceCost makes Solve also plan the same pods with every
// preference ignored and report, in Result.Preferences, what honouring
// preferences costs: the extra NodeClaims and price per hour. It doubles the
// work of a solve with preferences.
func WithPreferenceCost() Option {
	return func(c *config) { c.preferenceCost = true }
}

// WithMaxInstanceTypeOptions caps the instance-type options listed on a
// NodeClaim (default 100; Karpenter caps at 600, which makes plans of
// thousands of NodeClaims hundreds of megabytes). minValues is checked after
// the cap.
func WithMaxInstanceTypeOptions(n int) Option {
	return func(c *config) { c.maxOptions = n }
}

// defaultMaxOptions is the default cap on a NodeClaim's instance-type options.
const defaultMaxOptions = 100

// resolve applies the options over the defaults and checks the result (see
// config.check in options_check.go). A nil Option is skipped.
func resolve(opts []Option) (config, error) {
	c := config{preference: PreferenceRespect, minValues: MinValuesStrict, maxOptions: defaultMaxOptions}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if err := c.check(); err != nil {
		return c, err
	}
	c.daemonSets = c.withLiveDaemonPods() // charged as their live pods ask (livedaemons.go)
	return c, nil
}

// resolveFor resolves opts for a solve on catalog: resolve, then the
// catalog prepared once for every plan of the solve (WithPrepared's, checked
// to be catalog's, or prepared now).
func resolveFor(catalog instancetypes.Catalog, opts []Option) (config, error) {
	c, err := resolve(opts)
	if err != nil {
		return c, err
	}
	switch {
	case c.prepared == nil:
		c.prepared, err = Prepare(catalog)
		c.ownPrepared = true
	case !c.prepared.isOf(catalog):
		err = &InputError{Field: "WithPrepared", Index: -1,
			Message: "the PreparedCatalog was prepared from another catalog than the one Solve is given"}
	}
	return c, err
}

// policyFor returns the policy of one kind of preference.
func (c *config) policyFor(k PreferenceKind) PreferencePolicy {
	if p, ok := c.preferenceByKind[k]; ok {
		return p
	}
	return c.preference
}
