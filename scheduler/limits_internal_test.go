package scheduler

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestLimitsVectorFormAgrees checks that the solver's per-dimension form
// of the limits (pool.remaining, withinLimits, nodesLeft, overLimit) says
// of every instance type what the one rule says: nodepool.FitsLimits on
// the template's Remaining after its existing nodes' Usage, which is also
// what the plan checker (scheduler/verify) asks.
func TestLimitsVectorFormAgrees(t *testing.T) {
	t.Parallel()
	types := []instancetypes.InstanceType{
		testutil.InstanceType("small").CPU("2").Memory("4Gi").Pods("10").Offering("z1", "on-demand", 0.1).Obj(),
		testutil.InstanceType("large").CPU("8").Memory("32Gi").Pods("30").Offering("z1", "on-demand", 0.4).Obj(),
		testutil.InstanceType("gpu").CPU("4").Memory("16Gi").Pods("20").Capacity("example.com/gpu", "1").Offering("z1", "on-demand", 1).Obj(),
	}
	cat, err := instancetypes.NewCatalog(types)
	if err != nil {
		t.Fatal(err)
	}
	node := func(name, pool string, capacity ...string) *corev1.Node {
		b := testutil.Node(name).Label(requirements.LabelNodePool, pool)
		for i := 0; i < len(capacity); i += 2 {
			b.Capacity(corev1.ResourceName(capacity[i]), capacity[i+1])
		}
		return b.Obj()
	}
	pool := func(name string, limits ...string) nodepool.NodePool {
		b := testutil.NodePool(name)
		for i := 0; i < len(limits); i += 2 {
			b.Limit(corev1.ResourceName(limits[i]), limits[i+1])
		}
		return b.Obj()
	}
	pools := []nodepool.NodePool{
		pool("none"),
		pool("cpu", "cpu", "10"),
		pool("cpu-used", "cpu", "10"),
		pool("cpu-over", "cpu", "4"),
		pool("memory", "memory", "20Gi"),
		pool("nodes", "nodes", "1"),
		pool("nodes-used", "nodes", "1", "cpu", "100"),
		pool("gpu", "example.com/gpu", "0"),
		pool("unknown-within", "example.com/fpga", "2"),
		pool("unknown-over", "example.com/fpga", "1", "cpu", "1000"),
		pool("pods", "pods", "25"),
	}
	nodes := []*corev1.Node{
		node("a", "cpu-used", "cpu", "4", "memory", "8Gi"),
		node("b", "cpu-used", "cpu", "2"),
		node("c", "cpu-over", "cpu", "8"),
		node("d", "nodes-used", "cpu", "2"),
		node("e", "unknown-within", "example.com/fpga", "1"),
		node("f", "unknown-over", "example.com/fpga", "2"),
	}
	cfg, err := resolveFor(cat, []Option{WithExistingNodes(nodes, nil)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSolver(nil, pools, cat, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var zero binpack.Vec
	for _, p := range s.pools {
		remaining := p.tmpl.Remaining(p.tmpl.Usage(nodes))
		for ti := range s.idx.Len() {
			it := s.idx.Type(ti)
			capT := s.idx.Capacity(ti)
			vector := p.nodesLeft != 0 && p.withinLimits(&capT, &zero)
			_, rule := nodepool.FitsLimits(remaining, it.Capacity)
			if vector != rule {
				t.Errorf("pool %s, type %s: the solver's vector form says %v, nodepool.FitsLimits says %v (remaining %s)",
					p.tmpl.Name, it.Name, vector, rule, render(remaining))
			}
		}
	}
}

// render writes a resource list as "name=quantity" pairs, sorted.
func render(list corev1.ResourceList) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(list)) {
		q := list[name]
		parts = append(parts, string(name)+"="+q.String())
	}
	return strings.Join(parts, ", ")
}
