package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// typeCheckSolver builds a solver (nothing placed) on catalog with NodePools
// that exercise every criterion of the instance-type check: one without
// limits, one with a cpu limit and one with a node limit, under DaemonSets
// of which one holds a host port on the small instance types only.
func typeCheckSolver(t *testing.T, catalog instancetypes.Catalog, sizeKey, small string) *solver {
	t.Helper()
	pools := []nodepool.NodePool{
		testutil.NodePool("open").Obj(),
		testutil.NodePool("cpu-limited").Limit(corev1.ResourceCPU, "10").Obj(),
		testutil.NodePool("spot").Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "spot").Limit("nodes", "3").Obj(),
	}
	dss := []*appsv1.DaemonSet{
		testutil.DaemonSet("logs", testutil.Pod("logs").CPU("200m").Memory("128Mi").Obj()),
		testutil.DaemonSet("proxy", testutil.Pod("proxy").CPU("100m").HostPort(8080, corev1.ProtocolTCP).NodeSelector(sizeKey, small).Obj()),
	}
	cfg, err := resolveFor(catalog, []Option{WithDaemonSets(dss)})
	require.NoError(t, err)
	s, err := newSolver(nil, pools, catalog, cfg)
	require.NoError(t, err)
	return s
}

// typeCheckCase is one random load to check: a pool, a requirement set of
// it, the load's requests and host ports, what its claim is charged, and
// which reservations are full.
type typeCheckCase struct {
	p       *pool
	id      int32
	need    binpack.Vec
	ports   []hostPort
	charged binpack.Vec
	full    map[string]bool
	// remaining is what the pool's limits have left.
	remaining binpack.Vec
	reqs      requirements.Requirements // the set's, for messages
}

func (tc typeCheckCase) String() string {
	return fmt.Sprintf("pool %s, reqs %v, need %v, ports %v, charged %v, remaining %v, full reservations %v",
		tc.p.tmpl.Name, tc.reqs, tc.need, tc.ports, tc.charged, tc.remaining, tc.full)
}

// randomCase draws a load for s, whose pools' limits are limits.
func randomCase(rng *rand.Rand, s *solver, limits map[*pool]binpack.Vec) typeCheckCase {
	p := s.pools[rng.IntN(len(s.pools))]
	reqs := p.reqs
	zones, cts := s.idx.Zones(), s.idx.CapacityTypes()
	if rng.IntN(2) == 0 {
		reqs = reqs.Intersect(requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, zones[rng.IntN(len(zones))])))
	}
	if rng.IntN(3) == 0 {
		reqs = reqs.Intersect(requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, cts[rng.IntN(len(cts))])))
	}
	id := p.reqID
	if _, empty := reqs.Empty(); !empty {
		id = s.reqs.intern(reqs, p)
	}
	info := s.reqs.info(id)
	info.typeSet(s)
	tc := typeCheckCase{p: p, id: id, full: map[string]bool{}, reqs: info.reqs, remaining: p.remaining}
	if len(info.members) > 0 {
		// A share of some type's room: from nothing to a little more than
		// it holds, dimension by dimension.
		room := p.usable[info.members[rng.IntN(len(info.members))]]
		for d := range s.dims.Len() {
			if room[d] > 0 {
				tc.need[d] = int64(float64(room[d]) * rng.Float64() * 1.1)
			}
		}
	}
	if p.limited {
		// What the limits have left after other claims: anything up to
		// the whole limit.
		for _, d := range p.limitDims {
			tc.remaining[d] = rng.Int64N(limits[p][d] + 1)
		}
	}
	if rng.IntN(2) == 0 {
		tc.ports = []hostPort{{IP: "0.0.0.0", Port: []int32{8080, 9090}[rng.IntN(2)], Protocol: corev1.ProtocolTCP}}
	}
	if len(info.members) > 0 && rng.IntN(2) == 0 {
		tc.charged = s.idx.Capacity(int(info.members[rng.IntN(len(info.members))]))
	}
	for id := range s.resCap {
		tc.full[id] = rng.IntN(2) == 0
	}
	return tc
}

