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

// memoryLimit is the soft memory limit of the command unless GOMEMLIMIT
// says otherwise, and then the garbage collector runs only as the process
// nears it (unless GOGC says otherwise). A plan of 100,000 pods holds up
// to 750 MB of pointer-rich live data while it solves and allocates about
// as much again; collecting at every doubling of the heap (GOGC=100) took
// 4 to 6 of its 10 CPU seconds. With the garbage of decoding collected
// before the solve (collectAfterLoad), a 100,000-pod solve ends below the
// limit, and the one collection after it runs while the plan is rendered,
// over about 150 MB still live (0.2-0.3 s) instead of in the solve's last
// phase over 650 MB (2 s and 2.2 CPU s at a limit of 1,280 MiB). Peak RSS
// is about 1.4 GB; smaller inputs stay far below the limit anyway.
const memoryLimit = 1440 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
		if _, set := os.LookupEnv("GOGC"); !set {
			debug.SetGCPercent(-1)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
