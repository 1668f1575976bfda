package instancetypes_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestCompatibleOptionalReservation checks that a type with a reserved and
// an ordinary offering stays compatible with requirements that exclude the
// reservation (its ordinary offering carries no reservation ID), and that
// asking for another reservation still rejects it.
func TestCompatibleOptionalReservation(t *testing.T) {
	c := catalog(t, testutil.InstanceType("r").CPU("2").Memory("4Gi").
		OfferingOf(instancetypes.Offering{Zone: zoneA, CapacityType: requirements.CapacityTypeReserved, Price: 0.01,
			ReservationID: "cr-1", ReservationCapacity: 1}).
		Offering(zoneA, onDemand, 0.1))
	it := get(t, c, "r")
	for _, tt := range []struct {
		name string
		req  requirements.Requirement
		want bool
	}{
		{"no reservation", requirements.DoesNotExist(instancetypes.LabelReservationID), true},
		{"not the reservation", requirements.NotIn(instancetypes.LabelReservationID, "cr-1"), true},
		{"the reservation", requirements.In(instancetypes.LabelReservationID, "cr-1"), true},
		{"another reservation", requirements.In(instancetypes.LabelReservationID, "cr-2"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := instancetypes.Compatible(it, requirements.NewRequirements(tt.req)); got != tt.want {
				t.Errorf("Compatible = %v, want %v", got, tt.want)
			}
		})
	}
}
