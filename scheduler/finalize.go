package scheduler

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func itoa(i int) string { return strconv.Itoa(i) }

// result assembles the plan: the NodeClaims, the pods placed on existing
// nodes, the pods left unplaced with their reasons, and the summary.
func (s *solver) result() Result {
	res := Result{NodeClaims: s.nodeClaims(), ExistingNodes: s.existingPlacements(), PodErrors: []PodError{}}
	explained := map[*class]*failure{}
	for _, pp := range s.pending {
		switch {
		case pp.claim != nil && !pp.claim.dropped:
			res.Summary.Scheduled++
		case pp.node != nil:
			res.Summary.Scheduled++
		default:
			f := pp.failure
			if f == nil {
				// Pods of one class fail alike: explain once per class.
				if f = explained[pp.cls]; f == nil {
					f = s.explain(pp)
					explained[pp.cls] = f
				}
			}
			res.PodErrors = append(res.PodErrors, PodError{Pod: pp.name, Reason: f.reason(), Code: f.code, Details: f.causes})
		}
	}
	// Judged on the final plan (relaxations.go), after nodeClaims dropped
	// the claims that would not launch.
	if !s.cfg.noRelaxations {
		res.Relaxations = s.relaxations()
	}
	s.inQueueOrder(&res)
	slices.SortFunc(res.PodErrors, func(a, b PodError) int { return cmp.Compare(a.Pod, b.Pod) })
	slices.SortFunc(res.Relaxations, func(a, b Relaxation) int { return cmp.Compare(a.Pod, b.Pod) })
	res.Summary.Pods = len(s.pending)
	res.Summary.NodeClaims = len(res.NodeClaims)
	for _, nc := range res.NodeClaims {
		res.Summary.PricePerHour += nc.Price
	}
	res.Summary.PricePerHour = roundPrice(res.Summary.PricePerHour)
	res.Summary.PriceLowerBound = roundPrice(s.lowerBound())
	return res
}

// nodeClaims finalises the claims that hold pods, in the order they were
// opened, and names them per NodePool (<pool>-1, <pool>-2, ...). Claims
// that held a reservation while planned get it first.
func (s *solver) nodeClaims() []NodeClaim {
	if s.final != nil {
		return s.final
	}
	s.final = s.finalizeClaims()
	return s.final
}

func (s *solver) finalizeClaims() []NodeClaim {
	final := make([]*NodeClaim, len(s.claims))
	if s.hasReservations {
		s.finalizeInTurn(final)
	} else {
		s.finalizeAtOnce(final)
	}
	out := []NodeClaim{}
	perPool := map[string]int{}
	for i, cl := range s.claims {
		nc := final[i]
		if nc == nil {
			continue
		}
		perPool[cl.pool.tmpl.Name]++
		nc.Name = fmt.Sprintf("%s-%d", cl.pool.tmpl.Name, perPool[cl.pool.tmpl.Name])
		out = append(out, *nc)
	}
	return out
}

// finalizeInTurn finalises the claims one after the other, the claims
// that held a reservation while planned first: each NodeClaim launched on a
// reservation takes a place the next ones no longer have.
func (s *solver) finalizeInTurn(final []*NodeClaim) {
	resUsed := map[string]int{}
	left := func(id string) int { return s.resCap[id] - resUsed[id] }
	for _, holders := range []bool{true, false} {
		for i, cl := range s.claims {
			if !cl.live() || (cl.resID != "") != holders {
				continue
			}
			nc, ok := s.finalizeClaim(cl, left)
			if !ok {
				continue
			}
			if nc.ReservationID != "" {
				resUsed[nc.ReservationID]++
			}
			final[i] = &nc
		}
	}
}

// finalizeAtOnce finalises the claims of a plan without reservations, where
// no claim's NodeClaim depends on another's, in chunks on up to
// cfg.workers goroutines. Finalising only reads the solver, once the
// memos it would fill (each requirement set's types and prices) are
// filled first; each claim is written by one goroutine.
func (s *solver) finalizeAtOnce(final []*NodeClaim) {
	for _, cl := range s.claims {
		if cl.live() {
			info := s.reqs.info(cl.reqID)
			info.typeSet(s)
			s.idx.Prices(info.offer)
		}
	}
	none := func(string) int { return 0 }
	parallelChunks(len(s.claims), s.cfg.workerCount(), func(from, to int) {
		for i := from; i < to; i++ {
			if cl := s.claims[i]; cl.live() {
				if nc, ok := s.finalizeClaim(cl, none); ok {
					final[i] = &nc
					s.rememberLaunch(cl, &nc)
				}
			}
		}
	})
}

