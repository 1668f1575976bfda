package disrupt

import (
	"context"
	"errors"

	"github.com/awslabs/operatorpkg/status"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	testv1alpha1 "sigs.k8s.io/karpenter/pkg/test/v1alpha1"
)

// provider is the cloud provider of an offline disruption run: every
// NodePool gets the catalog's instance types, the supported node class is
// Karpenter's test one, a NodeClaim is drifted on the cloud side when its
// input carried a True Drifted condition, and nothing is launched.
type provider struct {
	types   []*cloudprovider.InstanceType
	drifted map[string]cloudprovider.DriftReason
}

var _ cloudprovider.CloudProvider = (*provider)(nil)

var errOffline = errors.New("karpdiff: offline cloud provider launches nothing")

func (p *provider) Create(context.Context, *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return nil, errOffline
}
func (p *provider) Delete(context.Context, *karpv1.NodeClaim) error { return errOffline }
func (p *provider) Get(context.Context, string) (*karpv1.NodeClaim, error) {
	return nil, errOffline
}
func (p *provider) List(context.Context) ([]*karpv1.NodeClaim, error) { return nil, nil }
func (p *provider) GetInstanceTypes(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	return p.types, nil
}
func (p *provider) IsDrifted(_ context.Context, nc *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	return p.drifted[nc.Name], nil
}
func (p *provider) RepairPolicies() []cloudprovider.RepairPolicy { return nil }
func (p *provider) Name() string                                 { return "karpdiff" }
func (p *provider) GetSupportedNodeClasses() []status.Object {
	return []status.Object{&testv1alpha1.TestNodeClass{}}
}
