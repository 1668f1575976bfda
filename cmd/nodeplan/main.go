// Command nodeplan plans the Kubernetes nodes a set of pending pods needs,
// the way Karpenter's provisioning scheduler does, from manifests on disk.
//
//	nodeplan solve -f manifests/ [-o table|json|yaml] [--stats]
//	nodeplan catalog [--filter karpenter.k8s.aws/instance-family=m5]
//	nodeplan version
//
// The input and output formats are those of shared/formats/SCENARIO.md.
// Exit status: 0 when a plan was made (even with unplaced pods), 2 for
// invalid input or usage, 1 when the output could not be written.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
