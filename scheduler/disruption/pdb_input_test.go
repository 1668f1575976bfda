package disruption_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// TestPDBInputErrors: a PodDisruptionBudget the API server rejects is an
// InputError naming the budget and its field, whether or not its status
// gives the disruptions allowed.
func TestPDBInputErrors(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		minAvailable, maxUnavail *intstr.IntOrString
		field, message           string
	}{
		{"a negative maxUnavailable", nil, ptrTo(intstr.FromInt32(-1)), "spec.maxUnavailable", "must be greater than or equal to 0"},
		{"minAvailable above 100%", ptrTo(intstr.FromString("150%")), nil, "spec.minAvailable", "must not be greater than 100%"},
		{"a fractional percentage", nil, ptrTo(intstr.FromString("2.5%")), "spec.maxUnavailable", "a valid percent string"},
		{"both", ptrTo(intstr.FromInt32(1)), ptrTo(intstr.FromInt32(1)), "spec", "cannot both be set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newCluster(t)
			n := b.node("n1", "default", "m.large", "zone-a", "on-demand")
			b.pod("db-0", n.Name, "100m").Labels["app"] = "db"
			b.pdb("db", "default", map[string]string{"app": "db"}, intstr.FromInt32(0), 0)
			b.c.PodDisruptionBudgets[0].Spec.MinAvailable, b.c.PodDisruptionBudgets[0].Spec.MaxUnavailable = tc.minAvailable, tc.maxUnavail
			_, err := disruption.Plan(b.c, []nodepool.NodePool{defaultPool()}, b.catalog, testNow())
			var ie *disruption.InputError
			require.True(t, errors.As(err, &ie), "%v", err)
			require.Equal(t, "PodDisruptionBudget", ie.Kind)
			require.Equal(t, "db", ie.Name)
			require.Equal(t, tc.field, ie.Field)
			require.Contains(t, ie.Message, tc.message)
		})
	}
}
