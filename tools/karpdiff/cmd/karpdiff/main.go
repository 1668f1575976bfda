package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

const usage = `Usage: karpdiff COMMAND [flags]

Commands:
  karpenter  solve a scenario folder with Karpenter v1.14.1, print its plan
  check      check a plan against the scenario with kube-scheduler's filters
  gen        write random scenario folders
  compare    generate scenarios, solve them with nodeplan and Karpenter, check and classify
  consolidate  follow nodeplan's consolidation plan of a cluster, check each command against Karpenter's disruption code

Run "karpdiff COMMAND -h" for a command's flags.
`

// Exit codes: 0 success, 1 a check found refused pods (or compare found
// losses with --fail), 2 invalid input or usage.
const (
	exitOK      = 0
	exitFailure = 1
	exitInvalid = 2
)

func main() {
	silenceLogs()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// silenceLogs discards Karpenter's, controller-runtime's and klog's logs.
func silenceLogs() {
	log.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitInvalid
	}
	cmds := map[string]func([]string, io.Writer, io.Writer) int{
		"karpenter":   karpenterCommand,
		"check":       checkCommand,
		"gen":         genCommand,
		"compare":     compareCommand,
		"consolidate": consolidateCommand,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "karpdiff: unknown command %q\n%s", args[0], usage)
		return exitInvalid
	}
	return cmd(args[1:], stdout, stderr)
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parse parses flags, returning exitOK for -h and exitInvalid on errors;
// ok is false when the caller must return that code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK, false
		}
		return exitInvalid, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %v\n", fs.Args())
		return exitInvalid, false
	}
	return 0, true
}
