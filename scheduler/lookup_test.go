package scheduler_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/scheduler"
)

func TestResultPod(t *testing.T) {
	t.Parallel()
	res := scheduler.Result{
		NodeClaims: []scheduler.NodeClaim{
			{Name: "default-1", NodePool: "default", Pods: []string{"default/a", "shop/b"}},
			{Name: "gpu-1", NodePool: "gpu", Pods: []string{"default/c"}},
		},
		ExistingNodes: []scheduler.NodePlacement{{Name: "node-a", Pods: []string{"default/d"}}},
		PodErrors:     []scheduler.PodError{{Pod: "default/e", Code: scheduler.ReasonTaint, Reason: "taint"}},
	}
	type got struct {
		Pod, NodeClaim, Node string
		Code                 scheduler.ReasonCode
		Placed, Found        bool
	}
	lookup := func(name string) got {
		p, ok := res.Pod(name)
		g := got{Pod: p.Pod, Node: p.Node, Placed: p.Placed(), Found: ok}
		if p.NodeClaim != nil {
			g.NodeClaim = p.NodeClaim.Name
		}
		if p.Error != nil {
			g.Code = p.Error.Code
		}
		return g
	}
	tests := []struct {
		name string
		want got
	}{
		{"a", got{Pod: "default/a", NodeClaim: "default-1", Placed: true, Found: true}},
		{"default/a", got{Pod: "default/a", NodeClaim: "default-1", Placed: true, Found: true}},
		{"shop/b", got{Pod: "shop/b", NodeClaim: "default-1", Placed: true, Found: true}},
		{"b", got{}}, // a bare name is a pod of namespace default
		{"c", got{Pod: "default/c", NodeClaim: "gpu-1", Placed: true, Found: true}},
		{"d", got{Pod: "default/d", Node: "node-a", Placed: true, Found: true}},
		{"e", got{Pod: "default/e", Code: scheduler.ReasonTaint, Found: true}},
	}
	for _, tt := range tests {
		if diff := gocmp.Diff(tt.want, lookup(tt.name)); diff != "" {
			t.Errorf("Pod(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if nc, ok := res.NodeClaim("gpu-1"); !ok || nc.NodePool != "gpu" {
		t.Errorf("NodeClaim(gpu-1) = %v, %v; want the gpu NodeClaim", nc, ok)
	}
	if _, ok := res.NodeClaim("gpu-2"); ok {
		t.Errorf("NodeClaim(gpu-2) found; want none")
	}
}
