package binpack_test

import (
	"math"
	"slices"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

const (
	arch     = requirements.LabelArch
	zone     = requirements.LabelTopologyZone
	capType  = requirements.LabelCapacityType
	zoneID   = instancetypes.LabelZoneID
	resID    = instancetypes.LabelReservationID
	family   = "example.com/family"
	cpuLabel = "example.com/cpu"
	onDemand = requirements.CapacityTypeOnDemand
	spot     = requirements.CapacityTypeSpot
	reserved = requirements.CapacityTypeReserved
)

var inf = math.Inf(1)

// indexTypes is the catalog of the Index tests, in catalog order (which is
// not name order, so ties by catalog order are visible):
//
//	0 t.large  amd64 family=t cpu=2   z1 od 0.10, z2 spot 0.04, z3 spot 0.03 (unavailable)
//	1 m.large  arm64 family=m cpu=4   z1 spot 0.05, z2 od 0.10
//	2 r.large  amd64 (no family) cpu=8  z1 reserved 0.01 (cr-1, 2 left), z2 od 0.20; 1 GPU
//	3 c.large  arm64 family=c cpu=16  z1 od 0.10, z3 od 0.04
//	4 x.large  amd64 family=x cpu=2   z1 spot 0.01 (unavailable): never offered
//
// Zone IDs: z1 az1, z2 az2, z3 az3.
func indexTypes() []instancetypes.InstanceType {
	off := func(z, ct string, price float64, available bool) instancetypes.Offering {
		return instancetypes.Offering{Zone: z, ZoneID: "a" + z, CapacityType: ct, Price: price, Unavailable: !available}
	}
	return []instancetypes.InstanceType{
		testutil.InstanceType("t.large").Label(arch, "amd64").Label(family, "t").Label(cpuLabel, "2").
			CPU("2").Memory("8Gi").Pods("20").KubeReserved(corev1.ResourceCPU, "100m").
			OfferingOf(off("z3", spot, 0.03, false)).OfferingOf(off("z2", spot, 0.04, true)).OfferingOf(off("z1", onDemand, 0.10, true)).Obj(),
		testutil.InstanceType("m.large").Label(arch, "arm64").Label(family, "m").Label(cpuLabel, "4").
			CPU("4").Memory("16Gi").Pods("30").
			OfferingOf(off("z2", onDemand, 0.10, true)).OfferingOf(off("z1", spot, 0.05, true)).Obj(),
		testutil.InstanceType("r.large").Label(arch, "amd64").Label(cpuLabel, "8").
			CPU("8").Memory("32Gi").Pods("50").Capacity(gpu, "1").
			OfferingOf(instancetypes.Offering{Zone: "z1", ZoneID: "az1", CapacityType: reserved, Price: 0.01,
				ReservationID: "cr-1", ReservationCapacity: 2}).
			OfferingOf(off("z2", onDemand, 0.20, true)).Obj(),
		testutil.InstanceType("c.large").Label(arch, "arm64").Label(family, "c").Label(cpuLabel, "16").
			CPU("16").Memory("32Gi").Pods("50").
			OfferingOf(off("z1", onDemand, 0.10, true)).OfferingOf(off("z3", onDemand, 0.04, true)).Obj(),
		testutil.InstanceType("x.large").Label(arch, "amd64").Label(family, "x").Label(cpuLabel, "2").
			CPU("2").Memory("4Gi").Pods("10").
			OfferingOf(off("z1", spot, 0.01, false)).Obj(),
	}
}

const (
	tLarge = iota
	mLarge
	rLarge
	cLarge
	xLarge
)

// indexCatalog builds a fresh catalog of indexTypes.
func indexCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	cat, err := instancetypes.NewCatalog(indexTypes())
	require.NoError(t, err)
	return cat
}

func baseDims(t *testing.T) binpack.Dims {
	t.Helper()
	d, err := binpack.NewDims()
	require.NoError(t, err)
	return d
}

// newIndex builds an Index of a fresh catalog of indexTypes.
func newIndex(t *testing.T) *binpack.Index {
	t.Helper()
	return binpack.NewIndex(binpack.NewTables(indexCatalog(t), baseDims(t)))
}

// names lists the names of the types of s in ascending index order.
func names(x *binpack.Index, s binpack.TypeSet) []string {
	out := []string{}
	s.Each(func(i int) bool {
		out = append(out, x.Type(i).Name)
		return true
	})
	return out
}

// orderNames lists the names of types in order.
func orderNames(x *binpack.Index, order []int32) []string {
	out := make([]string, len(order))
	for i, t := range order {
		out[i] = x.Type(int(t)).Name
	}
	return out
}

func mustNew(t *testing.T, key string, op requirements.Operator, values ...string) requirements.Requirement {
	t.Helper()
	r, err := requirements.New(key, op, values...)
	require.NoError(t, err)
	return r
}

