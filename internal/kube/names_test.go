package kube

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareNames(t *testing.T) {
	names := []string{"default/web-10", "default/web-2", "default/web-1", "a/x", "default/web-02", "default/web-9", "default/web", "default/g10-0", "default/g2-5"}
	slices.SortFunc(names, CompareNames)
	want := []string{"a/x", "default/g10-0", "default/g2-5", "default/web", "default/web-1", "default/web-02", "default/web-2", "default/web-9", "default/web-10"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	for _, n := range names {
		for _, m := range names {
			if CompareNames(n, m) != -CompareNames(m, n) || (CompareNames(n, m) == 0) != (n == m) {
				t.Errorf("CompareNames(%q, %q) is not a total order", n, m)
			}
		}
	}
}
