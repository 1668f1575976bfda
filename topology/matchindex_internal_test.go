package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestLabelIndexCandidates checks that the pods the index proposes for a
// selector hold every pod the selector matches, so that Tracker.selected
// gives what a scan of every existing pod gives: for In and Equals the
// proposal is exactly the pods carrying a value, in index order; other
// selectors fall back to the scan.
func TestLabelIndexCandidates(t *testing.T) {
	existing := []ExistingPod{
		{Labels: map[string]string{"app": "web", "tier": "front"}},
		{Labels: map[string]string{"app": "db"}},
		{Labels: map[string]string{"app": "web"}},
		{Labels: map[string]string{"tier": "front"}},
		{Labels: map[string]string{"app": "cache", "tier": "back"}},
		{},
	}
	idx := newLabelIndex(existing)
	tests := []struct {
		name      string
		sel       *metav1.LabelSelector
		want      []int32
		wantIndex bool
	}{
		{"equals", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, []int32{0, 2}, true},
		{"equals on two keys: the rarer", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "back"}}, []int32{4}, true},
		{"in: values merged in order", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web", "cache", "db"}}}}, []int32{0, 1, 2, 4}, true},
		{"value no pod carries", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "none"}}, nil, true},
		{"exists: scan", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpExists}}}, nil, false},
		{"not in: scan", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}}, nil, false},
		{"empty selector: scan", &metav1.LabelSelector{}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := metav1.LabelSelectorAsSelector(tt.sel)
			require.NoError(t, err)
			got, ok := idx.candidates(sel)
			if diff := cmp.Diff(tt.wantIndex, ok); diff != "" {
				t.Fatalf("indexed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			// Whatever the index proposes holds every match.
			for i, ep := range existing {
				if sel.Matches(labels.Set(ep.Labels)) && ok && !containsIdx(got, int32(i)) {
					t.Errorf("pod %d matches but is not proposed", i)
				}
			}
		})
	}
}

func containsIdx(s []int32, i int32) bool {
	for _, x := range s {
		if x == i {
			return true
		}
	}
	return false
}
