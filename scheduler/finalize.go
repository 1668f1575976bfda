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
)

func itoa(i int) string { return strconv.Itoa(i) }

// result assembles the plan.
func (s *solver) result() Result {
	res := Result{NodeClaims: []NodeClaim{}, ExistingNodes: []NodePlacement{}, PodErrors: []PodError{}}
	resUsed := map[string]int{}
	left := func(id string) int { return s.resCap[id] - resUsed[id] }
	// Claims that held a reservation while planned get it first.
	final := make([]*NodeClaim, len(s.claims))
	for _, holders := range []bool{true, false} {
		for i, cl := range s.claims {
			if cl.dropped || len(cl.pods) == 0 || (cl.resID != "") != holders {
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
	perPool := map[string]int{}
	for i, cl := range s.claims {
		nc := final[i]
		if nc == nil {
			continue
		}
		perPool[cl.pool.tmpl.Name]++
		nc.Name = fmt.Sprintf("%s-%d", cl.pool.tmpl.Name, perPool[cl.pool.tmpl.Name])
		res.NodeClaims = append(res.NodeClaims, *nc)
	}
	for _, en := range s.existing {
		if len(en.placed) == 0 {
			continue
		}
		np := NodePlacement{Name: en.name}
		for _, pp := range en.placed {
			np.Pods = append(np.Pods, pp.name)
		}
		slices.Sort(np.Pods)
		res.ExistingNodes = append(res.ExistingNodes, np)
	}
	slices.SortFunc(res.ExistingNodes, func(a, b NodePlacement) int { return cmp.Compare(a.Name, b.Name) })
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
		if len(pp.relaxed) > 0 && (pp.claim != nil || pp.node != nil) {
			res.Relaxations = append(res.Relaxations, Relaxation{Pod: pp.name, Dropped: pp.relaxed})
		}
	}
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

// roundPrice rounds to 1e-9 $/h so sums print stably.
func roundPrice(p float64) float64 { return math.Round(p*1e9) / 1e9 }

// finalizeClaim turns a claim into its NodeClaim: the instance-type options
// that fit its pods (cheapest first), the cheapest available offering, the
// labels the node will carry, and its requirements and requests.
//
// NodePool limits: a claim is charged the capacity of the instance type
// chosen for it, and only types whose capacity on every limited resource is
// at most that are listed as options, so whichever option the cloud launches,
// the pool stays within its limits.
func (s *solver) finalizeClaim(cl *claim, left binpack.ReservationsLeft) (NodeClaim, bool) {
	p := cl.pool
	info := s.reqs.info(cl.reqID)
	info.typeSet(s)
	type option struct {
		t     int
		price float64
		off   int
	}
	opts := make([]option, 0, min(len(info.members), s.cfg.maxOptions+1))
	prices := s.idx.Prices(info.offer)
	for _, t32 := range info.members {
		t := int(t32)
		if !s.optionFits(p, t, cl.used, true, &cl.charged, cl.ports) {
			continue
		}
		var pr float64
		off := -1
		if s.hasReservations {
			var ok bool
			if pr, off, ok = s.idx.Cheapest(t, info.offer, left); !ok {
				continue
			}
		} else if pr = prices[t]; math.IsInf(pr, 1) {
			continue
		}
		opts = append(opts, option{t: t, price: pr, off: off})
		if len(opts) >= s.cfg.maxOptions && !s.hasReservations {
			// The price order already is the order of options; nothing
			// after the cap can come before it.
			break
		}
	}
	slices.SortStableFunc(opts, func(a, b option) int {
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		return cmp.Compare(s.idx.Type(a.t).Name, s.idx.Type(b.t).Name)
	})
	if len(opts) > s.cfg.maxOptions {
		opts = opts[:s.cfg.maxOptions]
	}
	set := binpack.NewTypeSet(s.idx.Len())
	for _, o := range opts {
		set.Set(o.t)
	}
	relaxed := false
	if msg, ok := s.minValuesShort(p, info.reqs, set); !ok {
		if s.cfg.minValues == MinValuesStrict {
			cl.dropped = true
			for _, pp := range cl.pods {
				pp.failure = &failure{code: ReasonMinValues, causes: []Cause{{Code: ReasonMinValues, NodePool: p.tmpl.Name,
					Message: fmt.Sprintf("NodePool %s: %s after capping instance-type options at %d", p.tmpl.Name, msg, s.cfg.maxOptions)}}}
			}
			return NodeClaim{}, false
		}
		relaxed = true
	}
	if len(opts) == 0 {
		// Every offering the claim could use is a capacity reservation that
		// other NodeClaims of the plan already hold.
		cl.dropped = true
		for _, pp := range cl.pods {
			pp.failure = &failure{code: ReasonReservation, causes: []Cause{{Code: ReasonReservation, NodePool: p.tmpl.Name,
				Message: fmt.Sprintf("NodePool %s: every offering the pod can use is a capacity reservation already used up by other NodeClaims of the plan", p.tmpl.Name)}}}
		}
		return NodeClaim{}, false
	}
	best := opts[0]
	if best.off < 0 {
		_, best.off, _ = s.idx.Cheapest(best.t, info.offer, left)
	}
	zone, ct, price, resID := s.idx.Offering(best.t, best.off)
	if resID != "" {
		// A NodeClaim on a reservation lists only the types it has...
		inRes := slices.DeleteFunc(slices.Clone(opts), func(o option) bool { return !s.idx.HasReservation(o.t, resID) })
		resSet := binpack.NewTypeSet(s.idx.Len())
		for _, o := range inRes {
			resSet.Set(o.t)
		}
		if _, ok := s.minValuesShort(p, info.reqs, resSet); ok || relaxed || s.cfg.minValues == MinValuesBestEffort {
			opts, set = inRes, resSet
		} else {
			// ...unless that breaks a minValues: then it launches off the
			// reservation, with every option.
			noRes := func(string) int { return 0 }
			for i := range opts {
				opts[i].price, opts[i].off, _ = s.idx.Cheapest(opts[i].t, info.offer, noRes)
			}
			opts = slices.DeleteFunc(opts, func(o option) bool { return o.off < 0 })
			slices.SortStableFunc(opts, func(a, b option) int {
				if c := cmp.Compare(a.price, b.price); c != 0 {
					return c
				}
				return cmp.Compare(s.idx.Type(a.t).Name, s.idx.Type(b.t).Name)
			})
			set = binpack.NewTypeSet(s.idx.Len())
			for _, o := range opts {
				set.Set(o.t)
			}
			if len(opts) == 0 {
				cl.dropped = true
				for _, pp := range cl.pods {
					pp.failure = &failure{code: ReasonMinValues, causes: []Cause{{Code: ReasonMinValues, NodePool: p.tmpl.Name,
						Message: fmt.Sprintf("NodePool %s: only a capacity reservation fits, and its instance types fall short of minValues", p.tmpl.Name)}}}
				}
				return NodeClaim{}, false
			}
			best = opts[0]
			zone, ct, price, resID = s.idx.Offering(best.t, best.off)
			left = noRes // and its requirements leave reservations out
		}
	}
	reqs := info.reqs
	var names []string
	zoneOK := make([]bool, len(s.idx.Zones()))
	ctOK := make([]bool, len(s.idx.CapacityTypes()))
	for _, o := range opts {
		names = append(names, s.idx.Type(o.t).Name)
	}
	switch {
	case resID != "":
		zoneOK[s.idx.ZoneIndex(zone)] = true
		ctOK[s.idx.CapacityTypeIndex(requirements.CapacityTypeReserved)] = true
	case s.hasReservations:
		// Only offerings still free count: reservations other NodeClaims
		// hold are not this NodeClaim's to launch into.
		for _, o := range opts {
			s.idx.MarkOfferedLeft(o.t, info.offer, left, zoneOK, ctOK)
		}
	default:
		s.idx.MarkOfferedSet(set, info.offer, zoneOK, ctOK)
	}
	reqs = reqs.Add(requirements.In(requirements.LabelInstanceType, names...),
		requirements.In(requirements.LabelTopologyZone, pick(s.idx.Zones(), zoneOK)...),
		requirements.In(requirements.LabelCapacityType, pick(s.idx.CapacityTypes(), ctOK)...))
	if resID != "" {
		reqs = reqs.Add(requirements.In(instancetypes.LabelReservationID, resID),
			requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeReserved))
	}
	labels := map[string]string{}
	for k, v := range p.tmpl.Labels {
		labels[k] = v
	}
	// Custom labels the requirements leave open get a value (Exists, NotIn,
	// bounds, or In several values), as Karpenter labels its nodes.
	for r := range reqs.All() {
		k := r.Key()
		if s.schema.IsWellKnown(k) || s.idx.IsLabelKey(k) || (r.IsFinite() && len(r.Values()) <= 1) {
			continue
		}
		if v, ok := s.openValue(cl, r); ok {
			reqs = reqs.Add(requirements.In(k, v).WithMinValues(r.MinValues()))
		}
	}
	for k, v := range reqs.Labels() {
		labels[k] = v
	}
	s.offeringLabels(labels, best.t, zone, ct, resID)
	requests := cl.used.Add(p.ds[best.t])
	nc := NodeClaim{
		NodePool:            p.tmpl.Name,
		InstanceType:        s.idx.Type(best.t).Name,
		Zone:                zone,
		ZoneID:              s.idx.ZoneID(zone),
		CapacityType:        ct,
		Price:               price,
		InstanceTypeOptions: names,
		Labels:              labels,
		Taints:              p.tmpl.Taints,
		StartupTaints:       p.tmpl.StartupTaints,
		Requirements:        reqs.Expressions(),
		Requests:            s.dims.List(requests),
		ReservationID:       resID,
		MinValuesRelaxed:    relaxed,
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
// open. On a key topology counts on, a domain that already exists, when the
// requirement allows one: the claim's pods do not care (else topology would
// have pinned the key), but a fresh value would be a new, empty domain that
// lowers the global minimum of every spread on the key, and kube-scheduler
// would then refuse the pods that carry it. Otherwise a value drawn from the
// solve's seed, as Karpenter labels its nodes.
func (s *solver) openValue(cl *claim, r requirements.Requirement) (string, bool) {
	for _, v := range s.topo.Values(r.Key()) {
		if r.Has(v) {
			return v, true
		}
	}
	return r.Pick(s.labelSeed(cl, r.Key()))
}

// labelSeed derives the seed of a generated label value from the solve's
// seed, the claim and the key.
func (s *solver) labelSeed(cl *claim, key string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d/%s", s.seed, cl.pool.tmpl.Name, cl.id, key)
	return h.Sum64()
}
