package instancetypes_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

const (
	zoneA    = "us-east-1a"
	zoneB    = "us-east-1b"
	zoneC    = "us-east-1c"
	onDemand = requirements.CapacityTypeOnDemand
	spot     = requirements.CapacityTypeSpot
	labelCPU = "example.com/cpu"
	labelGPU = "example.com/gpu"
)

func catalog(t *testing.T, types ...*testutil.InstanceTypeBuilder) instancetypes.Catalog {
	t.Helper()
	var its []instancetypes.InstanceType
	for _, b := range types {
		its = append(its, b.Obj())
	}
	c, err := instancetypes.NewCatalog(its)
	require.NoError(t, err)
	return c
}

func get(t *testing.T, c instancetypes.Catalog, name string) *instancetypes.InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	require.True(t, ok, "no type %s", name)
	return it
}

func quantities(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func TestAllocatable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  *testutil.InstanceTypeBuilder
		want corev1.ResourceList
	}{
		{
			name: "no overhead: allocatable is capacity",
			typ:  testutil.InstanceType("a").CPU("2").Memory("8Gi").Pods("20").Offering(zoneA, onDemand, 1),
			want: quantities("cpu", "2", "memory", "8Gi", "pods", "20"),
		},
		{
			name: "no pods capacity: the kubelet's default of 110",
			typ:  testutil.InstanceType("a").CPU("2").Memory("8Gi").Offering(zoneA, onDemand, 1),
			want: quantities("cpu", "2", "memory", "8Gi", "pods", "110"),
		},
		{
			name: "m5.large: capacity minus kube-reserved and eviction threshold",
			typ: testutil.InstanceType("a").CPU("2").Memory("7577Mi").Pods("29").Capacity(corev1.ResourceEphemeralStorage, "20Gi").
				KubeReserved(corev1.ResourceCPU, "70m").KubeReserved(corev1.ResourceMemory, "574Mi").KubeReserved(corev1.ResourceEphemeralStorage, "1Gi").
				EvictionThreshold(corev1.ResourceMemory, "100Mi").EvictionThreshold(corev1.ResourceEphemeralStorage, "2Gi").Offering(zoneA, onDemand, 1),
			want: quantities("cpu", "1930m", "memory", "6903Mi", "pods", "29", "ephemeral-storage", "17Gi"),
		},
		{
			name: "all three overhead lists add up",
			typ: testutil.InstanceType("a").CPU("1").Memory("10Gi").Pods("10").Offering(zoneA, onDemand, 1).
				KubeReserved(corev1.ResourceMemory, "1Gi").SystemReserved(corev1.ResourceMemory, "2Gi").EvictionThreshold(corev1.ResourceMemory, "3Gi"),
			want: quantities("cpu", "1", "memory", "4Gi", "pods", "10"),
		},
		{
			name: "overhead equal to capacity leaves zero",
			typ:  testutil.InstanceType("a").CPU("1").Memory("1Gi").Pods("10").Offering(zoneA, onDemand, 1).KubeReserved(corev1.ResourceCPU, "1"),
			want: quantities("cpu", "0", "memory", "1Gi", "pods", "10"),
		},
		{
			name: "extended resources pass through",
			typ: testutil.InstanceType("a").CPU("4").Memory("16Gi").Pods("10").Capacity("nvidia.com/gpu", "1").KubeReserved(corev1.ResourceCPU, "80m").
				Offering(zoneA, onDemand, 1),
			want: quantities("cpu", "3920m", "memory", "16Gi", "pods", "10", "nvidia.com/gpu", "1"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := catalog(t, tc.typ)
			got := c.Types()[0].Allocatable()
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Allocatable() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequirements(t *testing.T) {
	t.Parallel()
	// Two types with different label keys: each reads DoesNotExist for the
	// catalog keys it lacks.
	c := catalog(t,
		testutil.InstanceType("small").CPU("2").Memory("4Gi").Label(labelCPU, "2").
			OfferingOf(instancetypes.Offering{Zone: zoneA, ZoneID: "use1-az1", CapacityType: onDemand, Price: 1}).
			OfferingOf(instancetypes.Offering{Zone: zoneB, ZoneID: "use1-az2", CapacityType: spot, Price: 0.3}).
			OfferingOf(instancetypes.Offering{Zone: zoneC, ZoneID: "use1-az3", CapacityType: spot, Price: 0.3, Unavailable: true}), // unavailable: not in zones
		testutil.InstanceType("gpu").CPU("2").Memory("4Gi").Label(labelCPU, "8").Label(labelGPU, "1").
			Offering(zoneA, onDemand, 3).UnavailableOffering(zoneA, spot, 1),
		testutil.InstanceType("gone").CPU("2").Memory("4Gi").Label(labelCPU, "1").UnavailableOffering(zoneA, spot, 1),
	)
	tests := []struct {
		name string
		want requirements.Requirements
	}{
		{
			name: "small",
			want: requirements.NewRequirements(
				requirements.In(requirements.LabelInstanceType, "small"),
				requirements.In(labelCPU, "2"),
				requirements.DoesNotExist(labelGPU),
				requirements.In(requirements.LabelTopologyZone, zoneA, zoneB),
				requirements.In(instancetypes.LabelZoneID, "use1-az1", "use1-az2"),
				requirements.In(requirements.LabelCapacityType, onDemand, spot),
			),
		},
		{
			name: "gpu",
			want: requirements.NewRequirements(
				requirements.In(requirements.LabelInstanceType, "gpu"),
				requirements.In(labelCPU, "8"),
				requirements.In(labelGPU, "1"),
				requirements.In(requirements.LabelTopologyZone, zoneA),
				requirements.In(requirements.LabelCapacityType, onDemand),
			),
		},
		{
			name: "gone", // no available offering: zone and capacity type are empty sets
			want: requirements.NewRequirements(
				requirements.In(requirements.LabelInstanceType, "gone"),
				requirements.In(labelCPU, "1"),
				requirements.DoesNotExist(labelGPU),
				requirements.In(requirements.LabelTopologyZone),
				requirements.In(requirements.LabelCapacityType),
			),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := get(t, c, tc.name).Requirements()
			if diff := gocmp.Diff(tc.want.String(), got.String()); diff != "" {
				t.Errorf("Requirements() (-want +got):\n%s", diff)
			}
			if !tc.want.Equal(got) {
				t.Errorf("Requirements() = %v, not Equal to %v", got, tc.want)
			}
		})
	}
	if diff := gocmp.Diff([]string{labelCPU, labelGPU, requirements.LabelInstanceType}, c.LabelKeys()); diff != "" {
		t.Errorf("LabelKeys() (-want +got):\n%s", diff)
	}
	for _, k := range []string{labelCPU, labelGPU, instancetypes.LabelZoneID, instancetypes.LabelReservationID} {
		if !c.Schema().IsWellKnown(k) {
			t.Errorf("Schema().IsWellKnown(%q) = false, want true", k)
		}
	}
}

func reqs(t *testing.T, exprs ...requirements.Requirement) requirements.Requirements {
	t.Helper()
	return requirements.NewRequirements(exprs...)
}

func must(t *testing.T, key string, op requirements.Operator, values ...string) requirements.Requirement {
	t.Helper()
	r, err := requirements.New(key, op, values...)
	require.NoError(t, err)
	return r
}

func TestCheapestOffering(t *testing.T) {
	t.Parallel()
	typ := testutil.InstanceType("m").CPU("2").Memory("4Gi").
		Offering(zoneA, onDemand, 0.10).
		Offering(zoneB, onDemand, 0.10).
		Offering(zoneC, onDemand, 0.12).
		UnavailableOffering(zoneA, spot, 0.02). // cheapest, but cannot launch
		Offering(zoneB, spot, 0.04).
		Offering(zoneC, spot, 0.03).
		OfferingOf(instancetypes.Offering{Zone: zoneA, CapacityType: requirements.CapacityTypeReserved, Price: 0.05,
			ReservationID: "cr-1", ReservationCapacity: 2})
	tests := []struct {
		name   string
		reqs   []requirements.Requirement
		want   instancetypes.Offering
		wantOK bool
	}{
		{
			name:   "no requirement: cheapest available offering",
			want:   instancetypes.Offering{Zone: zoneC, CapacityType: spot, Price: 0.03},
			wantOK: true,
		},
		{
			name:   "on-demand: tie on price goes to the first zone",
			reqs:   []requirements.Requirement{requirements.In(requirements.LabelCapacityType, onDemand)},
			want:   instancetypes.Offering{Zone: zoneA, CapacityType: onDemand, Price: 0.10},
			wantOK: true,
		},
		{
			name:   "zone a: the unavailable spot offering is skipped, the reservation wins",
			reqs:   []requirements.Requirement{requirements.In(requirements.LabelTopologyZone, zoneA)},
			want:   instancetypes.Offering{Zone: zoneA, CapacityType: requirements.CapacityTypeReserved, Price: 0.05, ReservationID: "cr-1", ReservationCapacity: 2},
			wantOK: true,
		},
		{
			name: "zone a, spot: only the unavailable offering matches",
			reqs: []requirements.Requirement{
				requirements.In(requirements.LabelTopologyZone, zoneA),
				requirements.In(requirements.LabelCapacityType, spot),
			},
		},
		{
			name: "zone a without a reservation",
			reqs: []requirements.Requirement{
				requirements.In(requirements.LabelTopologyZone, zoneA),
				requirements.DoesNotExist(instancetypes.LabelReservationID),
			},
			want:   instancetypes.Offering{Zone: zoneA, CapacityType: onDemand, Price: 0.10},
			wantOK: true,
		},
		{
			name:   "zone NotIn [c], spot",
			reqs:   []requirements.Requirement{requirements.NotIn(requirements.LabelTopologyZone, zoneC), requirements.In(requirements.LabelCapacityType, spot)},
			want:   instancetypes.Offering{Zone: zoneB, CapacityType: spot, Price: 0.04},
			wantOK: true,
		},
		{
			name: "a zone the type is not offered in",
			reqs: []requirements.Requirement{requirements.In(requirements.LabelTopologyZone, "us-east-1d")},
		},
		{
			name: "a zone ID no offering carries",
			reqs: []requirements.Requirement{requirements.In(instancetypes.LabelZoneID, "use1-az1")},
		},
	}
	c := catalog(t, typ)
	unsorted := typ.Obj() // not from a catalog: offerings in the order given
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := reqs(t, tc.reqs...)
			for name, it := range map[string]*instancetypes.InstanceType{"catalog": c.Types()[0], "unsorted": &unsorted} {
				got, ok := it.CheapestOffering(r)
				if ok != tc.wantOK {
					t.Fatalf("%s: CheapestOffering() ok = %v, want %v", name, ok, tc.wantOK)
				}
				if diff := gocmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: CheapestOffering() (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestCheapestOfferingDoesNotAllocate(t *testing.T) {
	c := catalog(t, testutil.InstanceType("m").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 1).Offering(zoneB, spot, 0.5).UnavailableOffering(zoneC, spot, 0.1))
	r := reqs(t, requirements.In(requirements.LabelTopologyZone, zoneA, zoneB), requirements.In(requirements.LabelCapacityType, onDemand))
	it := c.Types()[0]
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := it.CheapestOffering(r); !ok {
			t.Fatal("no offering")
		}
		if !instancetypes.Compatible(it, r) {
			t.Fatal("not compatible")
		}
	})
	if allocs != 0 {
		t.Errorf("CheapestOffering+Compatible allocate %v times per run, want 0", allocs)
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	sized := func(name, cpu string) *testutil.InstanceTypeBuilder {
		return testutil.InstanceType(name).CPU("2").Memory("4Gi").Label(labelCPU, cpu).Offering(zoneA, onDemand, 1)
	}
	c := catalog(t,
		sized("c2", "2"),
		sized("c4", "4"),
		sized("c8", "8").Offering(zoneB, spot, 0.3),
		sized("c16", "16").UnavailableOffering(zoneB, spot, 0.5),
		testutil.InstanceType("nocpu").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 1), // lacks the cpu label
	)
	tests := []struct {
		name string
		reqs []requirements.Requirement
		want []string
	}{
		{name: "none", want: []string{"c2", "c4", "c8", "c16", "nocpu"}},
		{name: "Gt 4", reqs: []requirements.Requirement{must(t, labelCPU, requirements.OpGt, "4")}, want: []string{"c8", "c16"}},
		{name: "Lt 8", reqs: []requirements.Requirement{must(t, labelCPU, requirements.OpLt, "8")}, want: []string{"c2", "c4"}},
		{name: "Gt 2 and Lt 16", reqs: []requirements.Requirement{must(t, labelCPU, requirements.OpGt, "2"), must(t, labelCPU, requirements.OpLt, "16")}, want: []string{"c4", "c8"}},
		{name: "Gt 16: none", reqs: []requirements.Requirement{must(t, labelCPU, requirements.OpGt, "16")}},
		{name: "DoesNotExist", reqs: []requirements.Requirement{requirements.DoesNotExist(labelCPU)}, want: []string{"nocpu"}},
		{name: "NotIn 2: absent allowed", reqs: []requirements.Requirement{requirements.NotIn(labelCPU, "2")}, want: []string{"c4", "c8", "c16", "nocpu"}},
		{
			name: "Gt 4 and spot: the unavailable spot pool does not count",
			reqs: []requirements.Requirement{must(t, labelCPU, requirements.OpGt, "4"), requirements.In(requirements.LabelCapacityType, spot)},
			want: []string{"c8"},
		},
		{
			name: "a custom key no type defines is ignored",
			reqs: []requirements.Requirement{requirements.In("team", "a"), must(t, labelCPU, requirements.OpGt, "8")},
			want: []string{"c16"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, it := range c.Filter(reqs(t, tc.reqs...)) {
				got = append(got, it.Name)
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Filter() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheapest(t *testing.T) {
	t.Parallel()
	c := catalog(t,
		testutil.InstanceType("a").CPU("2").Memory("4Gi").Label(labelCPU, "2").Offering(zoneA, onDemand, 0.2).Offering(zoneA, spot, 0.05),
		testutil.InstanceType("b").CPU("2").Memory("4Gi").Label(labelCPU, "4").Offering(zoneA, onDemand, 0.1),
		testutil.InstanceType("c").CPU("2").Memory("4Gi").Label(labelCPU, "4").Offering(zoneB, onDemand, 0.1),
	)
	tests := []struct {
		name     string
		reqs     []requirements.Requirement
		wantType string
		wantZone string
	}{
		{name: "spot wins", wantType: "a", wantZone: zoneA},
		{name: "on-demand: tie between b and c goes to catalog order", reqs: []requirements.Requirement{requirements.In(requirements.LabelCapacityType, onDemand)}, wantType: "b", wantZone: zoneA},
		{name: "cpu 4 in zone b", reqs: []requirements.Requirement{requirements.In(labelCPU, "4"), requirements.In(requirements.LabelTopologyZone, zoneB)}, wantType: "c", wantZone: zoneB},
		{name: "nothing", reqs: []requirements.Requirement{requirements.In(labelCPU, "64")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			it, o, ok := c.Cheapest(reqs(t, tc.reqs...))
			var gotType, gotZone string
			if ok {
				gotType, gotZone = it.Name, o.Zone
			}
			if diff := gocmp.Diff([]string{tc.wantType, tc.wantZone}, []string{gotType, gotZone}); diff != "" {
				t.Errorf("Cheapest() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewCatalogCopiesInput(t *testing.T) {
	t.Parallel()
	in := []instancetypes.InstanceType{testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneB, onDemand, 2).Offering(zoneA, onDemand, 1).Obj()}
	c, err := instancetypes.NewCatalog(in)
	require.NoError(t, err)
	// The catalog sorts its own copy of the offerings, never the caller's.
	if diff := gocmp.Diff([]string{zoneB, zoneA}, []string{in[0].Offerings[0].Zone, in[0].Offerings[1].Zone}); diff != "" {
		t.Errorf("input offerings reordered (-want +got):\n%s", diff)
	}
	in[0].Labels[labelCPU] = "99"
	in[0].Capacity[corev1.ResourceCPU] = resource.MustParse("99")
	in[0].Offerings[0].Price = 99
	it := c.Types()[0]
	got := []string{it.Labels[labelCPU], it.Capacity.Cpu().String(), it.Offerings[0].Zone, it.Offerings[1].Zone}
	if diff := gocmp.Diff([]string{"", "2", zoneA, zoneB}, got); diff != "" {
		t.Errorf("catalog changed with its input (-want +got):\n%s", diff)
	}
}
