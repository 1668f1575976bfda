package karp

import (
	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// awsDomain and awsEBSZone are the AWS provider's restricted label domain
// and the EBS CSI driver's zone label, which it normalises to the zone.
const (
	awsDomain    = "karpenter.k8s.aws"
	awsEBSZone   = "topology.ebs.csi.aws.com/zone"
	awsNodeClass = "karpenter.k8s.aws/ec2nodeclass"
	awsTenancy   = "karpenter.k8s.aws/instance-tenancy"
)

// RegisterVocabulary makes Karpenter know the catalog's label vocabulary, as
// a cloud provider does in its init: every label key of the catalog, the
// zone ID and the capacity-reservation ID become well-known labels (the
// cloud decides their values, so pods may select them without a NodePool
// declaring them), and the reservation-ID label is the one reserved
// offerings carry. With builtin (nodeplan's built-in AWS catalog) it also
// registers what Karpenter's AWS provider does beyond that: the EBS CSI zone
// label as an alias of the zone, karpenter.k8s.aws as a restricted domain,
// the node-class and tenancy labels as well-known. nodeplan's catalog-file
// vocabulary is the catalog's keys only, so a catalog file gets no alias.
//
// It writes Karpenter's package-level variables: call it once per process,
// before any solve.
func RegisterVocabulary(cat instancetypes.Catalog, builtin bool) {
	karpv1.WellKnownLabels.Insert(catalogLabelKeys(cat)...)
	karpv1.WellKnownLabels.Insert(labelZoneID, labelReservationID)
	cloudprovider.ReservationIDLabel = labelReservationID
	cloudprovider.ReservedCapacityLabels.Insert(labelReservationID)
	if builtin || cat.Schema().Normalize(awsEBSZone) == corev1.LabelTopologyZone {
		karpv1.WellKnownLabels.Insert(awsNodeClass, awsTenancy)
		karpv1.RestrictedLabelDomains.Insert(awsDomain)
		karpv1.NormalizedLabels[awsEBSZone] = corev1.LabelTopologyZone
	}
}