func reqs(rs ...requirements.Requirement) requirements.Requirements {
	return requirements.NewRequirements(rs...)
}

// filterCase is a requirement set with the types Filter and FilterLabels
// must return.
type filterCase struct {
	name       string
	reqs       requirements.Requirements
	want       []string // Filter
	wantLabels []string // FilterLabels
}

func filterCases(t *testing.T) []filterCase {
	all := []string{"t.large", "m.large", "r.large", "c.large", "x.large"}
	offered := []string{"t.large", "m.large", "r.large", "c.large"}
	return []filterCase{
		{name: "no requirements", want: offered, wantLabels: all},
		{name: "arch In amd64", reqs: reqs(requirements.In(arch, "amd64")),
			want: []string{"t.large", "r.large"}, wantLabels: []string{"t.large", "r.large", "x.large"}},
		{name: "arch NotIn amd64", reqs: reqs(requirements.NotIn(arch, "amd64")),
			want: []string{"m.large", "c.large"}, wantLabels: []string{"m.large", "c.large"}},
		{name: "arch In unknown value", reqs: reqs(requirements.In(arch, "s390x")), want: []string{}, wantLabels: []string{}},
		{name: "family Exists", reqs: reqs(requirements.Exists(family)),
			want: []string{"t.large", "m.large", "c.large"}, wantLabels: []string{"t.large", "m.large", "c.large", "x.large"}},
		{name: "family DoesNotExist", reqs: reqs(requirements.DoesNotExist(family)),
			want: []string{"r.large"}, wantLabels: []string{"r.large"}},
		{name: "family NotIn t allows absence", reqs: reqs(requirements.NotIn(family, "t")),
			want: []string{"m.large", "r.large", "c.large"}, wantLabels: []string{"m.large", "r.large", "c.large", "x.large"}},
		{name: "family In t, m", reqs: reqs(requirements.In(family, "t", "m")),
			want: []string{"t.large", "m.large"}, wantLabels: []string{"t.large", "m.large"}},
		{name: "cpu Gt 3", reqs: reqs(mustNew(t, cpuLabel, requirements.OpGt, "3")),
			want: []string{"m.large", "r.large", "c.large"}, wantLabels: []string{"m.large", "r.large", "c.large"}},
		{name: "cpu Lt 5", reqs: reqs(mustNew(t, cpuLabel, requirements.OpLt, "5")),
			want: []string{"t.large", "m.large"}, wantLabels: []string{"t.large", "m.large", "x.large"}},
		{name: "cpu Gt 3 and NotIn 8", reqs: reqs(mustNew(t, cpuLabel, requirements.OpGt, "3"), requirements.NotIn(cpuLabel, "8")),
			want: []string{"m.large", "c.large"}, wantLabels: []string{"m.large", "c.large"}},
		{name: "zone In z3: unavailable offerings do not count", reqs: reqs(requirements.In(zone, "z3")),
			want: []string{"c.large"}, wantLabels: all},
		{name: "zone NotIn z1", reqs: reqs(requirements.NotIn(zone, "z1")),
			want: []string{"t.large", "m.large", "r.large", "c.large"}, wantLabels: all},
		{name: "unknown zone", reqs: reqs(requirements.In(zone, "z9")), want: []string{}, wantLabels: all},
		{name: "capacity type spot", reqs: reqs(requirements.In(capType, spot)),
			want: []string{"t.large", "m.large"}, wantLabels: all},
		{name: "capacity type reserved", reqs: reqs(requirements.In(capType, reserved)),
			want: []string{"r.large"}, wantLabels: all},
		{name: "zone z1 and on-demand", reqs: reqs(requirements.In(zone, "z1"), requirements.In(capType, onDemand)),
			want: []string{"t.large", "c.large"}, wantLabels: all},
		{name: "zone z2 and spot", reqs: reqs(requirements.In(zone, "z2"), requirements.In(capType, spot)),
			want: []string{"t.large"}, wantLabels: all},
		{name: "zone ID az3", reqs: reqs(requirements.In(zoneID, "az3")), want: []string{"c.large"}, wantLabels: all},
		{name: "zone z1 and zone ID az2 contradict", reqs: reqs(requirements.In(zone, "z1"), requirements.In(zoneID, "az2")),
			want: []string{}, wantLabels: all},
		{name: "reservation cr-1", reqs: reqs(requirements.In(resID, "cr-1")), want: []string{"r.large"}, wantLabels: all},
		{name: "unknown reservation", reqs: reqs(requirements.In(resID, "cr-9")), want: []string{}, wantLabels: all},
		{name: "no reservation", reqs: reqs(requirements.DoesNotExist(resID)),
			want: []string{"t.large", "m.large", "r.large", "c.large"}, wantLabels: all},
		{name: "reservation NotIn cr-1", reqs: reqs(requirements.NotIn(resID, "cr-1")),
			want: []string{"t.large", "m.large", "r.large", "c.large"}, wantLabels: all},
		{name: "reservation NotIn another", reqs: reqs(requirements.NotIn(resID, "cr-9")),
			want: []string{"t.large", "m.large", "r.large", "c.large"}, wantLabels: all},
		{name: "reservation cr-1 in z2", reqs: reqs(requirements.In(resID, "cr-1"), requirements.In(zone, "z2")),
			want: []string{}, wantLabels: all},
		{name: "key the catalog does not know is ignored", reqs: reqs(requirements.In("team", "a")),
			want: offered, wantLabels: all},
		{name: "labels and offerings both restrict", reqs: reqs(requirements.In(arch, "amd64"), requirements.In(zone, "z3")),
			want: []string{}, wantLabels: []string{"t.large", "r.large", "x.large"}},
		{name: "arm64 on-demand in z3", reqs: reqs(requirements.In(arch, "arm64"), requirements.In(capType, onDemand), requirements.In(zone, "z3")),
			want: []string{"c.large"}, wantLabels: []string{"m.large", "c.large"}},
		{name: "instance type label", reqs: reqs(requirements.In(requirements.LabelInstanceType, "x.large", "m.large")),
			want: []string{"m.large"}, wantLabels: []string{"m.large", "x.large"}},
	}
}

