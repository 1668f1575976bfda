package nodepool_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// AWS label keys the tests use. The real AWS schema lives in
// instancetypes/aws; nodepool must not import it.
const (
	labelInstanceFamily     = "karpenter.k8s.aws/instance-family"
	labelInstanceCategory   = "karpenter.k8s.aws/instance-category"
	labelInstanceGeneration = "karpenter.k8s.aws/instance-generation"
	labelLocalNVMe          = "karpenter.k8s.aws/instance-local-nvme"
	labelNetworkBandwidth   = "karpenter.k8s.aws/instance-network-bandwidth"
	labelEC2NodeClass       = "karpenter.k8s.aws/ec2nodeclass"
)

// testSchema is the default schema plus the AWS keys the seed NodePools use,
// with the karpenter.k8s.aws domain restricted, as the AWS provider does.
func testSchema() requirements.Schema {
	return requirements.DefaultSchema().
		WithWellKnown(labelInstanceFamily, labelInstanceCategory, labelInstanceGeneration,
			labelLocalNVMe, labelNetworkBandwidth, labelEC2NodeClass).
		WithRestrictedDomains("karpenter.k8s.aws")
}

// fieldErr is the part of a field.Error the tests assert: its kind and path.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func fieldErrs(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{Type: e.Type, Field: e.Field})
	}
	return out
}

// invalidErr asserts err is an *InvalidError and returns it.
func invalidErr(t *testing.T, err error) *nodepool.InvalidError {
	t.Helper()
	var ie *nodepool.InvalidError
	require.True(t, errors.As(err, &ie), "want *nodepool.InvalidError, got %T: %v", err, err)
	return ie
}

func mustTemplate(t *testing.T, np nodepool.NodePool) nodepool.Template {
	t.Helper()
	tmpl, err := nodepool.NewTemplate(np, testSchema())
	require.NoError(t, err)
	return tmpl
}

// amd64Type and arm64Type are instance-type requirements as a catalog
// derives them: one value per label, offerings' zones and capacity types.
func amd64Type() requirements.Requirements {
	return requirements.NewRequirements(
		requirements.In(requirements.LabelArch, "amd64"),
		requirements.In(requirements.LabelOS, "linux"),
		requirements.In(requirements.LabelInstanceType, "m5.large"),
		requirements.In(labelInstanceFamily, "m5"),
		requirements.DoesNotExist(labelLocalNVMe),
		requirements.In(requirements.LabelTopologyZone, "us-east-1a", "us-east-1b"),
		requirements.In(requirements.LabelCapacityType, "on-demand", "spot"),
	)
}

func arm64Type() requirements.Requirements {
	return requirements.NewRequirements(
		requirements.In(requirements.LabelArch, "arm64"),
		requirements.In(requirements.LabelOS, "linux"),
		requirements.In(requirements.LabelInstanceType, "m6g.large"),
		requirements.In(labelInstanceFamily, "m6g"),
		requirements.DoesNotExist(labelLocalNVMe),
		requirements.In(requirements.LabelTopologyZone, "us-east-1a", "us-east-1b"),
		requirements.In(requirements.LabelCapacityType, "on-demand", "spot"),
	)
}

func p3Type() requirements.Requirements {
	return requirements.NewRequirements(
		requirements.In(requirements.LabelArch, "amd64"),
		requirements.In(requirements.LabelOS, "linux"),
		requirements.In(requirements.LabelInstanceType, "p3.2xlarge"),
		requirements.In(labelInstanceFamily, "p3"),
		requirements.DoesNotExist(labelLocalNVMe),
		requirements.In(requirements.LabelTopologyZone, "us-east-1a"),
		requirements.In(requirements.LabelCapacityType, "on-demand"),
	)
}
