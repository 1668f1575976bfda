package instancetypes_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
)

// TestReservationCapacities: one capacity per reservation ID, the smallest
// its offerings state.
func TestReservationCapacities(t *testing.T) {
	t.Parallel()
	reserved := func(zone, id string, capacity int) instancetypes.Offering {
		return instancetypes.Offering{Zone: zone, CapacityType: "reserved", Price: 0.01, ReservationID: id, ReservationCapacity: capacity}
	}
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("a").CPU("2").Memory("4Gi").OfferingOf(reserved("z1", "cr-1", 3)).OfferingOf(reserved("z2", "cr-2", 1)).
			Offering("z1", "on-demand", 0.1).Obj(),
		testutil.InstanceType("b").CPU("2").Memory("4Gi").OfferingOf(reserved("z1", "cr-1", 2)).Obj(),
	})
	require.NoError(t, err)
	if diff := gocmp.Diff(map[string]int{"cr-1": 2, "cr-2": 1}, cat.ReservationCapacities()); diff != "" {
		t.Errorf("ReservationCapacities (-want +got):\n%s", diff)
	}
	none, err := instancetypes.NewCatalog([]instancetypes.InstanceType{testutil.InstanceType("c").CPU("2").Memory("4Gi").Offering("z1", "spot", 0.1).Obj()})
	require.NoError(t, err)
	if got := none.ReservationCapacities(); len(got) != 0 {
		t.Errorf("ReservationCapacities of a catalog without reservations = %v, want none", got)
	}
}
