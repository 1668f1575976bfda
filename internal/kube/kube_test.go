package kube_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/internal/kube"
)

func TestNamespaceAndKey(t *testing.T) {
	t.Parallel()
	got := []string{kube.Namespace(""), kube.Namespace("shop"), kube.Key("", "web-0"), kube.Key("shop", "web-0")}
	want := []string{"default", "shop", "default/web-0", "shop/web-0"}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