// TestIndexFilter checks Filter and FilterLabels.
func TestIndexFilter(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	for _, tt := range filterCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: x memoises and is not safe for concurrent use.
			got := x.Filter(tt.reqs)
			if diff := gocmp.Diff(tt.want, names(x, got)); diff != "" {
				t.Errorf("Filter(%v) (-want +got):\n%s", tt.reqs, diff)
			}
			if diff := gocmp.Diff(tt.wantLabels, names(x, x.FilterLabels(tt.reqs))); diff != "" {
				t.Errorf("FilterLabels(%v) (-want +got):\n%s", tt.reqs, diff)
			}

			// The result is fresh: writing into it changes no later answer.
			got.Set(xLarge)
			got.Clear(tLarge)
			if diff := gocmp.Diff(tt.want, names(x, x.Filter(tt.reqs))); diff != "" {
				t.Errorf("second Filter after writing the first result (-want +got):\n%s", diff)
			}
			if x.All().Count() != x.Len() {
				t.Errorf("All() lost types: %d of %d", x.All().Count(), x.Len())
			}
		})
	}
}

// TestIndexFilterAgreesWithCatalog checks that Filter agrees with
// instancetypes.Catalog.Filter, which it accelerates.
func TestIndexFilterAgreesWithCatalog(t *testing.T) {
	t.Parallel()
	cat := indexCatalog(t)
	x := binpack.NewIndex(binpack.NewTables(cat, baseDims(t)))
	for _, tt := range filterCases(t) {
		t.Run(tt.name, func(t *testing.T) {
			ref := []string{}
			for _, it := range cat.Filter(tt.reqs) {
				ref = append(ref, it.Name)
			}
			if diff := gocmp.Diff(ref, names(x, x.Filter(tt.reqs))); diff != "" {
				t.Errorf("Filter(%v) disagrees with Catalog.Filter (-catalog +index):\n%s", tt.reqs, diff)
			}
		})
	}
}

func TestIndexLabelValues(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	tests := []struct {
		name string
		key  string
		set  binpack.TypeSet
		want []string
	}{
		{name: "arch over all", key: arch, set: x.All(), want: []string{"amd64", "arm64"}},
		{name: "arch over one type", key: arch, set: setOf(x.Len(), mLarge), want: []string{"arm64"}},
		{name: "family over all, absent skipped", key: family, set: x.All(), want: []string{"c", "m", "t", "x"}},
		{name: "family of a type without it", key: family, set: setOf(x.Len(), rLarge)},
		{name: "cpu sorted as strings, duplicates once", key: cpuLabel, set: x.All(), want: []string{"16", "2", "4", "8"}},
		{name: "empty set", key: arch, set: binpack.NewTypeSet(x.Len())},
		{name: "key the catalog does not know", key: "team", set: x.All()},
		{name: "zone is not a label", key: zone, set: x.All()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := gocmp.Diff(tt.want, x.LabelValues(tt.key, tt.set)); diff != "" {
				t.Errorf("LabelValues(%s) (-want +got):\n%s", tt.key, diff)
			}
		})
	}
	for key, want := range map[string]bool{arch: true, family: true, cpuLabel: true, requirements.LabelInstanceType: true,
		zone: false, capType: false, resID: false, "team": false} {
		if got := x.IsLabelKey(key); got != want {
			t.Errorf("IsLabelKey(%s) = %v, want %v", key, got, want)
		}
	}
}

