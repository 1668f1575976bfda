package compare

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	side := func(bound, refused int, price float64) Side {
		return Side{Placed: bound + refused, Bound: bound, Refused: refused, Price: price}
	}
	ordered := func(s Side, n int) Side { s.OrderBound = n; return s }
	tests := []struct {
		name     string
		np, k    Side
		harness  string
		want     []string
		wantLost bool
	}{
		{"fewer pods bind", side(9, 0, 1), side(10, 0, 2), "", []string{Fewer}, true},
		{"fewer only in Karpenter's queue order", side(9, 0, 1), ordered(side(10, 0, 2), 1), "", []string{Fewer, FewerOrderOnly}, true},
		{"fewer in either order", side(8, 0, 1), ordered(side(10, 0, 2), 1), "", []string{Fewer}, true},
		{"nodeplan binds a pod only in queue order", ordered(side(10, 0, 1), 1), side(10, 0, 1), "", []string{NodeplanOrder, Same}, true},
		{"more pods bind", side(10, 0, 5), side(9, 0, 1), "", []string{More}, false},
		{"same pods, dearer beyond 0.01%", side(10, 0, 1.0002), side(10, 0, 1), "", []string{Costlier}, true},
		{"same pods, dearer, Karpenter's only in queue order", side(10, 0, 1.5), ordered(side(10, 0, 1), 2), "", []string{Costlier, CostlierOrderOnly}, true},
		{"same pods, dearer, both order-bound alike", ordered(side(10, 0, 1.5), 2), ordered(side(10, 0, 1), 2), "", []string{NodeplanOrder, Costlier}, true},
		{"same pods, dearer within 0.01%", side(10, 0, 1.00005), side(10, 0, 1), "", []string{Same}, false},
		{"same pods, cheaper", side(10, 0, 0.9), side(10, 0, 1), "", []string{Cheaper}, false},
		{"nodeplan refused and fewer", side(8, 2, 1), side(10, 0, 1), "", []string{Refused, Fewer}, true},
		{"Karpenter's refused pods do not count for it", side(8, 0, 1), side(8, 5, 1), "", []string{KarpenterRefused, Same}, false},
		{"Karpenter crashed", side(8, 0, 1), Side{Err: "karpenter crashed", Crash: true}, "", []string{KarpenterCrash}, false},
		{"nodeplan failed", Side{Err: "boom"}, side(1, 0, 1), "", []string{NodeplanError}, true},
		{"harness failure", side(1, 0, 1), side(1, 0, 1), "generation failed", []string{HarnessError}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oc := Outcome{Nodeplan: tt.np, Karpenter: tt.k, Err: tt.harness}
			oc.Classes = classify(oc)
			if diff := cmp.Diff(tt.want, oc.Classes); diff != "" {
				t.Errorf("classes (-want +got):\n%s", diff)
			}
			if oc.Lost() != tt.wantLost {
				t.Errorf("Lost() = %v, want %v", oc.Lost(), tt.wantLost)
			}
		})
	}
}

// TestReportCountsHarnessErrors: a scenario the harness cannot load (an
// invalid generated manifest) is a harness error in the report, never a
// scenario that silently belongs to no class.
func TestReportCountsHarnessErrors(t *testing.T) {
	outs := []Outcome{failed(Outcome{Seed: 7}, errors.New("scenario.yaml: document 3: Duplicate value"))}
	var b strings.Builder
	if err := Report(&b, Options{Seed: 7, Runs: 1, Jobs: 1}, outs, 0); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^harness-error\s+1\s+7$`)
	if !want.MatchString(b.String()) {
		t.Errorf("report does not count the harness error:\n%s", b.String())
	}
}
