package scheduler

import (
	"cmp"
	"slices"
	"sync/atomic"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// solver is the state of one Solve. Nothing in it outlives the call.
type solver struct {
	cfg        config
	schema     requirements.Schema
	dims       binpack.Dims
	idx        *binpack.Index
	reqs       *reqTable
	pools      []*pool
	daemonSets []nodepool.DaemonSet
	dsVecs     []binpack.Vec
	// dsList is cfg.daemonSets as nodes' protos remember them (daemonRuns).
	dsList   []*appsv1.DaemonSet
	existing []*existingNode
	classes  []*class
	// spend is limitSpends, made for the queue of the spendOrder plan.
	spend   map[*class]float64
	pending []*pending
	claims  []*claim
	// fewest are the planned claims in the order Karpenter's in-place
	// sort leaves them (joinFewest: fewestOrder); fewestSeen counts the
	// claims already in it.
	fewest     []*claim
	fewestSeen int
	// existingPods are the bound pods as topology counts them (shared by
	// the plans of one solve: never written).
	existingPods []topology.ExistingPod
	buckets      []*bucket
	topo         *topology.Tracker
	vols         *topology.Volumes
	seed         uint64

	domainMemo map[string][]string
	// claimUsers counts the pending pods that mount each claim (ns/name).
	claimUsers map[string]int

	anyPreferNoSchedule bool
	slackBuilt          bool
	// followersLeft is set, for an improvement phase, when a pod that
	// follows others on hostname is left unplaced (leavable).
	followersLeft bool
	// repelledFollowers is set when a class's pod affinity selects a class
	// that repels it (classes.go: followTargets).
	repelledFollowers bool
	// preferredFollowers is set when a class's preferred pod affinity
	// selects another pending class (classes.go: followTargets).
	preferredFollowers bool
	// requiredFollowers is set when a class's required pod affinity
	// selects another pending class (classes.go: followTargets).
	requiredFollowers bool
	// hasReservations is set when some offering is a capacity reservation.
	// Then claims hold reservations while they are planned: resHeld counts
	// the claims whose cheapest offering is in each reservation, resCap is
	// its capacity (the PreparedCatalog's, shared: read only), and resVersion changes whenever a reservation fills up
	// or frees a place (memos keyed on it).
	hasReservations bool
	resCap          map[string]int
	resHeld         map[string]int
	resVersion      int
	growScratch     []grown // findClaim's candidates that need a larger type
	absorbScratch   []*claim
	planned         bool
	judgedBy        *solver                       // the plan whose policy judges this one's preferences (looser.go)
	widenKeys       []string                      // keys a claim keeps when it widens (keptOnWiden)
	frozen          *claim                        // a claim detach leaves alone: undoInto restores it
	avoidNode       *existingNode                 // a node placement skips (making room on it)
	staticScans     map[staticScanKey]*staticScan // findExisting's nodes that pass existingStatic
	avoidClaim      *claim                        // a claim placement skips (making room on it)
	lastOwners      map[*class]bool               // countsOthers' memo (ownerslast.go)
	emptying        *claim                        // a claim placement skips (the last phase empties it)
	lookAhead       bool                          // topology may choose domains again with later keys in view (placeAhead)
	wholeGroup      bool                          // a new claim must hold the whole group of a hostname self-affine class (hostgroup.go)
	noRoom          map[noRoomKey]*moveMemo       // roomFor's searches that found nothing
	mark            uint64                        // the mark of the current search (claim.mark)
	pinMemo         map[pinKey]int32              // pinToDomains's requirement sets
	keepMemo        map[int32]int32               // widen's requirement sets, by the claim's
	// final holds the finalised NodeClaims once nodeClaims ran (bestPlan
	// finalises every plan when finalisation may drop a claim).
	final []NodeClaim
	// The drain by ejection (eject.go): the claim the moves' room search
	// leaves out (the claim being drained), and the journal of the claims
	// its moves changed, with where the open journal begins.
	moveAvoid   *claim
	journal     []journalEntry
	journaling  bool
	journalFrom int
}

// Solve plans NodeClaims for pending pods: it places each pod on an existing
// node, on a NodeClaim planned earlier in the call, or on a new NodeClaim of
// the first NodePool (by weight) that can take it, and returns the plan. A
// pod that cannot be placed is reported in Result.PodErrors with the reason;
// error is only for invalid input (a NodePool that fails validation, a nil
// pod, a bad option).
//
// Inputs are never modified or retained. The same inputs give the same
// Result, whatever the order of pods and NodePools.
func Solve(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, opts ...Option) (Result, error) {
	// 1. Options, resolved and checked once; the catalog prepared once.
	cfg, err := resolveFor(catalog, opts)
	if err != nil {
		return Result{}, err
	}
	// 2. The plans (portfolio.go: nodeplan's own and the alternatives that
	// guard it), each prepared, placed, improved and settled; the best.
	cfg.shared = newExistingShare(cfg.memo)
	cfg.openRelaxedSeen = new(atomic.Bool)
	cfg.firstUnfollowSeen = new(atomic.Bool)
	s, err := planned(pods, nodePools, catalog, cfg)
	if err != nil {
		return Result{}, err
	}
	if s, err = s.orWithoutOpenRelaxed(pods, nodePools, catalog, cfg); err != nil {
		return Result{}, err
	}
	if s, err = s.orWithoutFirstUnfollow(pods, nodePools, catalog, cfg); err != nil {
		return Result{}, err
	}
	if s, err = s.orClaimsFirst(pods, nodePools, catalog, cfg); err != nil {
		return Result{}, err
	}
	// 3. NodeClaims, existing-node placements, reasons, the lower bound.
	res := s.result()
	if res, err = s.orOwnersLeftOut(pods, nodePools, catalog, cfg, res); err != nil {
		return Result{}, err
	}
	// 4. What preferences cost, when asked: the same input planned with
	// preferences ignored, compared.
	if cfg.preferenceCost {
		if res.Preferences, err = s.preferenceCost(pods, nodePools, catalog, res); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// planned is the plan Solve keeps for cfg: the portfolio's best, or the
// plans made last when limits leave pods unplaced.
func planned(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	s, err := bestOf(pods, nodePools, catalog, cfg)
	if err != nil {
		return nil, err
	}
	if s, err = s.orLimitsFirst(pods, nodePools, catalog); err != nil {
		return nil, err
	}
	return s.orJoinCharged(pods, nodePools, catalog, cfg)
}

// preferenceCost compares res with the plan of the same input with every
// preference ignored.
func (s *solver) preferenceCost(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, res Result) (*PreferenceCost, error) {
	if !s.hasPreferences() {
		return &PreferenceCost{}, nil
	}
	ignore := s.cfg
	ignore.preference, ignore.preferenceByKind, ignore.preferenceCost = PreferenceIgnore, nil, false
	ignore.karpenterRelaxation, ignore.joinPlanned, ignore.fillBounded, ignore.packLargest, ignore.first = false, false, false, false, nil
	ignore.ownersLast, ignore.keepSelfAntiAffinity = false, false
	ignore.shared = newExistingShare(ignore.memo)
	b, err := bestOf(pods, nodePools, catalog, ignore)
	if err != nil {
		return nil, err
	}
	base := b.result()
	return &PreferenceCost{
		ExtraNodeClaims: res.Summary.NodeClaims - base.Summary.NodeClaims,
		ExtraPerHour:    roundPrice(res.Summary.PricePerHour - base.Summary.PricePerHour),
	}, nil
}

// hasPreferences reports whether some pod carries a preference the policy
// enforces.
func (s *solver) hasPreferences() bool {
	for _, c := range s.classes {
		if len(c.steps) > 0 {
			return true
		}
	}
	return false
}

// newSolver prepares one plan of a solve: the catalog as cfg.prepared has
// it, the NodePools, existing nodes, pending pods (as classes), topology,
// and each class's preferences. Its errors are invalid input.
func newSolver(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config) (*solver, error) {
	s := &solver{cfg: cfg, domainMemo: map[string][]string{}, pinMemo: map[pinKey]int32{}, keepMemo: map[int32]int32{}}
	s.schema = catalog.Schema()
	if cfg.schema != nil {
		s.schema = *cfg.schema
	}
	s.dims, s.idx = cfg.prepared.dims, binpack.NewIndex(cfg.prepared.tables)
	s.resCap, s.resHeld = cfg.prepared.reservations, map[string]int{}
	s.hasReservations = len(s.resCap) > 0
	s.reqs = newReqTable(s)
	s.seed = seedOf(pods, nodePools)
	if cfg.seed != nil {
		s.seed = *cfg.seed
	}
	// NodePools in a canonical order, so that the caller's order never matters.
	pools := slices.Clone(nodePools)
	slices.SortStableFunc(pools, func(a, b nodepool.NodePool) int { return cmp.Compare(a.Name, b.Name) })
	if err := s.preparePools(pools); err != nil {
		return nil, err
	}
	s.vols = s.volumes()
	existingPods, resched, err := s.sharedExisting()
	if err != nil {
		return nil, err
	}
	sorted, err := sortedPods(pods, resched)
	if err != nil {
		return nil, err
	}
	if err := s.prepareClasses(sorted); err != nil {
		return nil, err
	}
	if s.stopped() {
		return s, nil // unbeatable.go
	}
	s.existingPods = existingPods
	s.holdClasses()
	s.spreadTargets()
	if s.stopped() {
		return s, nil // unbeatable.go
	}
	s.registerTopology(existingPods)
	s.anyPreferNoSchedule = anyPreferNoScheduleTaint(s.pools, s.existing)
	for _, c := range s.classes {
		if c.invalid == nil {
			s.derivePreferences(c)
		}
	}
	return s, nil
}

// sortedPods returns the pending pods in a canonical order (namespace/name),
// with the pods of nodes being deleted (resched), which need a new home
// too. A nil pod or a name given twice is an *InputError.
func sortedPods(pods, resched []*corev1.Pod) ([]*corev1.Pod, error) {
	sorted := append(slices.Clone(pods), resched...)
	for i, p := range sorted {
		if p == nil {
			return nil, &InputError{Field: "pods", Index: i, Message: "nil pod"}
		}
	}
	// Each name is made once, not at every comparison.
	type named struct {
		name string
		pod  *corev1.Pod
	}
	byName := make([]named, len(sorted))
	for i, p := range sorted {
		byName[i] = named{podName(p), p}
	}
	slices.SortStableFunc(byName, func(a, b named) int { return cmp.Compare(a.name, b.name) })
	for i := range byName {
		if sorted[i] = byName[i].pod; i > 0 && byName[i].name == byName[i-1].name {
			return nil, &InputError{Field: "pods", Index: -1, Message: "pod " + byName[i].name + " is given twice"}
		}
	}
	return sorted, nil
}

// registerTopology builds the topology tracker over the pools, existing
// nodes and their pods, and registers each class with it; a class whose
// topology terms topology refuses is invalid.
func (s *solver) registerTopology(existingPods []topology.ExistingPod) {
	var matches *topology.Matches
	if s.cfg.shared != nil {
		matches = s.cfg.shared.matches // the plans share existingPods
	}
	s.topo = topology.NewSharing(s.schema, s.sources(), s.namespaceLabels(), existingPods, matches)
	if s.cfg.joinPlanned {
		// Karpenter's packing leaves a NodeClaim open on a zone where only
		// other pods' preferred anti-affinity counts its pods, as Karpenter
		// does: later pods that need one zone can still join it. So does
		// a pod whose only rule on a zone is a preferred anti-affinity
		// (Karpenter checks it against the pods placed before only).
		s.topo.LeaveSoftTargetsOpen()
		s.topo.KeepLooseCounts()
		s.topo.BalanceAhead()
		// Nor does Karpenter keep a claim out of the node filter of a
		// ScheduleAnyway spread that counts its pods.
		s.topo.LeaveSoftFiltersOpen()
	}
	if s.cfg.poolSoftDomains {
		s.topo.SoftSpreadPoolDomains()
	}
	if s.cfg.existingFirst {
		s.topo.ExistingNodesFirst()
	}
	if s.cfg.enterFilter {
		s.topo.EnterFilterWhenCheaper()
	}
	if s.cfg.inverseOpen {
		s.topo.LeaveInverseOpen()
	}
	specs := make([]topology.PodSpec, len(s.classes))
	tps := make([]*topology.Pod, len(s.classes))
	for i, c := range s.classes {
		spec := c.topoSpec
		spec.Count = len(c.pods)
		left, out := s.cfg.leftOut[podName(c.sample)]
		if out || c.invalid != nil {
			// Never placed, so its rules bind nothing (leftout.go); its
			// labels still count for the others'.
			spec = withoutTopologyTerms(spec)
		}
		tp, err := s.topo.Register(spec)
		if err != nil {
			c.topo = &topology.Pod{}
			if c.invalid == nil {
				c.invalid = &failure{code: ReasonInvalidPod, causes: []Cause{{Code: ReasonInvalidPod, Message: err.Error()}}}
			}
		} else {
			c.topo = tp
			c.isolated = tp.Isolated()
		}
		if out && c.invalid == nil {
			c.invalid = left
		}
		specs[i], tps[i] = spec, c.topo
	}
	s.topo.Finish(tps, specs)
}

// sources describes, for topology, where domains come from.
func (s *solver) sources() []topology.Source {
	out := make([]topology.Source, 0, len(s.pools)+len(s.existing))
	for _, p := range s.pools {
		if p.types.IsEmpty() || p.exhausted(s) {
			continue
		}
		src := topology.Source{Name: p.tmpl.Name, Requirements: p.reqs, Taints: p.tmpl.Taints, Values: s.poolValues(p)}
		if s.cfg.poolSoftDomains {
			src.KeyValues = s.poolKeyValues(p)
		}
		out = append(out, src)
	}
	for _, en := range s.existing {
		out = append(out, topology.Source{Name: en.name, Requirements: en.reqs, Taints: en.taints, Existing: true, Labels: en.reqLabels,
			Values: en.values}) // the node's label (nodeFacts.values)
	}
	return out
}

// poolValues returns, for topology, the domain values a pool offers for a
// key to a node that also satisfies extra.
func (s *solver) poolValues(p *pool) func(string, requirements.Requirements) []string {
	return func(key string, extra requirements.Requirements) []string {
		return s.domainValues(p, p.reqs.Intersect(extra), key)
	}
}

// poolKeyValues is poolValues as Karpenter counts a soft spread's domains
// (topology.Source.KeyValues): from the NodePool's own requirements (not
// the pool's, narrowed to what its types offer) with those on the other
// offering keys left out, so that a zone where its types are offered only
// on demand is a domain of a spot-only pool.
func (s *solver) poolKeyValues(p *pool) func(string, requirements.Requirements) []string {
	return func(key string, extra requirements.Requirements) []string {
		var others []string
		switch key {
		case requirements.LabelTopologyZone, instancetypes.LabelZoneID:
			others = []string{requirements.LabelCapacityType}
		case requirements.LabelCapacityType:
			others = []string{requirements.LabelTopologyZone, instancetypes.LabelZoneID}
		default:
			return s.domainValues(p, p.reqs.Intersect(extra), key)
		}
		return s.domainValues(p, p.tmpl.Requirements.Without(others...).Intersect(extra.Without(others...)), key)
	}
}

// domainValues returns the values a node of pool p satisfying reqs could
// take for key: zones and capacity types of the offerings its instance types
// have, label values of those types, or the finite values reqs allow for a
// key no instance type decides (memoised).
func (s *solver) domainValues(p *pool, reqs requirements.Requirements, key string) []string {
	return s.domainValuesHolding(p, reqs, key, "")
}

// domainValuesHolding is domainValues with one place of each reservation
// of held counted free (heldres.go).
func (s *solver) domainValuesHolding(p *pool, reqs requirements.Requirements, key string, held heldRes) []string {
	if key == requirements.LabelHostname {
		return nil
	}
	mk := key + "\x00" + itoa(p.idx) + "\x00" + itoa(s.resVersion) + "\x00" + string(held) + "\x00" + reqs.Fingerprint()
	if v, ok := s.domainMemo[mk]; ok {
		return v
	}
	var out []string
	switch {
	case key == requirements.LabelTopologyZone || key == requirements.LabelCapacityType || key == instancetypes.LabelZoneID:
		if _, empty := reqs.Empty(); empty {
			break
		}
		types := s.idx.Filter(reqs)
		types.AndInto(p.types)
		f := binpack.NewOfferFilter(s.idx, reqs)
		zones := make([]bool, len(s.idx.Zones()))
		cts := make([]bool, len(s.idx.CapacityTypes()))
		if s.hasReservations {
			left := s.leftHolding(held)
			types.Each(func(t int) bool {
				s.idx.MarkOfferedLeft(t, f, left, zones, cts)
				return true
			})
		} else {
			s.idx.MarkOfferedSet(types, f, zones, cts)
		}
		switch key {
		case requirements.LabelCapacityType:
			out = pick(s.idx.CapacityTypes(), cts)
		case requirements.LabelTopologyZone:
			out = pick(s.idx.Zones(), zones)
		default:
			for _, z := range pick(s.idx.Zones(), zones) {
				if id := s.idx.ZoneID(z); id != "" {
					out = append(out, id)
				}
			}
		}
	case s.idx.IsLabelKey(key):
		types := s.idx.Filter(reqs)
		types.AndInto(p.types)
		out = s.idx.LabelValues(key, types)
	default:
		if r := reqs.Get(key); r.IsFinite() {
			out = r.Values()
		}
	}
	s.domainMemo[mk] = out
	return out
}

// DomainValues lists, for topology, the values a claim with these
// requirements could still take for key.
func (ri *reqInfo) DomainValues(key string) []string {
	if ri.pool == nil {
		return nil
	}
	doms, _ := ri.topoMemos()
	if v, ok := doms[key]; ok {
		return v
	}
	v := ri.table.s.domainValues(ri.pool, ri.reqs, key)
	doms[key] = v
	return v
}

// exhausted reports whether the pool can launch nothing more (limits).
func (p *pool) exhausted(s *solver) bool {
	if p.nodesLeft == 0 {
		return true
	}
	if !p.limited {
		return false
	}
	var zero binpack.Vec
	fits := false
	p.types.Each(func(t int) bool {
		c := s.idx.Capacity(t)
		if p.withinLimits(&c, &zero) {
			fits = true
			return false
		}
		return true
	})
	return !fits
}

func (s *solver) namespaceLabels() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, ns := range s.cfg.namespaces {
		out[ns.Name] = ns.Labels
	}
	return out
}

// run places every pending pod in queue order; pods that fail are retried
// in further passes while a pass places something, so a pod whose affinity
// target comes later still lands.
func (s *solver) run() {
	queue := s.queue()
	for {
		var failed []*pending
		for _, pp := range queue {
			if s.stopped() {
				return // unbeatable.go
			}
			if !s.place(pp) {
				failed = append(failed, pp)
			}
		}
		if len(failed) == 0 || len(failed) == len(queue) {
			break
		}
		queue = failed
	}
}

// queue orders the pending pods: the pods the config names first (a plan
// made again for the pods an earlier one left unplaced), isolated pods (each needs a node of
// its own among its group, and the room their nodes leave serves others),
// then largest first (cpu, then memory, then name), except that a pod whose
// pod affinity selects other pending pods waits until the last of those is
// queued and then comes right after it (not after every other pod: the room
// beside its target is what it needs).
func (s *solver) queue() []*pending {
	sorted := slices.Clone(s.pending)
	if s.cfg.spendOrder && s.spend == nil {
		s.spend = s.limitSpends()
	}
	w := s.limitWeights()
	if s.cfg.fillExisting {
		w = s.existingWeights()
	}
	slices.SortStableFunc(sorted, func(a, b *pending) int { return s.queueOrder(a, b, w) })
	return afterTargets(sorted, len(s.classes))
}

// queueOrder compares two pending pods for the queue before affinity moves
// them (w: limitWeights, or existingWeights in the fillExisting plan): the
// pods the config names first, smallest first; isolated pods (but in the
// plan that fills bounded NodePools, where a node of its own spends the
// limits fastest, in the fillExisting plan, and in the plan that relaxes
// preferences in Karpenter's order, which queues by size only); then, in
// the fillExisting plan and the plans for bounded NodePools, the smallest
// share of the existing room or of a limit first, else largest first. In
// the owners-last plan, the owners of a required spread that counts other
// pending pods come after all others (ownerslast.go).
func (s *solver) queueOrder(a, b *pending, w binpack.Vec) int {
	if fa, fb := s.cfg.first[a.name], s.cfg.first[b.name]; fa != fb {
		if fa {
			return -1
		}
		return 1
	} else if fa {
		if s.cfg.firstUnfollow {
			return largerFirst(a, b) // as Karpenter queues them
		}
		return smallerFirst(a, b) // the most of them fit smallest first
	}
	if s.cfg.ownersLast {
		if la, lb := s.countsOthers(a.cls), s.countsOthers(b.cls); la != lb {
			if lb {
				return -1
			}
			return 1
		}
	}
	if ia, ib := a.cls.isolated, b.cls.isolated; ia != ib && (!s.cfg.fillBounded || s.cfg.packLargest) && !s.cfg.fillExisting && !s.cfg.karpenterRelaxation {
		if ia {
			return -1
		}
		return 1
	}
	if s.cfg.fillExisting {
		// Existing nodes bind: the most pods fit smallest first, measured
		// against the room they have.
		if c := cmp.Compare(limitShare(a, w), limitShare(b, w)); c != 0 {
			return c
		}
		return smallerFirst(a, b)
	}
	if s.cfg.fillBounded {
		// Limits bind: the most pods fit smallest first, measured in
		// what they spend of the limits (spendOrder), or in the
		// resources the limits count.
		if s.cfg.spendOrder {
			if c := cmp.Compare(s.spendOf(a, w), s.spendOf(b, w)); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(limitShare(a, w), limitShare(b, w)); c != 0 {
			return c
		}
		return smallerFirst(a, b)
	}
	return largerFirst(a, b)
}

// afterTargets reorders sorted so that a pod whose pod affinity selects
// other pending pods (its class's targets) comes right after the last of
// them; pods in a cycle of affinity stay last, in sorted order. classes is
// a capacity hint.
func afterTargets(sorted []*pending, classes int) []*pending {
	left := make(map[*class]int, classes)
	for _, pp := range sorted {
		left[pp.cls]++
	}
	ready := func(c *class) bool {
		return !slices.ContainsFunc(c.targets, func(t *class) bool { return left[t] > 0 })
	}
	out := make([]*pending, 0, len(sorted))
	var waiting []*pending
	var emit func(pp *pending)
	emit = func(pp *pending) {
		out = append(out, pp)
		if left[pp.cls]--; left[pp.cls] > 0 || len(waiting) == 0 {
			return
		}
		// The class is all queued: release the waiting pods it was the last
		// target of, in their order.
		var still, now []*pending
		for _, w := range waiting {
			if ready(w.cls) {
				now = append(now, w)
			} else {
				still = append(still, w)
			}
		}
		waiting = still
		for _, w := range now {
			emit(w)
		}
	}
	for _, pp := range sorted {
		if ready(pp.cls) {
			emit(pp)
		} else {
			waiting = append(waiting, pp)
		}
	}
	return append(out, waiting...) // cycles of affinity: in size order
}

// limitWeights weighs each resource that a NodePool's limits count by the
// inverse of what the tightest such limit has left (zero elsewhere); a limit
// on nodes counts cpu, memory and pods by the inverse of what its nodes left
// could hold at most (the largest type, times the nodes).
func (s *solver) limitWeights() binpack.Vec {
	var w [binpack.MaxDims]float64
	for _, p := range s.pools {
		for _, d := range p.limitDims {
			if r := p.remaining[d]; r > 0 {
				w[d] = max(w[d], 1/float64(r))
			}
		}
		if p.nodesLeft > 0 {
			// A limit on nodes spends, per pod, its share of the largest node.
			var most binpack.Vec
			p.types.Each(func(t int) bool {
				most = most.Max(p.usable[t])
				return true
			})
			for d := range podsDim + 1 {
				if most[d] > 0 {
					w[d] = max(w[d], 1/(float64(most[d])*float64(p.nodesLeft)))
				}
			}
		}
	}
	var out binpack.Vec
	for d, x := range w {
		out[d] = int64(x * 1e18) // fixed point, so that the order is exact
	}
	return out
}

// existingWeights weighs each resource by the inverse of the existing
// nodes' free room in it before this solve's placements.
func (s *solver) existingWeights() binpack.Vec {
	var free binpack.Vec
	for _, en := range s.existing {
		free = free.Add(en.free)
		for _, pp := range en.placed {
			free = free.Add(pp.cls.requests)
		}
	}
	var w binpack.Vec
	for d, x := range free {
		if x > 0 {
			w[d] = int64(1e18 / float64(x)) // fixed point, as limitWeights
		}
	}
	return w
}

// limitShare is the largest share of a limit (or of the existing nodes'
// room) one pod of pp's size spends, on the fixed-point scale of
// limitWeights.
func limitShare(pp *pending, w binpack.Vec) float64 {
	share := 0.0
	for d, x := range w {
		if x > 0 {
			share = max(share, float64(pp.cls.requests[d])*float64(x))
		}
	}
	return share
}

// InputError is invalid input to Solve.
type InputError struct {
	Field   string
	Index   int
	Message string
}

func (e *InputError) Error() string {
	if e.Index >= 0 {
		return e.Field + "[" + itoa(e.Index) + "]: " + e.Message
	}
	return e.Field + ": " + e.Message
}