// TestIndexTables checks the per-type tables: vectors, sorted zones and
// capacity types, zone IDs.
func TestIndexTables(t *testing.T) {
	t.Parallel()
	cat := indexCatalog(t)
	d, err := binpack.NewDims(binpack.ResourceNames(cat)...)
	require.NoError(t, err)
	require.Equal(t, []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, gpu}, dimNames(d))
	x := binpack.NewIndex(binpack.NewTables(cat, d))

	if x.Len() != 5 {
		t.Errorf("Len = %d, want 5", x.Len())
	}
	if diff := gocmp.Diff(binpack.Vec{1900, 8 << 30, 20}, x.Allocatable(tLarge)); diff != "" {
		t.Errorf("Allocatable(t.large) (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(binpack.Vec{2000, 8 << 30, 20}, x.Capacity(tLarge)); diff != "" {
		t.Errorf("Capacity(t.large) (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(binpack.Vec{8000, 32 << 30, 50, 1}, x.Allocatable(rLarge)); diff != "" {
		t.Errorf("Allocatable(r.large) (-want +got):\n%s", diff)
	}
	if got := x.Describe(x.Allocatable(rLarge)); got != "cpu=8, memory=32Gi, pods=50, nvidia.com/gpu=1" {
		t.Errorf("Describe = %q", got)
	}
	if got := x.Describe(binpack.Vec{}); got != "" {
		t.Errorf("Describe(zero) = %q, want empty", got)
	}

	// The first offerings seen are z3 and spot: the lists are sorted all the same.
	if diff := gocmp.Diff([]string{"z1", "z2", "z3"}, x.Zones()); diff != "" {
		t.Errorf("Zones (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{onDemand, reserved, spot}, x.CapacityTypes()); diff != "" {
		t.Errorf("CapacityTypes (-want +got):\n%s", diff)
	}
	for i, z := range x.Zones() {
		if got := x.ZoneIndex(z); got != i {
			t.Errorf("ZoneIndex(%s) = %d, want %d", z, got, i)
		}
		if got, want := x.ZoneID(z), "a"+z; got != want {
			t.Errorf("ZoneID(%s) = %q, want %q", z, got, want)
		}
	}
	for i, ct := range x.CapacityTypes() {
		if got := x.CapacityTypeIndex(ct); got != i {
			t.Errorf("CapacityTypeIndex(%s) = %d, want %d", ct, got, i)
		}
	}
	if x.ZoneIndex("z9") != -1 || x.CapacityTypeIndex("flex") != -1 || x.ZoneID("z9") != "" {
		t.Errorf("unknown zone or capacity type: ZoneIndex %d, CapacityTypeIndex %d, ZoneID %q",
			x.ZoneIndex("z9"), x.CapacityTypeIndex("flex"), x.ZoneID("z9"))
	}
}

func TestResourceNames(t *testing.T) {
	t.Parallel()
	if diff := gocmp.Diff([]corev1.ResourceName{"cpu", "memory", gpu, "pods"}, binpack.ResourceNames(indexCatalog(t))); diff != "" {
		t.Errorf("ResourceNames (-want +got):\n%s", diff)
	}
}

// offering is what Index.Offering returns.
type offering struct {
	Zone, CapacityType string
	Price              float64
	ReservationID      string
}

func TestIndexCheapest(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	left := func(n int) binpack.ReservationsLeft { return func(string) int { return n } }
	tests := []struct {
		name   string
		typ    int
		reqs   requirements.Requirements
		left   binpack.ReservationsLeft
		want   offering
		wantOK bool
	}{
		{name: "unavailable cheaper offering skipped", typ: tLarge,
			want: offering{"z2", spot, 0.04, ""}, wantOK: true},
		{name: "restricted to on-demand", typ: tLarge, reqs: reqs(requirements.In(capType, onDemand)),
			want: offering{"z1", onDemand, 0.10, ""}, wantOK: true},
		{name: "only an unavailable offering allowed", typ: tLarge, reqs: reqs(requirements.In(zone, "z3"))},
		{name: "reservation with room", typ: rLarge, left: left(1),
			want: offering{"z1", reserved, 0.01, "cr-1"}, wantOK: true},
		{name: "nil ReservationsLeft: no reservation exhausted", typ: rLarge,
			want: offering{"z1", reserved, 0.01, "cr-1"}, wantOK: true},
		{name: "exhausted reservation skipped", typ: rLarge, left: left(0),
			want: offering{"z2", onDemand, 0.20, ""}, wantOK: true},
		{name: "overdrawn reservation skipped", typ: rLarge, left: left(-1),
			want: offering{"z2", onDemand, 0.20, ""}, wantOK: true},
		{name: "exhausted reservation and nothing else allowed", typ: rLarge, left: left(0),
			reqs: reqs(requirements.In(capType, reserved))},
		{name: "reservation required", typ: rLarge, reqs: reqs(requirements.In(resID, "cr-1")),
			want: offering{"z1", reserved, 0.01, "cr-1"}, wantOK: true},
		{name: "reservation excluded", typ: rLarge, reqs: reqs(requirements.DoesNotExist(resID)),
			want: offering{"z2", onDemand, 0.20, ""}, wantOK: true},
		{name: "other reservation", typ: rLarge, reqs: reqs(requirements.In(resID, "cr-2"))},
		{name: "zone ID decides", typ: cLarge, reqs: reqs(requirements.In(zoneID, "az1")),
			want: offering{"z1", onDemand, 0.10, ""}, wantOK: true},
		{name: "no available offering at all", typ: xLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := binpack.NewOfferFilter(x, tt.reqs)
			price, i, ok := x.Cheapest(tt.typ, f, tt.left)
			if ok != tt.wantOK {
				t.Fatalf("Cheapest ok = %v, want %v (price %v, offering %d)", ok, tt.wantOK, price, i)
			}
			if !ok {
				if !math.IsInf(price, 1) || i != -1 {
					t.Errorf("Cheapest without an offering = %v, %d; want +Inf, -1", price, i)
				}
				return
			}
			var got offering
			got.Zone, got.CapacityType, got.Price, got.ReservationID = x.Offering(tt.typ, i)
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cheapest offering (-want +got):\n%s", diff)
			}
			if price != tt.want.Price {
				t.Errorf("Cheapest price = %v, want %v", price, tt.want.Price)
			}
		})
	}
}

