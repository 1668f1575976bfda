package disruption

import (
	"fmt"
	"maps"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// Before a consolidation of Karpenter's (at most one replacement, cheaper
// than the candidates) is simulated, a necessary condition is checked that
// needs no Solve; when it fails, so would the simulation, and the
// candidates stay without one:
//
//   - a node admits a pod when it is not cordoned, every NoSchedule and
//     NoExecute taint it has is tolerated (startup taints of a node still
//     initializing aside, as Solve reads them), and an alternative of the
//     pod's required node affinity and node selector matches its labels.
//     Pods alike in these (a class) are admitted by the same nodes. The
//     room of a node is its allocatable minus the requests of its active
//     pods and of the DaemonSets Solve counts there (as the view gives it);
//     a moved pod counts its requests as Solve counts a pod to place
//     (podrequests.Of of its spec);
//   - with every moved pod on a remaining node, each class's moved pods
//     fit within the summed room of the nodes that admit the class, and
//     each pod within the room of one node. What exceeds that, per class
//     and resource (and every homeless pod: one no remaining node has
//     room for), must go to a new NodeClaim; classes share no pod, so the
//     NodeClaim needs at least the sum over classes. Topology, volumes,
//     host ports and the pending pods are ignored: each only takes room
//     away;
//   - a command may have at most one NodeClaim, and the replacement rules
//     keep only its instance types whose worst launch price is below the
//     candidates' price: such a type has an available offering cheaper
//     than the candidates and allocatable for what the NodeClaim needs; of
//     a capacity type other than spot when every candidate is spot and
//     spot-to-spot consolidation is off (a replacement that may be spot is
//     refused then, and one that may not is priced by its reserved or
//     on-demand offerings). With no such type in the catalog, the command
//     cannot be found.
//
// The reason given is the one the replacement rules would give: spot-to-spot
// being off (when the candidates' pools allow spot), else no cheaper
// replacement; Details.Pod names a homeless pod when there is one. Tests
// check that the checks change no command (WithoutPrefilter).

// resources is the fixed order of the resource names the checks count (every
// name the catalog, the nodes and the pods use, sorted); vec values are
// milli-units in that order.
type vec []int64

// roomState is the room of the model's nodes at one version, and per
// class of pods the nodes that admit it.
type roomState struct {
	version int
	nodes   []*node
	rooms   []vec
	classes map[string]*classRoom
}

// index is n's index in rs.nodes (false: n is not one of them).
func (rs *roomState) index(n *node) (int, bool) {
	if n.roomVersion != rs.version+1 {
		return 0, false
	}
	return n.roomAt, true
}

// classRoom lists the nodes that admit a class of pods (indexes into
// roomState.nodes) and sums their room (what is positive of it).
type classRoom struct {
	admitted []int
	total    vec
	// admits says, per index into roomState.nodes, whether it is admitted.
	admits []bool
	// firstFit is, per pod of the class asked about, the position in
	// admitted of the first node with room for it (len(admitted): none).
	firstFit map[*pod]int
	// byRoom is admitted in mostRoom's order and zones the number of zones
	// of its nodes, once asked (view.go: byRoom, firstPerZone).
	byRoom []int
	zones  int
	// packStart is roomStart's answer by key.
	packStart map[string]int
}

// typeFit is an instance type's allocatable and its cheapest available
// offerings a NodePool allows, all and not spot.
type typeFit struct {
	alloc          vec
	cheapest       float64
	cheapestNoSpot float64
}

// resourceNames fixes the resources the checks count (once per plan).
func (m *model) resourceNames() []corev1.ResourceName {
	if m.resNames != nil {
		return m.resNames
	}
	set := map[corev1.ResourceName]bool{}
	add := func(l corev1.ResourceList) {
		for n := range l {
			set[n] = true
		}
	}
	for _, it := range m.catalog.Types() {
		add(it.Allocatable())
	}
	for _, n := range m.nodes {
		add(n.obj.Status.Allocatable)
		add(n.obj.Status.Capacity)
	}
	for i := range m.daemonSets {
		add(m.daemonSets[i].Requests())
	}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if m.resIndex == nil {
			m.resIndex = map[corev1.ResourceName]int{}
		}
		m.resNames = append(m.resNames, name)
		m.resIndex[name] = len(m.resNames) - 1
	}
	return m.resNames
}

