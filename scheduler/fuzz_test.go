package scheduler_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// manyReplicas matches a workload count of four digits or more: a mutation
// that turns replicas: 3 into replicas: 900000 decodes to 900,000 pods
// (manifest.MaxPods allows a million; 34 s and 3.3 GB), which the fuzz
// function then skips for their number, and the fuzzer stalls on it.
var manyReplicas = regexp.MustCompile(`(replicas|parallelism|completions)"?\s*:\s*"?[0-9]{4}`)

// FuzzSolve feeds mutated manifests to Solve: whatever decodes must solve
// without a panic, every pending pod must be accounted for exactly once,
// and the plan must pass Verify. Seeds are the scenario manifests (those
// under 8 KiB), solved with catalog K.
func FuzzSolve(f *testing.F) {
	data, err := os.ReadFile("../testdata/catalogs/k.json")
	if err != nil {
		f.Fatal(err)
	}
	cat, err := instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
	if err != nil {
		f.Fatal(err)
	}
	seeds, _ := filepath.Glob("../testdata/scenarios/*/manifests.yaml")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil && len(b) < 8<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if manyReplicas.Match(doc) {
			return // expands to more pods than are solved here, slowly (see manyReplicas)
		}
		in, err := manifest.Decode([]manifest.File{{Name: "f.yaml", Data: doc}})
		if err != nil || len(in.Pods) > 200 {
			return
		}
		res, err := scheduler.Solve(in.Pods, in.NodePools, cat, in.Options()...)
		if err != nil {
			return // invalid input, reported as an error
		}
		placed := map[string]int{}
		for _, nc := range res.NodeClaims {
			for _, p := range nc.Pods {
				placed[p]++
			}
		}
		for _, n := range res.ExistingNodes {
			for _, p := range n.Pods {
				placed[p]++
			}
		}
		for _, e := range res.PodErrors {
			placed[e.Pod]++
		}
		for p, n := range placed {
			if n != 1 {
				t.Errorf("pod %s accounted for %d times", p, n)
			}
		}
		if len(placed) != res.Summary.Pods {
			t.Errorf("%d pods in the plan, summary says %d", len(placed), res.Summary.Pods)
		}
		if err := verify.Plan(in.Pods, in.NodePools, cat, res, in.Options()...); err != nil {
			t.Errorf("plan fails Verify: %v", err)
		}
	})
}