// priceCase is a requirement set with the PriceOrder and Prices it gives.
type priceCase struct {
	name       string
	reqs       requirements.Requirements
	wantOrder  []string
	wantPrices []float64 // in catalog order
}

func priceCases() []priceCase {
	return []priceCase{
		{
			name: "no requirements: ties by catalog order, no offering last",
			// t.large and c.large tie at 0.04: t.large comes first in the catalog.
			wantOrder:  []string{"r.large", "t.large", "c.large", "m.large", "x.large"},
			wantPrices: []float64{0.04, 0.05, 0.01, 0.04, inf},
		},
		{
			name:       "on-demand",
			reqs:       reqs(requirements.In(capType, onDemand)),
			wantOrder:  []string{"c.large", "t.large", "m.large", "r.large", "x.large"},
			wantPrices: []float64{0.10, 0.10, 0.20, 0.04, inf},
		},
		{
			name:       "spot in z1",
			reqs:       reqs(requirements.In(capType, spot), requirements.In(zone, "z1")),
			wantOrder:  []string{"m.large", "t.large", "r.large", "c.large", "x.large"},
			wantPrices: []float64{inf, 0.05, inf, inf, inf},
		},
		{
			name:       "reservation cr-1",
			reqs:       reqs(requirements.In(resID, "cr-1")),
			wantOrder:  []string{"r.large", "t.large", "m.large", "c.large", "x.large"},
			wantPrices: []float64{inf, inf, 0.01, inf, inf},
		},
		{
			name:       "no reservation",
			reqs:       reqs(requirements.DoesNotExist(resID)),
			wantOrder:  []string{"t.large", "c.large", "m.large", "r.large", "x.large"},
			wantPrices: []float64{0.04, 0.05, 0.20, 0.04, inf},
		},
		{
			name:       "unknown zone: every type without an offering, catalog order",
			reqs:       reqs(requirements.In(zone, "z9")),
			wantOrder:  []string{"t.large", "m.large", "r.large", "c.large", "x.large"},
			wantPrices: []float64{inf, inf, inf, inf, inf},
		},
		{
			name:       "labels do not matter to prices",
			reqs:       reqs(requirements.In(arch, "arm64")),
			wantOrder:  []string{"r.large", "t.large", "c.large", "m.large", "x.large"},
			wantPrices: []float64{0.04, 0.05, 0.01, 0.04, inf},
		},
	}
}

func TestIndexPriceOrder(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	for _, tt := range priceCases() {
		t.Run(tt.name, func(t *testing.T) {
			f := binpack.NewOfferFilter(x, tt.reqs)
			// Prices first on a fresh filter, then PriceOrder, then again: the
			// memo must give the same answers whichever is asked first.
			for round := range 2 {
				if diff := gocmp.Diff(tt.wantPrices, x.Prices(f)); diff != "" {
					t.Errorf("round %d: Prices (-want +got):\n%s", round, diff)
				}
				if diff := gocmp.Diff(tt.wantOrder, orderNames(x, x.PriceOrder(f))); diff != "" {
					t.Errorf("round %d: PriceOrder (-want +got):\n%s", round, diff)
				}
			}
			for typ, p := range x.Prices(f) {
				got, _, ok := x.Cheapest(typ, f, nil)
				if got != p || ok == math.IsInf(p, 1) {
					t.Errorf("type %d: Prices says %v, Cheapest says %v, %v", typ, p, got, ok)
				}
			}
		})
	}
}

