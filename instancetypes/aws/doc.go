// Package aws is nodeplan's built-in AWS catalog: 1345 EC2 instance types of
// us-east-1 with their labels, capacity, kubelet overhead and offerings, the
// static on-demand prices of us-east-1, us-gov-east-1 and us-gov-west-1, and
// the AWS label vocabulary ([Schema]).
//
// It owns the data and the rules that turn it into an
// [instancetypes.Catalog]: choosing a region ([WithRegion]), restricting
// zones, dropping or repricing spot, marking offerings unavailable (an
// insufficient-capacity cache), and overriding max pods the way the kubelet
// configuration of an EC2NodeClass does. It does not model EC2NodeClasses,
// AMIs or block devices: capacity and overhead are those of Karpenter's
// AL2023 defaults with a 20Gi root volume.
//
// Where the data came from: data/README.md gives the provenance in full. In
// short,
// labels, capacity, overhead and on-demand prices come from
// github.com/aws/karpenter-provider-aws at commit 1d927085 (the instance-type
// reference doc and the generated pricing tables); zone IDs, spot prices and
// unavailable spot pools are modeled, not observed. data/gen/ holds the
// generator and checker.
//
// The data is embedded with go:embed. [Catalog] decodes a fresh copy on every
// call: there is no file access at run time, no network, no init and no
// package state, so callers may change nothing shared.
//
// Flow: aws sits on instancetypes and requirements; cmd/nodeplan and
// examples use it to get a catalog to pass to scheduler.Solve.
package aws
