package aws_test

import (
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/requirements"
)

// fieldErrors lists "Type Field" of each error of an aggregate of field errors.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	var agg utilerrors.Aggregate
	require.ErrorAs(t, err, &agg)
	var out []string
	for _, e := range agg.Errors() {
		var fe *field.Error
		require.ErrorAs(t, e, &fe)
		out = append(out, string(fe.Type)+" "+fe.Field)
	}
	return out
}

func TestSchema(t *testing.T) {
	t.Parallel()
	s := aws.Schema()
	catalogSchema := load(t).Schema()
	// The seed document's well-known AWS keys, plus the offering and node
	// class keys.
	wellKnown := []string{
		"karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-family", "karpenter.k8s.aws/instance-generation",
		"karpenter.k8s.aws/instance-size", "karpenter.k8s.aws/instance-cpu", "karpenter.k8s.aws/instance-cpu-manufacturer",
		"karpenter.k8s.aws/instance-memory", "karpenter.k8s.aws/instance-ebs-bandwidth", "karpenter.k8s.aws/instance-network-bandwidth",
		"karpenter.k8s.aws/instance-pods", "karpenter.k8s.aws/instance-hypervisor", "karpenter.k8s.aws/instance-encryption-in-transit-supported",
		"karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-count",
		"karpenter.k8s.aws/instance-gpu-memory", "karpenter.k8s.aws/instance-local-nvme",
		"topology.k8s.aws/zone-id", "karpenter.k8s.aws/ec2nodeclass", "karpenter.k8s.aws/capacity-reservation-id", "karpenter.k8s.aws/instance-tenancy",
		// core keys of requirements.DefaultSchema
		requirements.LabelTopologyZone, requirements.LabelCapacityType, requirements.LabelArch,
	}
	// Every label key of the raw data.
	for _, r := range rawTypes(t) {
		for k := range r.Labels {
			if !slices.Contains(wellKnown, k) {
				wellKnown = append(wellKnown, k)
			}
		}
	}
	for _, k := range wellKnown {
		if !s.IsWellKnown(k) {
			t.Errorf("Schema().IsWellKnown(%q) = false", k)
		}
		if !catalogSchema.IsWellKnown(k) {
			t.Errorf("Catalog().Schema().IsWellKnown(%q) = false", k)
		}
		if s.IsRestricted(k) {
			t.Errorf("Schema().IsRestricted(%q) = true", k)
		}
	}
	tests := []struct {
		key            string
		wantNormalized string
		wantRestricted bool
		wantWellKnown  bool
	}{
		{key: "topology.ebs.csi.aws.com/zone", wantNormalized: requirements.LabelTopologyZone, wantWellKnown: true},
		{key: "karpenter.k8s.aws/instance-family", wantNormalized: "karpenter.k8s.aws/instance-family", wantWellKnown: true},
		{key: "karpenter.k8s.aws/made-up", wantNormalized: "karpenter.k8s.aws/made-up", wantRestricted: true},
		{key: "sub.karpenter.k8s.aws/x", wantNormalized: "sub.karpenter.k8s.aws/x", wantRestricted: true},
		{key: "karpenter.sh/made-up", wantNormalized: "karpenter.sh/made-up", wantRestricted: true},
		{key: "example.com/team", wantNormalized: "example.com/team"},
	}
	for _, tc := range tests {
		got := []any{s.Normalize(tc.key), s.IsRestricted(tc.key), s.IsWellKnown(tc.key)}
		if diff := gocmp.Diff([]any{tc.wantNormalized, tc.wantRestricted, tc.wantWellKnown}, got); diff != "" {
			t.Errorf("%s: Normalize, IsRestricted, IsWellKnown (-want +got):\n%s", tc.key, diff)
		}
	}
}