func TestOfferFilterSignature(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	sig := func(rs requirements.Requirements) string { return binpack.NewOfferFilter(x, rs).Signature() }
	same := [][2]requirements.Requirements{
		{{}, reqs(requirements.In(zone, "z1", "z2", "z3"))},
		{{}, reqs(requirements.In(arch, "amd64"))},
		{reqs(requirements.In(zone, "z1")), reqs(requirements.NotIn(zone, "z2", "z3"))},
		{reqs(requirements.In(capType, spot, onDemand)), reqs(requirements.NotIn(capType, reserved))},
		{reqs(requirements.In(zone, "z1")), reqs(requirements.In(zoneID, "az1"))},
	}
	for _, p := range same {
		if sig(p[0]) != sig(p[1]) {
			t.Errorf("signatures of %v and %v differ, though they allow the same offerings", p[0], p[1])
		}
	}
	different := [][2]requirements.Requirements{
		{{}, reqs(requirements.In(zone, "z1"))},
		{reqs(requirements.In(zone, "z1")), reqs(requirements.In(zone, "z2"))},
		{{}, reqs(requirements.In(capType, spot))},
		{{}, reqs(requirements.In(resID, "cr-1"))},
		{reqs(requirements.In(resID, "cr-1")), reqs(requirements.In(resID, "cr-2"))},
		{reqs(requirements.In(resID, "cr-1")), reqs(requirements.DoesNotExist(resID))},
	}
	for _, p := range different {
		if sig(p[0]) == sig(p[1]) {
			t.Errorf("%v and %v share signature %q", p[0], p[1], sig(p[0]))
		}
	}
	f := binpack.NewOfferFilter(x, reqs(requirements.In(zone, "z2")))
	var allowed []bool
	for z := range x.Zones() {
		allowed = append(allowed, f.ZoneAllowed(z))
	}
	if diff := gocmp.Diff([]bool{false, true, false}, allowed); diff != "" {
		t.Errorf("ZoneAllowed (-want +got):\n%s", diff)
	}
}

// marks is what the MarkOffered functions set, as names.
type marks struct{ Zones, CapacityTypes []string }

func markedNames(x *binpack.Index, zones, cts []bool) marks {
	m := marks{Zones: []string{}, CapacityTypes: []string{}}
	for i, ok := range zones {
		if ok {
			m.Zones = append(m.Zones, x.Zones()[i])
		}
	}
	for i, ok := range cts {
		if ok {
			m.CapacityTypes = append(m.CapacityTypes, x.CapacityTypes()[i])
		}
	}
	return m
}

func TestIndexMarkOffered(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	left0 := func(string) int { return 0 }
	tests := []struct {
		name string
		mark func(f binpack.OfferFilter, zones, cts []bool)
		reqs requirements.Requirements
		want marks
	}{
		{name: "MarkOffered skips unavailable offerings",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOffered(tLarge, f, z, c) },
			want: marks{[]string{"z1", "z2"}, []string{onDemand, spot}}},
		{name: "MarkOffered under a filter",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOffered(tLarge, f, z, c) },
			reqs: reqs(requirements.In(capType, spot)),
			want: marks{[]string{"z2"}, []string{spot}}},
		{name: "MarkOffered counts reservations whatever their room",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOffered(rLarge, f, z, c) },
			want: marks{[]string{"z1", "z2"}, []string{onDemand, reserved}}},
		{name: "MarkOffered of a type never offered",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOffered(xLarge, f, z, c) },
			want: marks{[]string{}, []string{}}},
		{name: "MarkOfferedLeft with room",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOfferedLeft(rLarge, f, nil, z, c) },
			want: marks{[]string{"z1", "z2"}, []string{onDemand, reserved}}},
		{name: "MarkOfferedLeft skips an exhausted reservation",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOfferedLeft(rLarge, f, left0, z, c) },
			want: marks{[]string{"z2"}, []string{onDemand}}},
		{name: "MarkOfferedLeft of a type without reservations",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOfferedLeft(cLarge, f, left0, z, c) },
			want: marks{[]string{"z1", "z3"}, []string{onDemand}}},
		{name: "MarkOfferedSet unions the types",
			mark: func(f binpack.OfferFilter, z, c []bool) {
				x.MarkOfferedSet(setOf(x.Len(), mLarge, cLarge), f, z, c)
			},
			want: marks{[]string{"z1", "z2", "z3"}, []string{onDemand, spot}}},
		{name: "MarkOfferedSet sets pairs that are offered, under a filter",
			mark: func(f binpack.OfferFilter, z, c []bool) {
				x.MarkOfferedSet(setOf(x.Len(), mLarge, cLarge), f, z, c)
			},
			reqs: reqs(requirements.In(capType, onDemand), requirements.NotIn(zone, "z3")),
			want: marks{[]string{"z1", "z2"}, []string{onDemand}}},
		{name: "MarkOfferedSet of an empty set",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOfferedSet(binpack.NewTypeSet(x.Len()), f, z, c) },
			want: marks{[]string{}, []string{}}},
		{name: "MarkOfferedSet of a type never offered",
			mark: func(f binpack.OfferFilter, z, c []bool) { x.MarkOfferedSet(setOf(x.Len(), xLarge), f, z, c) },
			want: marks{[]string{}, []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zones, cts := make([]bool, len(x.Zones())), make([]bool, len(x.CapacityTypes()))
			tt.mark(binpack.NewOfferFilter(x, tt.reqs), zones, cts)
			if diff := gocmp.Diff(tt.want, markedNames(x, zones, cts)); diff != "" {
				t.Errorf("marked (-want +got):\n%s", diff)
			}
		})
	}

	// The marks only ever get set: a second call leaves earlier marks.
	zones, cts := make([]bool, 3), make([]bool, 3)
	all := binpack.NewOfferFilter(x, requirements.Requirements{})
	x.MarkOffered(cLarge, all, zones, cts)
	x.MarkOffered(mLarge, binpack.NewOfferFilter(x, reqs(requirements.In(capType, spot))), zones, cts)
	if diff := gocmp.Diff(marks{[]string{"z1", "z3"}, []string{onDemand, spot}}, markedNames(x, zones, cts)); diff != "" {
		t.Errorf("accumulated marks (-want +got):\n%s", diff)
	}
}