// toVec converts a resource list; ok is false when it names a resource the
// checks do not count.
func (m *model) toVec(l corev1.ResourceList) (vec, bool) {
	names := m.resourceNames()
	v := make(vec, len(names))
	for n, q := range l {
		i, ok := m.resIndex[n]
		if !ok {
			if q.IsZero() {
				continue
			}
			return nil, false
		}
		v[i] = q.MilliValue()
	}
	return v, true
}

func (v vec) within(room vec) bool {
	for i, x := range v {
		if x > room[i] {
			return false
		}
	}
	return true
}

// rooms returns the room of every node not being deleted (m.mu held).
func (m *model) rooms() *roomState {
	if m.room != nil && m.room.version == m.version {
		return m.room
	}
	rs := &roomState{version: m.version, nodes: make([]*node, 0, len(m.nodes)), rooms: make([]vec, 0, len(m.nodes))}
	for _, n := range m.nodes {
		if n.deleting {
			continue
		}
		vn := m.viewNode(n)
		if vn.roomVec == nil {
			if vn.roomVec, _ = m.toVec(vn.room); vn.roomVec == nil {
				continue // never happens: every node's resources are counted
			}
		}
		v := vn.roomVec
		n.roomAt, n.roomVersion = len(rs.nodes), rs.version+1
		rs.nodes = append(rs.nodes, n)
		rs.rooms = append(rs.rooms, v)
	}
	m.room = rs
	return rs
}

// placeRequests are a pod's requests as Solve counts a pod it places (its
// spec; a running pod may count more on its node, see requests).
func (p *pod) placeRequests() corev1.ResourceList {
	if p.placeReq == nil {
		p.placeReq = podrequests.Of(&p.obj.Spec)
	}
	return p.placeReq
}

// placeVec is toVec of the pod's placeRequests, made once per pod (shared:
// callers read it; m.mu held).
func (m *model) placeVec(p *pod) (vec, bool) {
	if !p.placeKnown {
		p.placeV, p.placeOK = m.toVec(p.placeRequests())
		p.placeKnown = true
	}
	return p.placeV, p.placeOK
}