// TestTypeCheckAgrees holds placement, finalisation and explanation to one
// instance-type check on random loads: cheapestFit (placement's inlined
// fast path) picks the first type in price order that the check passes, at
// the price it says; explanation's closest criterion is "fits" exactly when
// placement finds a type; the options finalisation lists are the types
// that optionFits (the predicate chargeFor shares) passes, with an
// offering; and chargeFor's test of an option is the check's.
func TestTypeCheckAgrees(t *testing.T) {
	t.Parallel()
	k, err := os.ReadFile("../testdata/catalogs/k.json")
	require.NoError(t, err)
	kr, err := os.ReadFile("../testdata/catalogs/k-reserved.json")
	require.NoError(t, err)
	awsCat, err := aws.Catalog(aws.WithZones("us-east-1a", "us-east-1b", "us-east-1c"))
	require.NoError(t, err)
	decode := func(data []byte) instancetypes.Catalog {
		c, err := instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
		require.NoError(t, err)
		return c
	}
	for _, tt := range []struct {
		name         string
		catalog      instancetypes.Catalog
		sizeKey, val string
	}{
		{"k", decode(k), "size", "small"},
		{"k-reserved", decode(kr), "size", "small"},
		{"aws", awsCat, "karpenter.k8s.aws/instance-size", "large"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := typeCheckSolver(t, tt.catalog, tt.sizeKey, tt.val)
			rng := rand.New(rand.NewPCG(12, uint64(len(tt.name))))
			seen := map[typeCriterion]bool{}
			limits := map[*pool]binpack.Vec{}
			for _, p := range s.pools {
				limits[p] = p.remaining
			}
			for i := range 300 {
				tc := randomCase(rng, s, limits)
				tc.p.remaining = tc.remaining
				s.resHeld = map[string]int{}
				for id, full := range tc.full {
					if full {
						s.resHeld[id] = s.resCap[id]
					}
				}
				checkPlacement(t, s, tc, i, seen)
				checkFinalisation(t, s, tc, i)
				checkCharge(t, s, tc, i)
			}
			// The cases reach every criterion (reservations only where
			// there are some).
			want := map[typeCriterion]bool{typeResources: true, typeLimits: true, typeHostPort: true, typeFits: true, typeOffering: s.hasReservations}
			for c, w := range want {
				if w && !seen[c] {
					t.Errorf("no case reached criterion %d", c)
				}
			}
		})
	}
}

// checkPlacement compares cheapestFit and explanation with the check.
// seen records the criteria the types reached.
func checkPlacement(t *testing.T, s *solver, tc typeCheckCase, i int, seen map[typeCriterion]bool) {
	t.Helper()
	var left binpack.ReservationsLeft
	if s.hasReservations {
		left = s.leftFor(nil)
	}
	load := s.newTypeLoad(tc.p, tc.id, tc.need, tc.ports, left)
	load.charged = tc.charged
	type pick struct {
		OK        bool
		Type, Pos int
		Price     float64
	}
	var want pick
	for pos, t32 := range load.info.members {
		c, price, _ := s.checkType(load, int(t32))
		seen[c] = true
		if c == typeFits && !want.OK {
			want = pick{OK: true, Type: int(t32), Pos: pos, Price: price}
		}
	}
	charged := tc.charged
	typ, pos, price, ok := s.cheapestFit(tc.ports, tc.p, tc.id, tc.need, &charged, 0, math.Inf(1), nil)
	got := pick{OK: ok}
	if ok {
		got = pick{OK: true, Type: typ, Pos: pos, Price: price}
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("case %d (%v): cheapestFit disagrees with the check (-check +cheapestFit):\n%s", i, tc, diff)
	}
	if fits := s.closestType(load) == typeFits; fits != ok {
		t.Errorf("case %d (%v): explanation's closest type fits = %v, placement found a type = %v", i, tc, fits, ok)
	}
}

// checkFinalisation compares a NodeClaim's options with optionFits.
func checkFinalisation(t *testing.T, s *solver, tc typeCheckCase, i int) {
	t.Helper()
	info := s.reqs.info(tc.id)
	left := func(id string) int {
		if tc.full[id] {
			return 0
		}
		return 1
	}
	var want []int
	prices := s.idx.Prices(info.offer)
	for _, t32 := range info.members {
		typ := int(t32)
		if !s.optionFits(tc.p, typ, tc.need, true, &tc.charged, tc.ports) {
			continue
		}
		if s.hasReservations {
			if _, _, ok := s.idx.Cheapest(typ, info.offer, left); !ok {
				continue
			}
		} else if math.IsInf(prices[typ], 1) {
			continue
		}
		want = append(want, typ)
	}
	cl := &claim{pool: tc.p, reqID: tc.id, used: tc.need, ports: tc.ports, charged: tc.charged}
	got := map[int]bool{}
	for _, o := range s.claimOptions(cl, info, left) {
		got[o.t] = true
	}
	wantSet := map[int]bool{}
	for _, typ := range want {
		wantSet[typ] = true
	}
	if len(want) <= s.cfg.maxOptions {
		if diff := gocmp.Diff(wantSet, got); diff != "" {
			t.Errorf("case %d (%v): options disagree with optionFits (-optionFits +options):\n%s", i, tc, diff)
		}
		return
	}
	for typ := range got { // capped: every option is one optionFits passes
		if !wantSet[typ] {
			t.Errorf("case %d (%v): option %s fails optionFits", i, tc, s.idx.Type(typ).Name)
		}
	}
}

// checkCharge compares chargeFor's test of an option (a price, optionFits,
// within limits) with the check, reservations aside.
func checkCharge(t *testing.T, s *solver, tc typeCheckCase, i int) {
	t.Helper()
	load := s.newTypeLoad(tc.p, tc.id, tc.need, tc.ports, nil)
	load.charged = tc.charged
	for _, t32 := range load.info.members {
		typ := int(t32)
		capT := s.idx.Capacity(typ)
		want := !math.IsInf(load.prices[typ], 1) && s.optionFits(tc.p, typ, tc.need, false, nil, tc.ports) && tc.p.withinLimits(&capT, &tc.charged)
		if c, _, _ := s.checkType(load, typ); (c == typeFits) != want {
			t.Errorf("case %d (%v): %s: check says %d, chargeFor's test says %v", i, tc, s.idx.Type(typ).Name, c, want)
		}
	}
}