func TestIndexHasReservation(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	tests := []struct {
		typ  int
		id   string
		want bool
	}{
		{rLarge, "cr-1", true},
		{rLarge, "cr-2", false},
		{tLarge, "cr-1", false},
		{cLarge, "cr-1", false},
	}
	for _, tt := range tests {
		if got := x.HasReservation(tt.typ, tt.id); got != tt.want {
			t.Errorf("HasReservation(%s, %s) = %v, want %v", x.Type(tt.typ).Name, tt.id, got, tt.want)
		}
	}

	// An unavailable reserved offering is no reservation to use.
	it := testutil.InstanceType("u.large").CPU("2").Memory("4Gi").Pods("10").
		OfferingOf(instancetypes.Offering{Zone: "z1", CapacityType: reserved, Price: 0.01, Unavailable: true, ReservationID: "cr-7", ReservationCapacity: 1}).
		Offering("z1", onDemand, 0.1).Obj()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{it})
	require.NoError(t, err)
	u := binpack.NewIndex(binpack.NewTables(cat, baseDims(t)))
	if u.HasReservation(0, "cr-7") {
		t.Errorf("HasReservation of an unavailable reserved offering = true")
	}
}

// answers is what an Index says about one requirement set.
type answers struct {
	Filter       []string
	FilterLabels []string
	Order        []string
	Prices       []float64
}

func answer(x *binpack.Index, rs requirements.Requirements) answers {
	f := binpack.NewOfferFilter(x, rs)
	return answers{
		Filter:       names(x, x.Filter(rs)),
		FilterLabels: names(x, x.FilterLabels(rs)),
		Order:        orderNames(x, x.PriceOrder(f)),
		Prices:       slices.Clone(x.Prices(f)),
	}
}

// answerSets are the requirement sets the sharing tests ask about.
func answerSets(t *testing.T) []requirements.Requirements {
	var out []requirements.Requirements
	for _, c := range filterCases(t) {
		out = append(out, c.reqs)
	}
	for _, c := range priceCases() {
		out = append(out, c.reqs)
	}
	return out
}

// wantAnswers answers every set on an Index of tables of its own, so that
// nothing is shared with the Index under test.
func wantAnswers(t *testing.T, sets []requirements.Requirements) []answers {
	x := newIndex(t)
	out := make([]answers, len(sets))
	for i, rs := range sets {
		out[i] = answer(x, rs)
	}
	return out
}