// cannotReplace is the check above for a consolidation of the candidates
// under Karpenter's rules (nil: simulate). Safe to call from simulations
// running in parallel.
func (m *model) cannotReplace(cands []*candidate) *why {
	if m.cfg.noPrefilter {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := m.cacheKey("replace", cands)
	if w, ok := m.preCached(key); ok {
		return w
	}
	need, ok := m.claimNeed(cands, m.movedOnly())
	if !ok {
		return nil
	}
	return m.preRememberAt(key, m.noTypeFor(cands, need), need.zoned)
}

// A check that ruled a command out holds until a node is added: the
// commands in between only take room away (pods bound to nodes, nodes
// removed), which only grows what NodeClaims need, and the candidates' pods
// are the same (the key holds the command that last changed each). The
// global search's check also needs the pending pods unchanged.
type preEntry struct {
	w              *why
	added, pending int
	// zoned are the zone spreads' counts the ruling read (need.zoned).
	zoned []zoneCheck
}

// preCached returns a ruling of the check still valid (m.mu held).
func (m *model) preCached(key string) (*why, bool) {
	e, ok := m.preCache[key]
	if !ok || e.added != m.added || e.pending != m.cache.pendingVersion {
		return nil, false
	}
	for _, c := range e.zoned {
		if !c.holds(m) {
			return nil, false
		}
	}
	m.stats.Prefiltered++
	return e.w, true
}

// preRemember keeps a ruling (w nil: none) and returns it (m.mu held).
func (m *model) preRemember(key string, w *why) *why {
	return m.preRememberAt(key, w, nil)
}

// preRememberAt is preRemember for a ruling that holds while the zone
// spreads' checks do.
func (m *model) preRememberAt(key string, w *why, zoned []zoneCheck) *why {
	if w == nil {
		return nil
	}
	if m.preCache == nil {
		m.preCache = map[string]preEntry{}
	}
	m.preCache[key] = preEntry{w: w, added: m.added, pending: m.cache.pendingVersion, zoned: zoned}
	return w
}

// need is what the NodeClaims of a command must hold at least: total per
// resource, and each homeless pod's requests (pod names the first); users
// are a pod of each class with a positive need (some pod of the class must
// be on a NodeClaim) and byUser that need, homelessPods the homeless pods.
type need struct {
	total        vec
	homeless     []vec
	pod          string
	users        []*pod
	byUser       []vec
	homelessPods []*pod
	// zone is set when pod fits another node, but only in zones its
	// required zone spread blocks: zone is the one it is kept in (a pod
	// that fits no other node at all is named first).
	zone string
	// zoneOnly says, per homeless pod, that it is homeless in its zone only.
	zoneOnly []bool
	// zoned are what zone spreads that kept pods out of some nodes read
	// (a ruling holds while they do: commands change the counts).
	zoned []zoneCheck
}

// claimNeed computes the need of a command removing cands (ok false: none
// proven; m.mu held). With zones, a moved pod's required zone spreads keep
// it out of the zones they block (spreadzones.go): only when no pending
// pod and no pod of a node being deleted moves with them.
func (m *model) claimNeed(cands []*candidate, zones bool) (need, bool) {
	rs := m.rooms()
	leaving := map[*node]bool{}
	for _, c := range cands {
		leaving[c.n] = true
	}
	z, stay := "", 0
	if zones {
		z, stay = m.spreadZone(cands, leaving), m.leavingIn(leaving)+1
	}
	var order []string
	byClass := map[string]*movedClass{}
	var out need
	for _, c := range cands {
		for _, p := range c.movable {
			v, ok := m.placeVec(p)
			if !ok {
				return need{}, false
			}
			key, cr := p.classKey(), (*classRoom)(nil)
			if z != "" {
				if blocked := m.blockedZones(p, z, stay, &out.zoned); len(blocked) > 0 {
					cr, key = m.zoneClassRoom(rs, p, blocked)
				}
			}
			mv := byClass[key]
			if mv == nil {
				if cr == nil {
					cr = m.classRoom(rs, p)
				}
				mv = &movedClass{cr: cr, sum: make(vec, len(v)), homeless: make(vec, len(v)), sample: p}
				byClass[key] = mv
				order = append(order, key)
			}
			mv.sum.add(v)
			if !rs.fitsSomewhere(mv.cr, p, v, leaving) {
				// Room elsewhere, only in zones its spread blocks?
				zoneOnly := cr != nil && rs.fitsSomewhere(m.classRoom(rs, p), p, v, leaving)
				mv.homeless.add(v)
				out.homeless = append(out.homeless, v)
				out.homelessPods = append(out.homelessPods, p)
				out.zoneOnly = append(out.zoneOnly, zoneOnly)
				switch {
				case zoneOnly && out.pod == "":
					out.pod, out.zone = p.key, z
				case !zoneOnly && (out.pod == "" || out.zone != ""):
					out.pod, out.zone = p.key, ""
				}
			}
		}
	}
	for _, k := range order {
		out.add(byClass[k], byClass[k].room(rs, leaving))
	}
	return out, slices.ContainsFunc(out.total, func(x int64) bool { return x > 0 })
}

// movedClass is what the candidates' pods of one class ask: their sum,
// the part no remaining node can take, and one of them.
type movedClass struct {
	cr            *classRoom
	sum, homeless vec
	sample        *pod
}

// room is what the nodes that admit the class leave it once the leaving
// nodes are gone.
func (mv *movedClass) room(rs *roomState, leaving map[*node]bool) vec {
	room := slices.Clone(mv.cr.total)
	for n, gone := range leaving { // sums of integers: any order gives the same
		if i, ok := rs.index(n); gone && ok && mv.cr.admits[i] {
			room.subPositive(rs.rooms[i])
		}
	}
	return room
}

// add counts what the class needs beyond room (at least its homeless
// part) in the total, and names the class as a user when it needs any.
func (out *need) add(mv *movedClass, room vec) {
	if out.total == nil {
		out.total = make(vec, len(room))
	}
	positive := false
	mine := make(vec, len(out.total))
	for d := range out.total {
		mine[d] = max(mv.sum[d]-room[d], mv.homeless[d], 0)
		out.total[d] += mine[d]
		positive = positive || mine[d] > 0
	}
	if positive {
		out.users = append(out.users, mv.sample)
		out.byUser = append(out.byUser, mine)
	}
}

func (v vec) add(w vec) {
	for i, x := range w {
		v[i] += x
	}
}

func (v vec) sub(w vec) {
	for i, x := range w {
		v[i] -= x
	}
}

// addPositive adds w's positive values (an overcommitted node's negative
// room counts as 0).
func (v vec) addPositive(w vec) {
	for i, x := range w {
		v[i] += max(x, 0)
	}
}

// subPositive subtracts w's positive values.
func (v vec) subPositive(w vec) {
	for i, x := range w {
		v[i] -= max(x, 0)
	}
}

// fitsSomewhere: some node that admits p's class and is not leaving has
// room for p (v: its placeVec). The nodes before the first with room for
// p are skipped (remembered per pod: the rooms stay while the version
// does).
func (rs *roomState) fitsSomewhere(cr *classRoom, p *pod, v vec, leaving map[*node]bool) bool {
	start, ok := cr.firstFit[p]
	if !ok {
		start = len(cr.admitted)
		for j, i := range cr.admitted {
			if v.within(rs.rooms[i]) {
				start = j
				break
			}
		}
		if cr.firstFit == nil {
			cr.firstFit = map[*pod]int{}
		}
		cr.firstFit[p] = start
	}
	for _, i := range cr.admitted[start:] {
		if v.within(rs.rooms[i]) && !leaving[rs.nodes[i]] {
			return true
		}
	}
	return false
}

// classRoom returns the nodes that admit p's class (once per version and
// class; m.mu held).
func (m *model) classRoom(rs *roomState, p *pod) *classRoom {
	key := p.classKey()
	if cr := rs.classes[key]; cr != nil {
		return cr
	}
	cr := &classRoom{total: make(vec, len(m.resourceNames())), admits: make([]bool, len(rs.nodes))}
	memo := m.admitMemoOf(p)
	for i, n := range rs.nodes {
		if m.admitsWith(memo, p, n) {
			cr.admitted = append(cr.admitted, i)
			cr.admits[i] = true
			cr.total.addPositive(rs.rooms[i])
		}
	}
	if rs.classes == nil {
		rs.classes = map[string]*classRoom{}
	}
	rs.classes[key] = cr
	return cr
}

// admitMemoOf is the memo of p's class for admitsWith: whether a node's
// taints and labels let the pod on, per node (m.mu held).
func (m *model) admitMemoOf(p *pod) map[*node]bool {
	key := p.classKey()
	memo := m.admitMemo[key]
	if memo == nil {
		memo = map[*node]bool{}
		if m.admitMemo == nil {
			m.admitMemo = map[string]map[*node]bool{}
		}
		m.admitMemo[key] = memo
	}
	return memo
}

// admitsWith reports whether a node's taints and labels let the pod on,
// memoised in memo (p's class's, admitMemoOf).
func (m *model) admitsWith(memo map[*node]bool, p *pod, n *node) bool {
	ok, seen := memo[n]
	if !seen {
		ok = m.admitsNow(p, n)
		memo[n] = ok
	}
	return ok
}

func (m *model) admitsNow(p *pod, n *node) bool {
	if n.obj.Spec.Unschedulable {
		return false
	}
	var startup []corev1.Taint
	if n.pool != nil {
		startup = n.pool.tmpl.StartupTaints
	}
	if _, bad := requirements.UntoleratedTaint(nodepool.EffectiveTaints(n.obj, startup), p.obj.Spec.Tolerations); bad {
		return false
	}
	schema := m.catalog.Schema()
	labels := m.labelsOf(n)
	spec := &p.obj.Spec
	var terms []*corev1.NodeSelectorTerm
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			terms = append(terms, &a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[i])
		}
	}
	if len(terms) == 0 {
		terms = []*corev1.NodeSelectorTerm{nil}
	}
	for _, t := range terms {
		reqs, err := schema.ForPod(spec.NodeSelector, t)
		if err != nil || reqs.Matches(labels) {
			return true // an error: Solve reports it; no proof here
		}
	}
	return false
}

