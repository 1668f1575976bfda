package scheduler_test

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// reservedType is an instance type with a reservation of capacity places
// at price and a spot offering at ten times that.
func reservedType(name, cpu, zone, resID string, places int, price float64) instancetypes.InstanceType {
	return testutil.InstanceType(name).Label(requirements.LabelArch, "amd64").CPU(cpu).Memory("16Gi").Pods("10").
		OfferingOf(instancetypes.Offering{Zone: zone, CapacityType: requirements.CapacityTypeReserved, Price: price,
			ReservationID: resID, ReservationCapacity: places}).
		Offering(zone, requirements.CapacityTypeSpot, price*10).Obj()
}

// A NodeClaim whose cheapest offering is a reservation with too few
// instance types for the NodePool's minValues lists the types of more
// reservations with room until they meet it, and launches the cheapest;
// when no other reservation has room (or none holds the pods), it
// launches off its reservations, with every option.
func TestReservedNodeClaimMeetsMinValues(t *testing.T) {
	pool := testutil.NodePool("default").Requirement(requirements.LabelInstanceType, corev1.NodeSelectorOpExists).MinValues(2).Obj()
	type claim struct {
		Type, CapacityType, ReservationID string
		Price                             float64
		Options, Reservations             []string
	}
	cases := []struct {
		name  string
		types []instancetypes.InstanceType
		pods  int
		want  []claim
	}{{
		name:  "two reservations meet minValues",
		types: []instancetypes.InstanceType{reservedType("a", "2", "z1", "cr-a", 1, 0.01), reservedType("b", "4", "z2", "cr-b", 1, 0.02)},
		pods:  1,
		want:  []claim{{Type: "a", CapacityType: "reserved", ReservationID: "cr-a", Price: 0.01, Options: []string{"a", "b"}, Reservations: []string{"cr-a", "cr-b"}}},
	}, {
		name:  "the two cheapest of three reservations suffice",
		types: []instancetypes.InstanceType{reservedType("a", "2", "z1", "cr-a", 1, 0.01), reservedType("b", "4", "z2", "cr-b", 1, 0.02), reservedType("d", "8", "z1", "cr-d", 1, 0.03)},
		pods:  1,
		want:  []claim{{Type: "a", CapacityType: "reserved", ReservationID: "cr-a", Price: 0.01, Options: []string{"a", "b"}, Reservations: []string{"cr-a", "cr-b"}}},
	}, {
		name: "one reservation: off reservations",
		types: []instancetypes.InstanceType{reservedType("a", "2", "z1", "cr-a", 1, 0.01),
			testutil.InstanceType("c").Label(requirements.LabelArch, "amd64").CPU("4").Memory("16Gi").Pods("10").Offering("z1", requirements.CapacityTypeSpot, 0.5).Obj()},
		pods: 1,
		want: []claim{{Type: "a", CapacityType: "spot", Price: 0.1, Options: []string{"a", "c"}}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cat, err := instancetypes.NewCatalog(tc.types, instancetypes.WithBaseSchema(aws.Schema()))
			require.NoError(t, err)
			var pods []*corev1.Pod
			for i := range tc.pods {
				pods = append(pods, testutil.Pod(fmt.Sprintf("p%d", i)).CPU("1500m").Obj())
			}
			res := requireVerifies(t, planInput{cat: cat, pools: []nodepool.NodePool{pool}, pods: pods})
			var got []claim
			for _, nc := range res.NodeClaims {
				c := claim{Type: nc.InstanceType, CapacityType: nc.CapacityType, ReservationID: nc.ReservationID, Price: nc.Price, Options: nc.InstanceTypeOptions}
				for _, r := range nc.Requirements {
					if r.Key == "karpenter.k8s.aws/capacity-reservation-id" {
						c.Reservations = r.Values
					}
				}
				got = append(got, c)
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NodeClaims (-want +got):\n%s", diff)
			}
		})
	}
}
