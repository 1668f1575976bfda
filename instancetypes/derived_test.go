package instancetypes_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestDerived checks that a derived value is built once per catalog and
// shared by its copies, kept apart per key and per catalog, and that a zero
// Catalog builds every time.
func TestDerived(t *testing.T) {
	c := catalog(t, testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 0.1))
	var builds atomic.Int32
	build := func(v string) func() any {
		return func() any { builds.Add(1); return v }
	}
	if got := c.Derived("k", build("first")); got != "first" {
		t.Fatalf("first Derived = %v", got)
	}
	cp := c
	if got := cp.Derived("k", build("second")); got != "first" {
		t.Errorf("a copy rebuilt the value: got %v, want first", got)
	}
	if got := c.Derived("other", build("other")); got != "other" {
		t.Errorf("another key shares the value: got %v", got)
	}
	d := catalog(t, testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 0.1))
	if got := d.Derived("k", build("d")); got != "d" {
		t.Errorf("another catalog shares the value: got %v", got)
	}
	if n := builds.Load(); n != 3 {
		t.Errorf("%d builds, want 3", n)
	}
	var zero instancetypes.Catalog
	zero.Derived("k", build("z"))
	zero.Derived("k", build("z"))
	if n := builds.Load(); n != 5 {
		t.Errorf("zero Catalog: %d builds in all, want 5", n)
	}
}

// TestDerivedConcurrent checks that concurrent callers all get one value.
func TestDerivedConcurrent(t *testing.T) {
	c := catalog(t, testutil.InstanceType("a").CPU("2").Memory("4Gi").Offering(zoneA, onDemand, 0.1))
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			got[i] = c.Derived("k", func() any { return new(int) })
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("caller %d got a different value", i)
		}
	}
}

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
