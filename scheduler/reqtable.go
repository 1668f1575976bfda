package scheduler

import (
	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// reqTable interns requirement sets, so that identical sets (most NodeClaims
// of a pool, most replicas of a workload) share one id, one compatibility
// answer and one instance-type set.
type reqTable struct {
	s       *solver
	byFP    map[string]int32
	infos   []*reqInfo
	compats map[[2]int32]int32
	inter   map[[2]int32]int32
}

// reqInfo is what the solver derives from one requirement set.
type reqInfo struct {
	table *reqTable
	id    int32
	reqs  requirements.Requirements
	pool  *pool // the NodePool the set belongs to (claim-level sets), else nil
	// derived lazily (claim-level sets only)
	typesDone bool
	types     binpack.TypeSet
	offer     binpack.OfferFilter
	// members are the set's types in price order (cheapest offering under
	// the set's requirements first).
	members   []int32
	maxUsable binpack.Vec
	// scan is members with their prices and the usable cpu and memory of
	// scanPool's nodes of each, side by side for cheapestFit (built on
	// first use).
	scan     []typeScan
	blocks   []scanBlockMax // scan's blocks (scanblocks.go)
	scanPool *pool
	bucket   *bucket
	// memos for topology: domain values per key and domain prices per
	// key+value, valid while the reservations held are unchanged (version).
	domains    map[string][]string
	ranks      map[rankKey]float64
	domVersion int
	// decided keeps the domains the set decides, for topology (Host.Decided).
	decided topology.DecidedDomains
}

// rankKey is a domain (a key and one of its values) priced for a pod of
// some size.
type rankKey struct {
	key, value string
	need       binpack.Vec
	pins       string // the other keys' domains chosen with it (pinsKey)
	pods       int    // densePins: the class's pods left to place
	minValues  bool   // ranked by domainKeepsMinValues too
	// held are the reservations counted free (heldres.go).
	held heldRes
}

// topoMemos returns the info's topology memos, emptied when reservations
// have changed since they were filled.
func (ri *reqInfo) topoMemos() (map[string][]string, map[rankKey]float64) {
	if v := ri.table.s.resVersion; ri.domains == nil || ri.domVersion != v {
		ri.domains, ri.ranks, ri.domVersion = map[string][]string{}, map[rankKey]float64{}, v
	}
	return ri.domains, ri.ranks
}

func newReqTable(s *solver) *reqTable {
	return &reqTable{s: s, byFP: map[string]int32{}, compats: map[[2]int32]int32{}, inter: map[[2]int32]int32{}}
}

// intern returns the id of reqs; p names the pool for claim-level sets.
func (t *reqTable) intern(reqs requirements.Requirements, p *pool) int32 {
	fp := reqs.Fingerprint()
	if id, ok := t.byFP[fp]; ok {
		if p != nil && t.infos[id].pool == nil {
			t.infos[id].pool = p
		}
		return id
	}
	id := int32(len(t.infos))
	t.byFP[fp] = id
	t.infos = append(t.infos, &reqInfo{table: t, id: id, reqs: reqs, pool: p})
	return id
}

func (t *reqTable) info(id int32) *reqInfo { return t.infos[id] }

// compat returns the id of target ∩ incoming when incoming is compatible
// with target (well-known keys may be undefined on target), else -1. The
// result keeps target's pool.
func (t *reqTable) compat(target, incoming int32) int32 {
	k := [2]int32{target, incoming}
	if id, ok := t.compats[k]; ok {
		return id
	}
	ti, ii := t.infos[target], t.infos[incoming]
	id := int32(-1)
	if ti.reqs.Compatible(ii.reqs, t.s.schema) == nil {
		r := ti.reqs.Intersect(ii.reqs)
		if _, empty := r.Empty(); !empty {
			id = t.intern(r, ti.pool)
		}
	}
	t.compats[k] = id
	return id
}

// and returns the id of a ∩ b (no compatibility rule: both sides are
// already the node's), or -1 when empty.
func (t *reqTable) and(a, b int32) int32 {
	k := [2]int32{a, b}
	if id, ok := t.inter[k]; ok {
		return id
	}
	r := t.infos[a].reqs.Intersect(t.infos[b].reqs)
	id := int32(-1)
	if _, empty := r.Empty(); !empty {
		id = t.intern(r, t.infos[a].pool)
	}
	t.inter[k] = id
	return id
}

// typeSet returns the instance types of the set's pool compatible with it.
// typeScan is a member type as cheapestFit scans it.
type typeScan struct {
	t        int32
	price    float64
	cpu, mem int64
}

// scanFor returns the set's members as cheapestFit scans them for a node
// of pool p (the set's types built).
func (ri *reqInfo) scanFor(s *solver, p *pool) []typeScan {
	if ri.scan != nil && ri.scanPool == p {
		return ri.scan
	}
	prices := s.idx.Prices(ri.offer)
	scan := make([]typeScan, len(ri.members))
	for i, t := range ri.members {
		u := &p.usable[t]
		scan[i] = typeScan{t: t, price: prices[t], cpu: u[0], mem: u[1]}
	}
	ri.scan, ri.blocks, ri.scanPool = scan, scanBlocks(scan), p
	return scan
}

func (ri *reqInfo) typeSet(s *solver) binpack.TypeSet {
	if ri.typesDone {
		return ri.types
	}
	ri.typesDone = true
	p := ri.pool
	if p == nil {
		ri.types = s.idx.Filter(ri.reqs)
		return ri.types
	}
	ri.types = s.idx.Filter(ri.reqs)
	ri.types.AndInto(p.types)
	ri.offer = binpack.NewOfferFilter(s.idx, ri.reqs)
	for _, t := range s.idx.PriceOrder(ri.offer) {
		if ri.types.Has(int(t)) {
			ri.members = append(ri.members, t)
			ri.maxUsable = ri.maxUsable.Max(p.usable[t])
		}
	}
	return ri.types
}