// classKey names what admitsWith reads of a pod: its node selector, required
// node affinity and tolerations (fmt prints maps sorted).
func (p *pod) classKey() string {
	if p.admitKey == "" {
		s := &p.obj.Spec
		var na any
		if s.Affinity != nil && s.Affinity.NodeAffinity != nil {
			na = s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		p.admitKey = fmt.Sprintf("%v|%v|%v", s.NodeSelector, na, s.Tolerations)
	}
	return p.admitKey
}

// noTypeFor is the NodeClaim half of the check: nil when one NodeClaim
// could hold the need and pass the price filter. The NodeClaim is of one
// NodePool that every class with a need may use (mayUse), so of one of
// its instance types and offerings (poolFits). When no pool's type holds
// the need whatever the price, the command needs more than one NodeClaim
// (or a homeless pod fits no NodePool it may use at all).
func (m *model) noTypeFor(cands []*candidate, nd need) *why {
	price, noSpot, poolsSpot := m.setPrice(cands)
	holds := false
	for _, p := range m.pools {
		if !m.usableByAll(nd.users, p) {
			continue
		}
		for _, f := range m.poolFits(p) {
			if !nd.total.within(f.alloc) {
				continue
			}
			holds = true
			cheapest := f.cheapest
			if noSpot {
				cheapest = f.cheapestNoSpot
			}
			if cheapest >= 0 && cheapest < price {
				return nil
			}
		}
	}
	m.stats.Prefiltered++
	switch {
	case !holds:
		for i, h := range nd.homelessPods {
			if !nd.zoneOnly[i] && !m.anyPoolHolds(h, nd.homeless[i]) {
				return keep(KeepPodsDoNotFit, Details{Pod: h.key, PodError: "no other node admits it, and no instance type of a NodePool it may use holds it"})
			}
		}
		return keep(KeepTooManyNodes, Details{Pod: nd.pod, Zone: nd.zone})
	case noSpot && poolsSpot:
		return keep(KeepSpotToSpot, Details{Disabled: true, Pod: nd.pod, Zone: nd.zone})
	}
	return keep(KeepNoCheaper, Details{Price: price, Pod: nd.pod, Zone: nd.zone})
}

// usableByAll: every pod may use the pool (memoised per class and pool).
func (m *model) usableByAll(pods []*pod, p *poolState) bool {
	for _, x := range pods {
		key := x.classKey() + "\x00" + p.name
		ok, seen := m.useMemo[key]
		if !seen {
			ok = p.hasTypes && m.mayUse(x.obj, p)
			if m.useMemo == nil {
				m.useMemo = map[string]bool{}
			}
			m.useMemo[key] = ok
		}
		if !ok {
			return false
		}
	}
	return true
}

// anyPoolHolds: some type of a pool the pod may use holds v.
func (m *model) anyPoolHolds(x *pod, v vec) bool {
	for _, p := range m.pools {
		if !m.usableByAll([]*pod{x}, p) {
			continue
		}
		for _, f := range m.poolFits(p) {
			if v.within(f.alloc) {
				return true
			}
		}
	}
	return false
}

// poolFits are the instance types a pool's requirements allow, with the
// cheapest of their available offerings the requirements allow (once per
// pool).
func (m *model) poolFits(p *poolState) []typeFit {
	if f, ok := m.poolFit[p.name]; ok {
		return f
	}
	reqs := p.tmpl.Requirements
	out := []typeFit{}
	for _, it := range m.catalog.Filter(reqs) {
		v, ok := m.toVec(it.Allocatable())
		if !ok {
			continue
		}
		f := typeFit{alloc: v, cheapest: -1, cheapestNoSpot: -1}
		for _, o := range it.Offerings {
			if o.Unavailable || !instancetypes.OfferingMatches(o, reqs) {
				continue
			}
			if f.cheapest < 0 || o.Price < f.cheapest {
				f.cheapest = o.Price
			}
			if o.CapacityType != "spot" && (f.cheapestNoSpot < 0 || o.Price < f.cheapestNoSpot) {
				f.cheapestNoSpot = o.Price
			}
		}
		out = append(out, f)
	}
	if m.poolFit == nil {
		m.poolFit = map[string][]typeFit{}
	}
	m.poolFit[p.name] = out
	return out
}

// cannotPay is the check for a command of the global search removing set
// (candidates of one pool): when the simulation would place no pending pod
// and no pod of a node being deleted, its NodeClaims hold moved pods only
// and cost at least costBound of their need; a command that cannot save
// the least a command must save with them is ruled out. nil: simulate.
func (m *model) cannotPay(pool string, set []*candidate) *why {
	if m.cfg.noPrefilter {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := m.cacheKey("pay", set)
	if w, ok := m.preCached(key); ok {
		return w
	}
	if m.othersMove(pool) {
		return nil
	}
	need, ok := m.claimNeed(set, true)
	if !ok {
		return nil
	}
	price, noSpot, poolsSpot := m.setPrice(set)
	bound := m.costBound(need, noSpot)
	least := max(m.cfg.minSavings, m.cfg.minSavingsRatio*price, 1e-9)
	if price-bound >= least {
		return nil
	}
	m.stats.Prefiltered++
	if noSpot && poolsSpot {
		return m.preRememberAt(key, keep(KeepSpotToSpot, Details{Disabled: true, Pod: need.pod, Zone: need.zone}), need.zoned)
	}
	return m.preRememberAt(key, keep(KeepMinSavings, Details{Savings: ptr(roundPrice(max(price-bound, 0))), SavingsAtMost: true,
		MinSavings: ptr(roundPrice(least)), Pod: need.pod, Zone: need.zone}), need.zoned)
}

// movedOnly: a simulation under Karpenter's rules places the candidates'
// pods only (no pending pod, no pod of a node being deleted).
func (m *model) movedOnly() bool {
	m.zoneCountsAt()
	zc := &m.zoneCount
	if !zc.movedKnown {
		zc.movedKnown, zc.movedOnly = true, len(m.pending) == 0
		for _, n := range m.nodes {
			if zc.movedOnly && n.deleting && len(m.deletingMovable(n)) > 0 {
				zc.movedOnly = false
			}
		}
	}
	return zc.movedOnly
}

// othersMove: a simulation of the pool's candidates would also place
// pending pods (those the pool may take) or pods of nodes being deleted.
func (m *model) othersMove(pool string) bool {
	p := m.poolByName[pool]
	if p == nil || slices.ContainsFunc(m.pending, func(x *pod) bool { return m.takes(p, x) }) {
		return true
	}
	for _, n := range m.nodes {
		if n.deleting && len(m.deletingMovable(n)) > 0 {
			return true
		}
	}
	return false
}

// setPrice is the candidates' price; noSpot: every candidate is spot and
// spot-to-spot consolidation is off (a replacement must not be spot);
// poolsSpot: their pools all allow spot.
func (m *model) setPrice(set []*candidate) (price float64, noSpot, poolsSpot bool) {
	allSpot := true
	poolsSpot = true
	for _, c := range set {
		price += c.n.price
		allSpot = allSpot && c.n.ct == "spot"
		poolsSpot = poolsSpot && c.n.pool != nil && c.n.pool.allowsSpot()
	}
	return price, allSpot && !m.cfg.spotToSpot, poolsSpot
}

// costBound is the least NodeClaims holding a need can cost. A pod of a
// class goes to a NodeClaim of a NodePool the class may use (mayUse), of
// one of the pool's instance types and offerings (poolFits): per resource,
// each class's need costs at least its amount at the lowest price per unit
// such a type offers (the cheapest offering, not spot when noSpot, over
// the type's allocatable), and the classes' needs add up; and each
// homeless pod needs a type that holds it. +Inf when no type can.
func (m *model) costBound(nd need, noSpot bool) float64 {
	offer := func(f typeFit) float64 {
		if noSpot {
			return f.cheapestNoSpot
		}
		return f.cheapest
	}
	bound := 0.0
	for d := range nd.total {
		sum := 0.0
		for u, x := range nd.users {
			if nd.byUser[u][d] <= 0 {
				continue
			}
			sum += float64(nd.byUser[u][d]) * m.unitPrices(x, noSpot, offer)[d]
		}
		bound = max(bound, sum)
	}
	for i, h := range nd.homeless {
		cheapest := math.Inf(1)
		for _, p := range m.pools {
			if !m.usableByAll([]*pod{nd.homelessPods[i]}, p) {
				continue
			}
			for _, f := range m.poolFits(p) {
				if o := offer(f); o >= 0 && h.within(f.alloc) {
					cheapest = min(cheapest, o)
				}
			}
		}
		bound = max(bound, cheapest)
	}
	return bound
}

// unitPrices is, per resource, the lowest price per unit of it an instance
// type of a pool x's class may use offers (the cheapest offering, not spot
// when noSpot, over the type's allocatable; +Inf: none), once per class
// (m.mu held).
func (m *model) unitPrices(x *pod, noSpot bool, offer func(typeFit) float64) []float64 {
	key := x.classKey() + "\x00" + boolKey(noSpot)
	if u, ok := m.units[key]; ok {
		return u
	}
	u := make([]float64, len(m.resourceNames()))
	for d := range u {
		u[d] = math.Inf(1)
	}
	for _, p := range m.pools {
		if !m.usableByAll([]*pod{x}, p) {
			continue
		}
		for _, f := range m.poolFits(p) {
			o := offer(f)
			if o < 0 {
				continue
			}
			for d, a := range f.alloc {
				if a > 0 {
					u[d] = min(u[d], o/float64(a))
				}
			}
		}
	}
	if m.units == nil {
		m.units = map[string][]float64{}
	}
	m.units[key] = u
	return u
}
