package scheduler

import (
	"fmt"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
)

// claimView is what a test compares of a claim: its pods, type, price and
// requirement set.
type claimView struct {
	ID      int
	Dropped bool
	Pods    []string
	Type    int
	Price   float64
	ReqID   int32
}

func viewClaims(s *solver) []claimView {
	var out []claimView
	for _, cl := range s.claims {
		v := claimView{ID: cl.id, Dropped: cl.dropped, Type: cl.typ, Price: cl.price, ReqID: cl.reqID}
		for _, pp := range cl.pods {
			v.Pods = append(v.Pods, pp.name)
		}
		slices.Sort(v.Pods)
		out = append(out, v)
	}
	return out
}

// greedyPlan places pods on one default NodePool of cat greedily (no
// improvement phase), with the improvement phase's indexes built.
func greedyPlan(t *testing.T, cat instancetypes.Catalog, pods []*corev1.Pod) *solver {
	t.Helper()
	cfg, err := resolveFor(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSolver(pods, []nodepool.NodePool{testutil.NodePool("default").Obj()}, cat, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.run()
	s.buildSlack()
	s.slackBuilt = true
	s.noRoom = map[noRoomKey]*moveMemo{}
	return s
}

// ejectSolver plans two wide pods and narrow ones on a type of at most
// four pods, greedily (the wide pods share claim 0), with the improvement
// phase's indexes built.
func ejectSolver(t *testing.T, narrow int) *solver {
	t.Helper()
	cat, err := instancetypes.NewCatalog([]instancetypes.InstanceType{
		testutil.InstanceType("node4").CPU("8").Memory("32Gi").Pods("4").Offering("z1", "on-demand", 0.25).Obj(),
	})
	if err != nil {
		t.Fatal(err)
	}
	var pods []*corev1.Pod
	for i := range 2 {
		pods = append(pods, testutil.Pod(fmt.Sprintf("wide-%d", i)).CPU("3500m").Memory("4Gi").Obj())
	}
	for i := range narrow {
		pods = append(pods, testutil.Pod(fmt.Sprintf("narrow-%02d", i)).CPU("1150m").Memory("4Gi").Obj())
	}
	s := greedyPlan(t, cat, pods)
	if got := s.claims[0].pods; len(got) != 2 || got[0].cls.requests[0] != got[1].cls.requests[0] {
		t.Fatalf("greedy placement did not put the two wide pods on claim 0")
	}
	return s
}

// An ejection drain empties the wide pods' claim when the narrow pods can
// make room for them (a node of one narrow pod takes one from a full node,
// twice), and otherwise leaves every claim as it was: with a node of three
// narrow pods, the first wide pod moves by an ejection and the second finds
// no room, so both moves go back.
func TestEjectDrain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		narrow      int
		wantDropped bool
	}{
		{name: "a node of one takes the pods ejected", narrow: 25, wantDropped: true},
		{name: "room for one ejection only: everything goes back", narrow: 27},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := ejectSolver(t, tc.narrow)
			before, price := viewClaims(s), s.totalPrice()
			budget := 10000
			s.ejectDrain(s.claims[0], s.byPrice(), &budget)
			if got := s.claims[0].dropped; got != tc.wantDropped {
				t.Fatalf("claim 0 dropped = %v, want %v", got, tc.wantDropped)
			}
			if tc.wantDropped {
				if got := s.totalPrice(); got > price-0.25+priceEps {
					t.Errorf("price after the drain %.4f, want at most %.4f", got, price-0.25)
				}
				return
			}
			if diff := gocmp.Diff(before, viewClaims(s)); diff != "" {
				t.Errorf("claims after a drain that failed (-before +after):\n%s", diff)
			}
			if s.journaling || len(s.journal) > 0 {
				t.Errorf("journal left open: %d entries", len(s.journal))
			}
		})
	}
}
