package disruption

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// A consolidation replaces nodes only with cheaper ones, so a simulation of
// candidates that cost P needs no instance type whose every offering costs
// P or more: any NodeClaim of such a type fails the price filter, whatever
// Solve packs on it. Solve's cost grows with the catalog, so such a
// simulation gets a catalog of the cheapest types only: the shortest prefix
// of the types in price order (of a ladder of sizes, so that few catalogs
// are built and each is indexed once) holding every type cheaper than P.
// The label vocabulary stays the full catalog's.
//
// It is used only when the answer cannot change: no pending pod and no pod
// of a deleting node is in the simulation (their NodeClaims need not be
// cheaper: a type left out could turn a failure into a success), and, when
// a pod has a topology term, its keys are hostname, zone or capacity type
// and the smaller catalog offers every pool the same zones and capacity
// types (domainSafe), to the pools Solve gets: then the domains do not
// change.

// priceLadder holds the catalog's types by their cheapest offering, and
// the catalogs of its prefixes built so far.
type priceLadder struct {
	types    []instancetypes.InstanceType // by cheapest offering, then name
	cheapest []float64
	byCount  map[int]instancetypes.Catalog
	prepared map[int]*scheduler.PreparedCatalog
	safe     map[string]bool // see domainSafe
}

func newPriceLadder(c instancetypes.Catalog) *priceLadder {
	l := &priceLadder{byCount: map[int]instancetypes.Catalog{}, prepared: map[int]*scheduler.PreparedCatalog{}, safe: map[string]bool{}}
	its := slices.Clone(c.Types())
	price := func(it *instancetypes.InstanceType) float64 {
		best := math.Inf(1)
		for _, o := range it.Offerings {
			best = min(best, o.Price)
		}
		return best
	}
	slices.SortStableFunc(its, func(a, b *instancetypes.InstanceType) int {
		return cmp.Or(cmp.Compare(price(a), price(b)), strings.Compare(a.Name, b.Name))
	})
	for _, it := range its {
		l.types = append(l.types, *it)
		l.cheapest = append(l.cheapest, price(it))
	}
	return l
}

// cheaperThan returns a catalog holding every type with an offering below
// price (and a few more), or ok false when it would be most of the
// catalog anyway.
func (m *model) cheaperThan(price float64, needSafe bool, pools []nodepool.NodePool) (instancetypes.Catalog, bool) {
	if m.ladder == nil {
		m.ladder = newPriceLadder(m.catalog)
	}
	l := m.ladder
	n := sort.SearchFloat64s(l.cheapest, price) // types strictly cheaper
	size := 8
	for size < n {
		size = size * 5 / 4
	}
	if size*10 >= len(l.types)*8 {
		return instancetypes.Catalog{}, false
	}
	c, ok := l.byCount[size]
	if !ok {
		var err error
		c, err = instancetypes.NewCatalog(l.types[:size], instancetypes.WithRegion(m.catalog.Region()),
			instancetypes.WithBaseSchema(m.catalog.Schema()))
		if err != nil {
			return instancetypes.Catalog{}, false // a prefix of a valid catalog is valid
		}
		l.byCount[size] = c
	}
	if needSafe && !m.domainSafe(size, c, pools) {
		return instancetypes.Catalog{}, false
	}
	return c, true
}

// preparedFor returns the catalog prepared for Solve (scheduler.Prepare)
// when it is the model's catalog or one of the ladder's, prepared once per
// plan: every simulation reads the same index instead of building its own.
// nil leaves the preparing to Solve (a catalog Prepare refuses: Solve
// reports the error).
func (m *model) preparedFor(c instancetypes.Catalog) *scheduler.PreparedCatalog {
	size := len(c.Types())
	if size == len(m.catalog.Types()) {
		if m.prepared == nil && !m.prepareFailed {
			p, err := scheduler.Prepare(m.catalog)
			m.prepared, m.prepareFailed = p, err != nil
		}
		return m.prepared
	}
	if m.ladder == nil {
		return nil
	}
	if p, ok := m.ladder.prepared[size]; ok {
		return p
	}
	p, err := scheduler.Prepare(c)
	if err != nil {
		p = nil
	}
	m.ladder.prepared[size] = p
	return p
}