// TestIndexesShareTables checks that Indexes of one Tables read the same
// tables, that each answers correctly after the other answered and its
// caller wrote into the fresh sets it got back, that an Index memoises for
// itself only, and that other dims take tables of their own.
func TestIndexesShareTables(t *testing.T) {
	t.Parallel()
	sets := answerSets(t)
	want := wantAnswers(t, sets)
	tables := binpack.NewTables(indexCatalog(t), baseDims(t))

	first, second := binpack.NewIndex(tables), binpack.NewIndex(tables)
	if &first.Zones()[0] != &second.Zones()[0] {
		t.Errorf("two Indexes of one Tables do not share them")
	}
	for i, rs := range sets {
		if diff := gocmp.Diff(want[i], answer(first, rs)); diff != "" {
			t.Errorf("first Index, %v (-want +got):\n%s", rs, diff)
		}
		first.Filter(rs).Clear(tLarge)
		first.FilterLabels(rs).Set(xLarge)
	}
	for i := len(sets) - 1; i >= 0; i-- {
		if diff := gocmp.Diff(want[i], answer(second, sets[i])); diff != "" {
			t.Errorf("second Index after the first answered, %v (-want +got):\n%s", sets[i], diff)
		}
	}

	gpuDims, err := binpack.NewDims(gpu)
	require.NoError(t, err)
	withGPU := binpack.NewIndex(binpack.NewTables(indexCatalog(t), gpuDims))
	if diff := gocmp.Diff(binpack.Vec{8000, 32 << 30, 50, 1}, withGPU.Allocatable(rLarge)); diff != "" {
		t.Errorf("Index with a GPU dimension: Allocatable(r.large) (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(binpack.Vec{8000, 32 << 30, 50}, first.Allocatable(rLarge)); diff != "" {
		t.Errorf("Index without a GPU dimension: Allocatable(r.large) (-want +got):\n%s", diff)
	}
	for i, rs := range sets {
		if diff := gocmp.Diff(want[i], answer(withGPU, rs)); diff != "" {
			t.Errorf("Index with a GPU dimension, %v (-want +got):\n%s", rs, diff)
		}
	}
}

// TestTablesPreparedOrders checks that the price orders NewTables prepares
// (every zone or one, with any set of capacity types) are those an Index
// computes for a filter that allows the same offerings under another
// signature (a reservation requirement every offering meets).
func TestTablesPreparedOrders(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	for _, tt := range []struct {
		name     string
		prepared requirements.Requirements
	}{
		{"every offering", reqs()},
		{"spot", reqs(requirements.In(capType, spot))},
		{"on-demand or reserved", reqs(requirements.In(capType, onDemand, reserved))},
		{"z1", reqs(requirements.In(zone, "z1"))},
		{"z3 on-demand", reqs(requirements.In(zone, "z3"), requirements.In(capType, onDemand))},
		{"z1 or z2, not prepared", reqs(requirements.In(zone, "z1", "z2"))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pf := binpack.NewOfferFilter(x, tt.prepared)
			cf := binpack.NewOfferFilter(x, tt.prepared.Add(requirements.NotIn(resID, "none")))
			if pf.Signature() == cf.Signature() {
				t.Fatalf("both filters have signature %q: the case compares nothing", pf.Signature())
			}
			want := answers{Order: orderNames(x, x.PriceOrder(cf)), Prices: slices.Clone(x.Prices(cf))}
			got := answers{Order: orderNames(x, x.PriceOrder(pf)), Prices: slices.Clone(x.Prices(pf))}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("prepared order (-computed +prepared):\n%s", diff)
			}
		})
	}
}

// TestIndexConcurrent uses Indexes of one Tables from several goroutines at
// once, in opposite orders, and checks that they agree with a sequential
// run on tables of their own. Run it with -race: the tables are read-only.
func TestIndexConcurrent(t *testing.T) {
	t.Parallel()
	sets := answerSets(t)
	want := wantAnswers(t, sets)
	tables := binpack.NewTables(indexCatalog(t), baseDims(t))

	const workers, rounds = 4, 3
	got := make([][]answers, workers) // per goroutine, in sets order
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			<-start
			x := binpack.NewIndex(tables)
			out := make([]answers, len(sets))
			for range rounds {
				for k := range sets {
					i := k
					if w%2 == 1 {
						i = len(sets) - 1 - k
					}
					out[i] = answer(x, sets[i])
				}
			}
			got[w] = out
		})
	}
	close(start)
	wg.Wait()
	for w := range workers {
		for i, rs := range sets {
			if diff := gocmp.Diff(want[i], got[w][i]); diff != "" {
				t.Errorf("goroutine %d, %v (-sequential +concurrent):\n%s", w, rs, diff)
			}
		}
	}
}

func TestIndexReservedOfferings(t *testing.T) {
	t.Parallel()
	x := newIndex(t)
	left := func(n int) binpack.ReservationsLeft { return func(string) int { return n } }
	tests := []struct {
		name string
		typ  int
		reqs requirements.Requirements
		left binpack.ReservationsLeft
		want []offering
	}{
		{name: "reservation with room", typ: rLarge, left: left(1), want: []offering{{"z1", reserved, 0.01, "cr-1"}}},
		{name: "nil ReservationsLeft: no reservation exhausted", typ: rLarge, want: []offering{{"z1", reserved, 0.01, "cr-1"}}},
		{name: "exhausted reservation", typ: rLarge, left: left(0)},
		{name: "zone not allowed", typ: rLarge, reqs: reqs(requirements.In(zone, "z2"))},
		{name: "reservation excluded", typ: rLarge, reqs: reqs(requirements.DoesNotExist(resID))},
		{name: "type without reservations", typ: tLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []offering
			for _, i := range x.ReservedOfferings(tt.typ, binpack.NewOfferFilter(x, tt.reqs), tt.left) {
				var o offering
				o.Zone, o.CapacityType, o.Price, o.ReservationID = x.Offering(tt.typ, i)
				got = append(got, o)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReservedOfferings (-want +got):\n%s", diff)
			}
		})
	}
}
