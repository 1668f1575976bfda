package topology_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestAffinityRuledOutBySpread: a pod requiring a db pod's zone and
// spreading its own pods over zones (maxSkew 1) is refused where the only
// db pod runs, zone a, which its spread rules out. The refusal names the
// spread and the zone it took away, not "no matching pod in any domain".
func TestAffinityRuledOutBySpread(t *testing.T) {
	t.Parallel()
	nA := zoneNode("na", zoneA)
	tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nA)}, nil,
		[]topology.ExistingPod{bound(nA, map[string]string{"app": "db", "tier": "web"})})
	api := testutil.Pod("api").Label("tier", "web").Spread(zoneKey, 1, corev1.DoNotSchedule, map[string]string{"tier": "web"}).
		PodAffinity(zoneKey, db).Obj()
	p := register(t, tr, specOf(api))[0]
	pins, v := tr.Check(p, allTerms, openClaim("c"), nil)
	require.Nil(t, pins)
	require.NotNil(t, v, "Check allowed the pod")
	require.Equal(t, topology.Affinity, v.Kind)
	msg := v.Message()
	require.True(t, strings.HasPrefix(msg, "pod affinity on topology.kubernetes.io/zone (app=db): the domains holding a matching pod (us-east-1a) are ruled out by topology spread on topology.kubernetes.io/zone (tier=web): maxSkew 1 would be exceeded"), msg)
}