// existingPlacements lists the existing nodes that take pending pods, by
// name, each with its pods sorted.
func (s *solver) existingPlacements() []NodePlacement {
	out := []NodePlacement{}
	for _, en := range s.existing {
		if len(en.placed) == 0 {
			continue
		}
		np := NodePlacement{Name: en.name}
		for _, pp := range en.placed {
			np.Pods = append(np.Pods, pp.name)
		}
		slices.Sort(np.Pods)
		out = append(out, np)
	}
	slices.SortFunc(out, func(a, b NodePlacement) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// roundPrice rounds to 1e-9 $/h so sums print stably.
func roundPrice(p float64) float64 { return math.Round(p*1e9) / 1e9 }

// option is an instance type a NodeClaim may launch: the type, the price
// of the offering it would launch, and that offering's position (-1 when
// not looked up yet).
type option struct {
	t     int
	price float64
	off   int
}

// launch is what a NodeClaim launches: its options (cheapest first) and
// their set, the chosen option and its offering, and how reservations are
// counted for it from then on. On several reservations (launchres.go),
// resIDs lists them and resZones flags their zones.
type launch struct {
	opts             []option
	set              binpack.TypeSet
	best             option
	zone, ct, resID  string
	price            float64
	left             binpack.ReservationsLeft
	minValuesRelaxed bool
	resIDs           []string
	resZones         []bool
}

// finalizeClaim turns a claim into its NodeClaim: the instance-type options
// that fit its pods (cheapest first), the cheapest available offering, the
// labels the node will carry, and its requirements and requests. A claim
// that cannot launch (minValues under the Strict policy, reservations
// taken) is dropped, its pods failed with the reason.
//
// NodePool limits: a claim is charged the capacity of the instance type
// chosen for it, and only types whose capacity on every limited resource is
// at most that are listed as options, so whichever option the cloud launches,
// the pool stays within its limits.
func (s *solver) finalizeClaim(cl *claim, left binpack.ReservationsLeft) (NodeClaim, bool) {
	p := cl.pool
	info := s.reqs.info(cl.reqID)
	info.typeSet(s)
	l, ok := s.launchOf(cl, info, left)
	if !ok {
		return NodeClaim{}, false
	}
	reqs := s.claimRequirements(info, &l)
	reqs, labels := s.claimLabels(cl, reqs, &l)
	names := make([]string, 0, len(l.opts))
	for _, o := range l.opts {
		names = append(names, s.idx.Type(o.t).Name)
	}
	nc := NodeClaim{
		NodePool:            p.tmpl.Name,
		InstanceType:        s.idx.Type(l.best.t).Name,
		Zone:                l.zone,
		ZoneID:              s.idx.ZoneID(l.zone),
		CapacityType:        l.ct,
		Price:               l.price,
		InstanceTypeOptions: names,
		Labels:              labels,
		Taints:              p.tmpl.Taints,
		StartupTaints:       p.tmpl.StartupTaints,
		Requirements:        reqs.Expressions(),
		Requests:            s.dims.List(cl.used.Add(p.ds[l.best.t])),
		ReservationID:       l.resID,
		MinValuesRelaxed:    l.minValuesRelaxed,
	}
	if nc.Requirements == nil {
		nc.Requirements = []requirements.Expression{}
	}
	for _, pp := range cl.pods {
		nc.Pods = append(nc.Pods, pp.name)
	}
	slices.Sort(nc.Pods)
	return nc, true
}

// launchOf chooses what a claim launches: its options, capped at the
// maximum, that meet the NodePool's minValues (or, under BestEffort, what
// they can), and the cheapest available offering among them. When it can
// launch nothing, it drops the claim and fails its pods.
func (s *solver) launchOf(cl *claim, info *reqInfo, left binpack.ReservationsLeft) (launch, bool) {
	l, drop := s.chooseLaunch(cl, info, left)
	if drop != nil {
		s.dropClaim(cl, drop.code, drop.message)
		return launch{}, false
	}
	return l, true
}

// launchDrop says why a claim cannot launch.
type launchDrop struct {
	code    ReasonCode
	message string
}

// chooseLaunch is launchOf without its effect: the launch, or why the
// claim cannot launch.
func (s *solver) chooseLaunch(cl *claim, info *reqInfo, left binpack.ReservationsLeft) (launch, *launchDrop) {
	p := cl.pool
	l := launch{opts: s.claimOptions(cl, info, left), left: left}
	l.set = s.optionSet(l.opts)
	if msg, ok := s.minValuesShort(p, info.reqs, l.set); !ok {
		if held, ok := s.launchHeld(cl, info, l); ok {
			return held, nil
		}
		if s.cfg.minValues == MinValuesStrict {
			return launch{}, &launchDrop{ReasonMinValues, fmt.Sprintf("NodePool %s: %s after capping instance-type options at %d", p.tmpl.Name, msg, s.cfg.maxOptions)}
		}
		l.minValuesRelaxed = true
	}
	if len(l.opts) == 0 {
		// Every offering the claim could use is a capacity reservation that
		// other NodeClaims of the plan already hold.
		return launch{}, &launchDrop{ReasonReservation, fmt.Sprintf("NodePool %s: every offering the pod can use is a capacity reservation already used up by other NodeClaims of the plan", p.tmpl.Name)}
	}
	l.best = l.opts[0]
	if l.best.off < 0 {
		_, l.best.off, _ = s.idx.Cheapest(l.best.t, info.offer, left)
	}
	l.zone, l.ct, l.price, l.resID = s.idx.Offering(l.best.t, l.best.off)
	if l.resID == "" {
		return l, nil
	}
	// A NodeClaim on a reservation lists only the types it has...
	inRes := slices.DeleteFunc(slices.Clone(l.opts), func(o option) bool { return !s.idx.HasReservation(o.t, l.resID) })
	resSet := s.optionSet(inRes)
	if _, ok := s.minValuesShort(p, info.reqs, resSet); ok || l.minValuesRelaxed || s.cfg.minValues == MinValuesBestEffort {
		l.opts, l.set = inRes, resSet
		return l, nil
	}
	// ...unless that breaks a minValues: then it lists the types of more
	// reservations, or else launches off the reservation, with every option.
	if on, ok := s.launchOnReservations(cl, info, l); ok {
		return on, nil
	}
	if held, ok := s.launchHeld(cl, info, l); ok {
		return held, nil
	}
	return s.launchOffReservation(cl, info, l)
}

// launchOffReservation relaunches l with every option off its
// reservations: each option priced at its cheapest offering outside them.
func (s *solver) launchOffReservation(cl *claim, info *reqInfo, l launch) (launch, *launchDrop) {
	noRes := func(string) int { return 0 }
	for i := range l.opts {
		l.opts[i].price, l.opts[i].off, _ = s.idx.Cheapest(l.opts[i].t, info.offer, noRes)
	}
	l.opts = slices.DeleteFunc(l.opts, func(o option) bool { return o.off < 0 })
	s.sortOptions(l.opts)
	l.set = s.optionSet(l.opts)
	if len(l.opts) == 0 {
		return launch{}, &launchDrop{ReasonMinValues, fmt.Sprintf("NodePool %s: only a capacity reservation fits, and its instance types fall short of minValues", cl.pool.tmpl.Name)}
	}
	l.best = l.opts[0]
	l.zone, l.ct, l.price, l.resID = s.idx.Offering(l.best.t, l.best.off)
	l.left = noRes // and its requirements leave reservations out
	return l, nil
}

// claimOptions lists the instance types of the claim's requirement set
// that pass the instance-type check for its pods (typecheck.go), as options
// of a NodeClaim charged for its chosen type's capacity: cheapest first
// (ties by name), at most the maximum number of options.
func (s *solver) claimOptions(cl *claim, info *reqInfo, left binpack.ReservationsLeft) []option {
	load := s.newTypeLoad(cl.pool, cl.reqID, cl.used, cl.ports, nil)
	load.limits, load.charged = limitsCapped, cl.charged
	if s.hasReservations {
		load.left = left
	}
	opts := make([]option, 0, min(len(info.members), s.cfg.maxOptions+1))
	for _, t32 := range info.members {
		t := int(t32)
		c, price, off := s.checkType(load, t)
		if c != typeFits {
			continue
		}
		opts = append(opts, option{t: t, price: price, off: off})
		if len(opts) >= s.cfg.maxOptions && !s.hasReservations {
			// The price order already is the order of options; nothing
			// after the cap can come before it.
			break
		}
	}
	s.sortOptions(opts)
	if len(opts) > s.cfg.maxOptions {
		opts = opts[:s.cfg.maxOptions]
	}
	return opts
}

// sortOptions sorts options cheapest first, ties by instance-type name.
func (s *solver) sortOptions(opts []option) {
	slices.SortStableFunc(opts, func(a, b option) int {
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		return cmp.Compare(s.idx.Type(a.t).Name, s.idx.Type(b.t).Name)
	})
}

// optionSet returns the set of the options' instance types.
func (s *solver) optionSet(opts []option) binpack.TypeSet {
	set := binpack.NewTypeSet(s.idx.Len())
	for _, o := range opts {
		set.Set(o.t)
	}
	return set
}

// dropClaim drops a claim that cannot launch and fails its pods with code
// and message.
func (s *solver) dropClaim(cl *claim, code ReasonCode, message string) {
	if !cl.dropped {
		cl.dropped = true
		cl.pool.giveNode()
	}
	for _, pp := range cl.pods {
		pp.failure = &failure{code: code, causes: []Cause{{Code: code, NodePool: cl.pool.tmpl.Name, Message: message}}}
	}
}

// claimRequirements returns a NodeClaim's requirements: its claim's, with
// the instance types of its options, and the zones and capacity types they
// can launch in (on a reservation: its zone, reserved, and the
// reservation).
func (s *solver) claimRequirements(info *reqInfo, l *launch) requirements.Requirements {
	names := make([]string, 0, len(l.opts))
	for _, o := range l.opts {
		names = append(names, s.idx.Type(o.t).Name)
	}
	zoneOK := make([]bool, len(s.idx.Zones()))
	ctOK := make([]bool, len(s.idx.CapacityTypes()))
	switch {
	case len(l.resIDs) > 0:
		copy(zoneOK, l.resZones)
		ctOK[s.idx.CapacityTypeIndex(requirements.CapacityTypeReserved)] = true
	case l.resID != "":
		zoneOK[s.idx.ZoneIndex(l.zone)] = true
		ctOK[s.idx.CapacityTypeIndex(requirements.CapacityTypeReserved)] = true
	case s.hasReservations:
		// Only offerings still free count: reservations other NodeClaims
		// hold are not this NodeClaim's to launch into.
		for _, o := range l.opts {
			s.idx.MarkOfferedLeft(o.t, info.offer, l.left, zoneOK, ctOK)
		}
	default:
		s.idx.MarkOfferedSet(l.set, info.offer, zoneOK, ctOK)
	}
	reqs := info.reqs.Add(requirements.In(requirements.LabelInstanceType, names...),
		requirements.In(requirements.LabelTopologyZone, pick(s.idx.Zones(), zoneOK)...),
		requirements.In(requirements.LabelCapacityType, pick(s.idx.CapacityTypes(), ctOK)...))
	if l.resID != "" {
		ids := l.resIDs
		if len(ids) == 0 {
			ids = []string{l.resID}
		}
		reqs = reqs.Add(requirements.In(instancetypes.LabelReservationID, ids...),
			requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeReserved))
	}
	return reqs
}

// claimLabels returns the labels of a NodeClaim, and its requirements with
// a value chosen for each custom label they leave open (Exists, NotIn,
// bounds, or In several values), as Karpenter labels its nodes: the
// NodePool's labels, the requirements' single values, then the labels of
// the offering it launches.
func (s *solver) claimLabels(cl *claim, reqs requirements.Requirements, l *launch) (requirements.Requirements, map[string]string) {
	labels := map[string]string{}
	for k, v := range cl.pool.tmpl.Labels {
		labels[k] = v
	}
	for r := range reqs.All() {
		k := r.Key()
		if s.schema.IsWellKnown(k) || s.idx.IsLabelKey(k) || (r.IsFinite() && len(r.Values()) <= 1) {
			continue
		}
		if loose, ok := s.absentServes(cl, r); ok {
			reqs = reqs.Without(k)
			if !loose.IsAny() {
				reqs = reqs.Add(loose)
			}
			continue
		}
		if v, ok := s.openValue(cl, r); ok {
			reqs = reqs.Add(requirements.In(k, v).WithMinValues(r.MinValues()))
		}
	}
	for k, v := range reqs.Labels() {
		labels[k] = v
	}
	s.offeringLabels(labels, l.best.t, l.zone, l.ct, l.resID)
	return reqs, labels
}

// offeringLabels adds the labels of the offering a NodeClaim launches: its
// instance type's labels, the instance type, zone, zone ID, capacity type
// and capacity reservation, as the node will carry them (where the
// requirements allow several values, the launched offering decides).
func (s *solver) offeringLabels(labels map[string]string, t int, zone, ct, resID string) {
	it := s.idx.Type(t)
	for k, v := range it.Labels {
		if v != "" { // an empty catalog value reads as no label (DoesNotExist matches it)
			labels[k] = v
		}
	}
	labels[requirements.LabelInstanceType] = it.Name
	labels[requirements.LabelTopologyZone] = zone
	labels[requirements.LabelCapacityType] = ct
	if id := s.idx.ZoneID(zone); id != "" {
		labels[instancetypes.LabelZoneID] = id
	}
	if resID != "" {
		labels[instancetypes.LabelReservationID] = resID
	}
}

// pick returns the values whose flag is set (values are sorted, so is the result).
func pick(values []string, ok []bool) []string {
	var out []string
	for i, v := range values {
		if ok[i] {
			out = append(out, v)
		}
	}
	return out
}

// openValue picks the value of a custom label a claim's requirements leave
// open. On a key topology counts on, when a node without the label meets
// the requirement (NotIn), no label: topology planned the claim outside
// every domain of the key, and a value would count its pods in a domain
// (or make a new, empty one that lowers the global minimum of every spread
// on the key, and kube-scheduler would then refuse the pods that carry
// it). When the label must exist, a domain that already exists, when the
// requirement allows one (the claim's pods do not care, else topology
// would have pinned the key). Otherwise a value drawn from the solve's
// seed, as Karpenter labels its nodes.
func (s *solver) openValue(cl *claim, r requirements.Requirement) (string, bool) {
	counted := s.topo.CountsOn(r.Key())
	if counted && r.AllowsAbsent() {
		return "", false
	}
	if counted {
		for _, v := range s.topo.Values(r.Key()) {
			if r.Has(v) {
				return v, true
			}
		}
	}
	return r.Pick(s.labelSeed(cl, r.Key()))
}

// absentServes returns, for a custom label that a claim's requirement r
// needs present on a key topology counts on, where no domain the key
// already has is allowed, the requirement the claim's NodePool and its
// pods' required terms alone make, when a node without the label meets it.
// The presence then comes from a pod's preference (a preferred `Exists`),
// and a value would be a new domain: empty, it lowers the minimum of every
// spread on the key whose pods may land on the node, and kube-scheduler
// refuses those pods elsewhere. The claim goes without the label, and the
// preference is reported as not honoured (relaxations are judged on the
// final plan).
func (s *solver) absentServes(cl *claim, r requirements.Requirement) (requirements.Requirement, bool) {
	if r.AllowsAbsent() || !s.topo.CountsOn(r.Key()) {
		return requirements.Requirement{}, false
	}
	for _, v := range s.topo.Values(r.Key()) {
		if r.Has(v) {
			return requirements.Requirement{}, false
		}
	}
	loose := cl.pool.tmpl.Requirements.Get(r.Key())
	for _, pp := range cl.pods {
		if t := pp.cls.topo; t != nil && slices.ContainsFunc(t.Terms, func(tm topology.Term) bool { return tm.Key == r.Key() }) {
			return requirements.Requirement{}, false // its own terms need a domain
		}
		alts := pp.cls.alts
		if pp.att.alt < 0 || pp.att.alt >= len(alts) {
			return requirements.Requirement{}, false
		}
		loose = loose.Intersect(alts[pp.att.alt].Get(r.Key()))
	}
	return loose, loose.AllowsAbsent()
}

// labelSeed derives the seed of a generated label value from the solve's
// seed, the claim and the key.
func (s *solver) labelSeed(cl *claim, key string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d/%s", s.seed, cl.pool.tmpl.Name, cl.id, key)
	return h.Sum64()
}
