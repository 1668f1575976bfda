package instancetypes_test

import (
	"encoding/json"
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

// A type built in Go from zero values is a usable type: its offerings are
// available and it holds the kubelet's default of 110 pods.
func TestZeroValuesMeanTheCommonCase(t *testing.T) {
	t.Parallel()
	it := instancetypes.InstanceType{
		Name:      "m",
		Capacity:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
		Offerings: []instancetypes.Offering{{Zone: zoneA, CapacityType: onDemand, Price: 0.1}},
	}
	c, err := instancetypes.NewCatalog([]instancetypes.InstanceType{it})
	require.NoError(t, err)
	got := get(t, c, "m")
	if _, ok := got.CheapestOffering(requirements.Requirements{}); !ok {
		t.Errorf("an Offering literal without Unavailable is not available")
	}
	pods := got.Allocatable()[corev1.ResourcePods]
	if pods.Value() != instancetypes.DefaultPods {
		t.Errorf("allocatable pods of a type without pods capacity = %s, want %d", pods.String(), instancetypes.DefaultPods)
	}
	if _, ok := it.Capacity[corev1.ResourcePods]; ok {
		t.Errorf("NewCatalog wrote into the caller's capacity")
	}
}

func TestNewCatalogRejects(t *testing.T) {
	t.Parallel()
	ok := func(name string) *testutil.InstanceTypeBuilder {
		return testutil.InstanceType(name).CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 0.1)
	}
	tests := []struct {
		name  string
		types []*testutil.InstanceTypeBuilder
		want  []string
	}{
		{name: "no offering", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("4Gi")},
			want: []string{"FieldValueRequired instanceTypes[a].offerings"}},
		{name: "no cpu", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").Memory("4Gi").Offering(zoneA, onDemand, 1)},
			want: []string{"FieldValueRequired instanceTypes[a].capacity[cpu]"}},
		{name: "no memory, no capacity at all", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").Offering(zoneA, onDemand, 1)},
			want: []string{"FieldValueRequired instanceTypes[a].capacity[cpu]", "FieldValueRequired instanceTypes[a].capacity[memory]"}},
		{name: "zero memory", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("0").Offering(zoneA, onDemand, 1)},
			want: []string{"FieldValueInvalid instanceTypes[a].capacity[memory]"}},
		{name: "negative price", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, -1)},
			want: []string{"FieldValueInvalid instanceTypes[a].offerings[0].price"}},
		{name: "NaN price", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, math.NaN())},
			want: []string{"FieldValueInvalid instanceTypes[a].offerings[0].price"}},
		{name: "infinite price", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, math.Inf(1))},
			want: []string{"FieldValueInvalid instanceTypes[a].offerings[0].price"}},
		{name: "duplicate names", types: []*testutil.InstanceTypeBuilder{ok("a"), ok("a")},
			want: []string{"FieldValueDuplicate instanceTypes[a].name"}},
		{name: "no name", types: []*testutil.InstanceTypeBuilder{ok("")},
			want: []string{"FieldValueRequired instanceTypes[0].name"}},
		{name: "reservation without ID", types: []*testutil.InstanceTypeBuilder{testutil.InstanceType("a").CPU("2").Memory("4Gi").
			OfferingOf(instancetypes.Offering{Zone: zoneA, CapacityType: requirements.CapacityTypeReserved, Price: 0.1, ReservationCapacity: 1})},
			want: []string{"FieldValueRequired instanceTypes[a].offerings[0].reservationID"}},
		{name: "negative pods", types: []*testutil.InstanceTypeBuilder{ok("a").Pods("-1")},
			want: []string{"FieldValueInvalid instanceTypes[a].capacity[pods]"}},
		{name: "zone decided per offering, not a label", types: []*testutil.InstanceTypeBuilder{ok("a").Label(requirements.LabelTopologyZone, zoneA)},
			want: []string{"FieldValueForbidden instanceTypes[a].labels[topology.kubernetes.io/zone]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var its []instancetypes.InstanceType
			for _, b := range tt.types {
				its = append(its, b.Obj())
			}
			_, err := instancetypes.NewCatalog(its)
			require.Error(t, err)
			var got []string
			var agg utilerrors.Aggregate
			require.ErrorAs(t, err, &agg)
			for _, e := range agg.Errors() {
				var fe *field.Error
				require.ErrorAs(t, e, &fe)
				got = append(got, string(fe.Type)+" "+fe.Field)
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// Offering keeps the catalog format's "available" under encoding/json: a
// missing field means available.
func TestOfferingJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want instancetypes.Offering
	}{
		{"missing means available", `{"zone":"z","capacityType":"spot","price":1}`, instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 1}},
		{"true", `{"zone":"z","capacityType":"spot","price":1,"available":true}`, instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 1}},
		{"false", `{"zone":"z","capacityType":"spot","price":1,"available":false}`, instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 1, Unavailable: true}},
	}
	for _, tt := range tests {
		var got instancetypes.Offering
		require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
		if diff := gocmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Unmarshal (-want +got):\n%s", tt.name, diff)
		}
	}
	out, err := json.Marshal(instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 1, Unavailable: true})
	require.NoError(t, err)
	if diff := gocmp.Diff(`{"zone":"z","capacityType":"spot","price":1,"available":false}`, string(out)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
}
