package disruption

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
)

// TestUnitOrder: the order the global search's subsets take a pool's
// candidates in. Three c.2xlarge (8 cpu at $0.8: $0.1 a cpu) hold 7.5 cpu
// of pods each and two r.large (2 cpu at $0.3: $0.15 a cpu) 1.5 each:
// 25.5 cpu, so the walk keeps the c.2xlarge and one r.large: the other
// (r1 here) is the surplus, first either way. Dearest first then puts the
// c.2xlarge before r2; PreferLowerPrice's order, dearest per unit of room
// first, puts r2 first and keeps the nodes cheap for their room to the end.
func TestUnitOrder(t *testing.T) {
	b := &dmCluster{t: t}
	for _, x := range []struct {
		name, typ string
		pods      int
	}{{"c1", "c.2xlarge", 75}, {"c2", "c.2xlarge", 75}, {"c3", "c.2xlarge", 75}, {"r1", "r.large", 15}, {"r2", "r.large", 15}} {
		b.claim(b.node(x.name, "default", x.typ, "test-zone-1"))
		b.pods(x.name, x.pods)
	}
	var types []instancetypes.InstanceType
	for _, x := range []struct {
		name, cpu string
		price     float64
	}{{"c.2xlarge", "8", 0.8}, {"r.large", "2", 0.3}} {
		types = append(types, testutil.InstanceType(x.name).CPU(x.cpu).Memory("64Gi").Pods("110").
			Label("kubernetes.io/arch", "amd64").Label("kubernetes.io/os", "linux").
			Offering("test-zone-1", "on-demand", x.price).Obj())
	}
	catalog, err := instancetypes.NewCatalog(types)
	require.NoError(t, err)
	m := b.model([]nodepool.NodePool{dmPool("default", "WhenEmptyOrUnderutilized")}, catalog)
	cands, _ := m.consolidationCandidates()
	require.Len(t, cands, 5)
	names := func(cs []*candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.n.name)
		}
		return out
	}
	order := byWaste(cands)
	require.Equal(t, []string{"r1", "c1", "c2", "c3", "r2"}, names(m.bySurplus("default", order)))
	m.cfg.unitOrder = true
	require.Equal(t, []string{"r1", "r2", "c1", "c2", "c3"}, names(m.bySurplus("default", order)))
}
