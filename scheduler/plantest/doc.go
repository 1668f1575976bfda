// Package plantest makes table tests of NodePools and workloads short: it
// loads a scenario (a folder of manifests, or YAML inline), solves it on the
// built-in AWS catalog or a given one, checks the plan with verify.Plan
// (package scheduler/verify), and answers by pod name — which NodePool, NodeClaim or existing node, which
// instance type and family, architecture, zone and capacity type, or, for a
// pod left unplaced, the reason code. A failed expectation reads as a
// sentence naming the pod, what was wanted and what it got:
//
//	pod default/train-0: want NodePool gpu, got default
//	    got: NodeClaim default-1 (NodePool default, m5.large, family m5, amd64, us-east-1a, on-demand, $0.0960/h)
//
// A platform team's test of its NodePools:
//
//	plan := plantest.Load(t, "testdata/nodepools", plantest.WithYAML(pods))
//	plan.Expect(t, "train", plantest.Want{NodePool: "gpu"})
//	plan.Expect(t, "report-0", plantest.Want{Arch: "arm64", CapacityType: "spot"})
//	plan.Expect(t, "legacy", plantest.Want{Code: scheduler.ReasonNoInstanceType})
//
// Flow: plantest sits on scheduler/manifest and scheduler; only tests import
// it.
package plantest
