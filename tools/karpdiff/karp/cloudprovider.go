package karp

import (
	"context"
	"errors"

	"github.com/awslabs/operatorpkg/status"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
)

// offlineProvider is the cloud provider of an offline run: it lists the
// catalog's instance types for every NodePool (a real provider filters by
// node class, which scenarios do not model) and launches nothing.
type offlineProvider struct {
	types []*cloudprovider.InstanceType
}

var _ cloudprovider.CloudProvider = (*offlineProvider)(nil)

var errOffline = errors.New("karpdiff: offline cloud provider launches nothing")

func (p *offlineProvider) Create(context.Context, *karpv1.NodeClaim) (*karpv1.NodeClaim, error) {
	return nil, errOffline
}
func (p *offlineProvider) Delete(context.Context, *karpv1.NodeClaim) error { return errOffline }
func (p *offlineProvider) Get(context.Context, string) (*karpv1.NodeClaim, error) {
	return nil, errOffline
}
func (p *offlineProvider) List(context.Context) ([]*karpv1.NodeClaim, error) { return nil, nil }
func (p *offlineProvider) GetInstanceTypes(context.Context, *karpv1.NodePool) ([]*cloudprovider.InstanceType, error) {
	return p.types, nil
}
func (p *offlineProvider) IsDrifted(context.Context, *karpv1.NodeClaim) (cloudprovider.DriftReason, error) {
	return "", nil
}
func (p *offlineProvider) RepairPolicies() []cloudprovider.RepairPolicy { return nil }
func (p *offlineProvider) Name() string                                 { return "karpdiff" }
func (p *offlineProvider) GetSupportedNodeClasses() []status.Object     { return nil }
