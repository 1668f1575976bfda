// Command nodeplan plans the Kubernetes nodes a set of pending pods needs,
// the way Karpenter's provisioning scheduler does, from manifests on disk.
//
//	nodeplan solve -f manifests/ [-o table|json|yaml] [--stats] [--verify]
//	nodeplan catalog [--filter karpenter.k8s.aws/instance-family=m5]
//	nodeplan version
//
// The input and output formats are those of docs/SCENARIO.md; the catalog
// format is docs/CATALOG.md.
// Exit status: 0 when a plan was made (even with unplaced pods), 2 for
// invalid input or usage, 1 when the output could not be written or
// --verify found a violation.
package main

import (
	"os"
	"runtime/debug"
)

// memoryLimit is the soft heap limit of the command unless GOMEMLIMIT says
// otherwise: the garbage collector works harder as the heap nears it, so a
// plan of 100,000 pods stays well under 2 GiB of memory.
const memoryLimit = 1 << 30

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
