package instancetypes_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
)

// TestBehaviour2B255ReservationBookkeeping: B-255, the catalog half of
// Karpenter's reservation bookkeeping (RMT). The capacity a plan may use of
// a reservation is the smallest count any of its offerings advertises
// (ReservationCapacities; Solve books against it, see the scenario
// b255-reservation-bookkeeping for one booking per NodeClaim). Karpenter
// treats reserving an unknown reservation or more than it holds as a
// programming error; nodeplan refuses, when the catalog is made, the
// reservation data it could not book against: a reserved offering without
// a reservation ID or with a negative count, a reservation on an offering
// that is not reserved, and one reservation offered twice by one type in
// one zone.
func TestBehaviour2B255ReservationBookkeeping(t *testing.T) {
	t.Parallel()
	reserved := func(zone, id string, capacity int) instancetypes.Offering {
		return instancetypes.Offering{Zone: zone, CapacityType: "reserved", Price: 0.01, ReservationID: id, ReservationCapacity: capacity}
	}
	typ := func(name string, offerings ...instancetypes.Offering) instancetypes.InstanceType {
		b := testutil.InstanceType(name).CPU("2").Memory("4Gi").Offering("z1", "on-demand", 0.1)
		for _, o := range offerings {
			b.OfferingOf(o)
		}
		return b.Obj()
	}
	tests := []struct {
		name    string
		types   []instancetypes.InstanceType
		want    map[string]int
		wantErr string
	}{
		{name: "B-255 capacity is the smallest count the reservation's offerings advertise",
			types: []instancetypes.InstanceType{typ("a", reserved("z1", "cr-1", 3)), typ("b", reserved("z1", "cr-1", 1)), typ("c", reserved("z1", "cr-1", 2))},
			want:  map[string]int{"cr-1": 1}},
		{name: "B-255 each reservation keeps its own count",
			types: []instancetypes.InstanceType{typ("a", reserved("z1", "cr-1", 3), reserved("z2", "cr-2", 2))},
			want:  map[string]int{"cr-1": 3, "cr-2": 2}},
		{name: "B-255 a reservation with nothing left is kept at 0 (nothing may be booked)",
			types: []instancetypes.InstanceType{typ("a", reserved("z1", "cr-1", 0)), typ("b", reserved("z1", "cr-1", 4))},
			want:  map[string]int{"cr-1": 0}},
		{name: "B-255 a reserved offering without a reservation ID is refused",
			types:   []instancetypes.InstanceType{typ("a", reserved("z1", "", 1))},
			wantErr: "reservationID"},
		{name: "B-255 a negative count is refused",
			types:   []instancetypes.InstanceType{typ("a", reserved("z1", "cr-1", -1))},
			wantErr: "reservationCapacity"},
		{name: "B-255 a reservation ID on an on-demand offering is refused",
			types: []instancetypes.InstanceType{typ("a", instancetypes.Offering{Zone: "z2", CapacityType: "on-demand", Price: 0.1,
				ReservationID: "cr-1"})},
			wantErr: "reservationID"},
		{name: "B-255 a reservation count on a spot offering is refused",
			types: []instancetypes.InstanceType{typ("a", instancetypes.Offering{Zone: "z2", CapacityType: "spot", Price: 0.1,
				ReservationCapacity: 2})},
			wantErr: "reservationCapacity"},
		{name: "B-255 one reservation offered twice by a type in one zone is refused",
			types:   []instancetypes.InstanceType{typ("a", reserved("z1", "cr-1", 1), reserved("z1", "cr-1", 2))},
			wantErr: "Duplicate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cat, err := instancetypes.NewCatalog(tc.types)
			if tc.wantErr != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			if diff := gocmp.Diff(tc.want, cat.ReservationCapacities()); diff != "" {
				t.Errorf("ReservationCapacities (-want +got):\n%s", diff)
			}
		})
	}
}
