package scheduler

import (
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
)

// swapSolver plans six cpu-heavy pods (5 cpu, 1Gi) and six memory-heavy
// ones (1 cpu, 12Gi) on types tN of N cpu and 2N Gi at $0.10 per cpu,
// greedily, with the improvement phase's indexes built: two claims full on
// cpu (three cpu pods and a memory pod) and two full on memory (two memory
// pods).
func swapSolver(t *testing.T) *solver {
	t.Helper()
	var types []instancetypes.InstanceType
	for n := 1; n <= 16; n++ {
		types = append(types, testutil.InstanceType(fmt.Sprintf("t%02d", n)).CPU(fmt.Sprint(n)).Memory(fmt.Sprintf("%dGi", 2*n)).Pods("110").Offering("z1", "on-demand", 0.1*float64(n)).Obj())
	}
	cat, err := instancetypes.NewCatalog(types)
	if err != nil {
		t.Fatal(err)
	}
	var pods []*corev1.Pod
	for i := range 6 {
		pods = append(pods, testutil.Pod(fmt.Sprintf("cpu-%d", i)).CPU("5").Memory("1Gi").Obj())
		pods = append(pods, testutil.Pod(fmt.Sprintf("mem-%d", i)).CPU("1").Memory("12Gi").Obj())
	}
	return greedyPlan(t, cat, pods)
}

// podOf returns the first pod of cl whose name starts with prefix.
func podOf(t *testing.T, cl *claim, prefix string) *pending {
	t.Helper()
	for _, pp := range cl.pods {
		if len(pp.name) > len(prefix) && pp.name[:len(prefix)] == prefix {
			return pp
		}
	}
	t.Fatalf("claim %d holds no %s pod", cl.id, prefix)
	return nil
}

// A swap of a cpu pod of a claim full on cpu for a memory pod of a claim
// full on memory is kept, and lowers the two claims' price; a swap of two
// memory pods gains nothing and leaves every claim as it was, with the
// journal closed.
func TestTrySwap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		fromX, fromY   string
		wantKept       bool
		wantPriceBelow float64
	}{
		{name: "cpu pod for memory pod", fromX: "default/cpu-", fromY: "default/mem-", wantKept: true, wantPriceBelow: 2.8},
		{name: "memory pod for memory pod", fromX: "default/mem-", fromY: "default/mem-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := swapSolver(t)
			var x, y *claim
			for _, cl := range s.liveClaims() {
				switch {
				case x == nil && tightest(cl) == 0:
					x = cl
				case y == nil && tightest(cl) == 1:
					y = cl
				}
			}
			if x == nil || y == nil {
				t.Fatalf("greedy placement left no claim full on cpu and one full on memory: %+v", viewClaims(s))
			}
			before, pair := viewClaims(s), x.price+y.price
			a, b := podOf(t, x, tc.fromX), podOf(t, y, tc.fromY)
			budget := 10000
			if got := s.trySwap(a, b, &budget); got != tc.wantKept {
				t.Fatalf("trySwap kept = %v, want %v", got, tc.wantKept)
			}
			if s.journaling || len(s.journal) > 0 {
				t.Errorf("journal left open: %d entries", len(s.journal))
			}
			if tc.wantKept {
				if got := x.price + y.price; got >= tc.wantPriceBelow || got >= pair {
					t.Errorf("two claims' price after the swap %.2f (before %.2f), want below %.2f", got, pair, tc.wantPriceBelow)
				}
				if a.claim != y || b.claim != x {
					t.Errorf("pods not swapped: %s on claim %d, %s on claim %d", a.name, a.claim.id, b.name, b.claim.id)
				}
				return
			}
			if diff := gocmp.Diff(before, viewClaims(s)); diff != "" {
				t.Errorf("claims after a swap that did not pay (-before +after):\n%s", diff)
			}
		})
	}
}
