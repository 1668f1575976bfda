package aws

import (
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// Label keys of Karpenter's AWS provider. Numeric ones are plain integers
// (memory and GPU memory in MiB, bandwidths in Mbit/s, local NVMe in GB), so
// Gt and Lt compare them.
const (
	LabelInstanceCategory                     = "karpenter.k8s.aws/instance-category"
	LabelInstanceFamily                       = "karpenter.k8s.aws/instance-family"
	LabelInstanceGeneration                   = "karpenter.k8s.aws/instance-generation"
	LabelInstanceSize                         = "karpenter.k8s.aws/instance-size"
	LabelInstanceCPU                          = "karpenter.k8s.aws/instance-cpu"
	LabelInstanceCPUManufacturer              = "karpenter.k8s.aws/instance-cpu-manufacturer"
	LabelInstanceCPUSustainedClockSpeedMhz    = "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz"
	LabelInstanceMemory                       = "karpenter.k8s.aws/instance-memory"
	LabelInstanceEBSBandwidth                 = "karpenter.k8s.aws/instance-ebs-bandwidth"
	LabelInstanceNetworkBandwidth             = "karpenter.k8s.aws/instance-network-bandwidth"
	LabelInstancePods                         = "karpenter.k8s.aws/instance-pods"
	LabelInstanceHypervisor                   = "karpenter.k8s.aws/instance-hypervisor"
	LabelInstanceEncryptionInTransitSupported = "karpenter.k8s.aws/instance-encryption-in-transit-supported"
	LabelInstanceCapabilityFlex               = "karpenter.k8s.aws/instance-capability-flex"
	LabelInstanceGPUName                      = "karpenter.k8s.aws/instance-gpu-name"
	LabelInstanceGPUManufacturer              = "karpenter.k8s.aws/instance-gpu-manufacturer"
	LabelInstanceGPUCount                     = "karpenter.k8s.aws/instance-gpu-count"
	LabelInstanceGPUMemory                    = "karpenter.k8s.aws/instance-gpu-memory"
	LabelInstanceAcceleratorName              = "karpenter.k8s.aws/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer      = "karpenter.k8s.aws/instance-accelerator-manufacturer"
	LabelInstanceAcceleratorCount             = "karpenter.k8s.aws/instance-accelerator-count"
	LabelInstanceLocalNVMe                    = "karpenter.k8s.aws/instance-local-nvme"
	LabelInstanceTenancy                      = "karpenter.k8s.aws/instance-tenancy"
	LabelNodeClass                            = "karpenter.k8s.aws/ec2nodeclass"
	LabelCapacityReservationID                = instancetypes.LabelReservationID
	LabelZoneID                               = instancetypes.LabelZoneID

	// LabelEBSCSIZone is the EBS CSI driver's zone label, an alias of
	// topology.kubernetes.io/zone.
	LabelEBSCSIZone = "topology.ebs.csi.aws.com/zone"

	// Domain is the label domain of Karpenter's AWS provider. Users may not
	// set its keys in NodePools or require them of pods, except the
	// well-known ones.
	Domain = "karpenter.k8s.aws"
)

// wellKnownLabels lists the AWS keys whose values the cloud decides: the
// labels of Karpenter's AWS provider (every one any type of the built-in
// data carries among them), the zone ID, the node class, the capacity
// reservation and the tenancy. A fresh slice each call.
func wellKnownLabels() []string {
	return []string{
		LabelInstanceCategory,
		LabelInstanceFamily,
		LabelInstanceGeneration,
		LabelInstanceSize,
		LabelInstanceCPU,
		LabelInstanceCPUManufacturer,
		LabelInstanceCPUSustainedClockSpeedMhz,
		LabelInstanceMemory,
		LabelInstanceEBSBandwidth,
		LabelInstanceNetworkBandwidth,
		LabelInstancePods,
		LabelInstanceHypervisor,
		LabelInstanceEncryptionInTransitSupported,
		LabelInstanceCapabilityFlex,
		LabelInstanceGPUName,
		LabelInstanceGPUManufacturer,
		LabelInstanceGPUCount,
		LabelInstanceGPUMemory,
		LabelInstanceAcceleratorName,
		LabelInstanceAcceleratorManufacturer,
		LabelInstanceAcceleratorCount,
		LabelInstanceLocalNVMe,
		LabelInstanceTenancy,
		LabelNodeClass,
		LabelCapacityReservationID,
		LabelZoneID,
	}
}

// Schema returns the AWS label vocabulary: requirements.DefaultSchema plus
// every key of Karpenter's AWS provider as a well-known label (the
// instance-* labels, zone ID, EC2NodeClass, capacity reservation ID,
// tenancy), topology.ebs.csi.aws.com/zone as an alias of
// topology.kubernetes.io/zone, and karpenter.k8s.aws as a restricted domain
// (its well-known keys stay allowed). A fresh value each call; [Catalog]
// names the provider "aws" and passes [Vocabulary], so Catalog.Schema
// carries it.
func Schema() requirements.Schema {
	return requirements.DefaultSchema().
		WithWellKnown(wellKnownLabels()...).
		WithAliases(map[string]string{LabelEBSCSIZone: requirements.LabelTopologyZone}).
		WithRestrictedDomains(Domain)
}

// Provider is the name a catalog file gives the AWS vocabulary:
// "provider": "aws" (docs/CATALOG.md).
const Provider = "aws"

// Vocabulary is the catalog option that gives the AWS vocabulary ([Schema])
// to a catalog that names the provider "aws": decode a catalog file with it,
//
//	cat, err := instancetypes.Decode(data, aws.Vocabulary())
//
// and the built-in catalog written out with instancetypes.Encode reads back
// with the same labels, aliases and restricted domain, so it plans alike.
func Vocabulary() instancetypes.CatalogOption {
	return instancetypes.WithVocabulary(Provider, Schema())
}
