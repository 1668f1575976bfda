package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestHostNodeDomainKeepsSlotsPerTracker asks two trackers, whose domain
// indexes differ, for a node's domains through one host's slots, in turn:
// each answer is the tracker's own (nodeDomain's), whether the slots were
// filled by it, by the other tracker, or not at all, for a label the node
// has, its hostname and a label it lacks.
func TestHostNodeDomainKeepsSlotsPerTracker(t *testing.T) {
	const zone = "topology.kubernetes.io/zone"
	n := &Node{Name: "n1", Labels: map[string]string{zone: "b"}}
	t1 := New(requirements.DefaultSchema(), nil, nil, nil)
	t2 := New(requirements.DefaultSchema(), nil, nil, nil)
	t1.key(zone).intern("a") // "b" is 1 in t1, 0 in t2
	t1.key(requirements.LabelHostname).intern("n0")
	h := &Host{Node: n, NodeDomains: &NodeDomains{}}
	type answer struct {
		D  int32
		OK bool
	}
	for i, tr := range []*Tracker{t1, t1, t2, t2, t1} {
		for _, key := range []string{zone, requirements.LabelHostname, "team"} {
			ks := tr.key(key)
			d, ok := tr.nodeDomain(ks, n)
			want := answer{d, ok}
			d, ok = tr.hostNodeDomain(ks, h)
			if diff := cmp.Diff(want, answer{d, ok}); diff != "" {
				t.Errorf("ask %d, key %s (-nodeDomain +through the slots):\n%s", i, key, diff)
			}
		}
	}
}
