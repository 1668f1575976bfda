package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/nodeplan/nodeplan/tools/karpdiff/kubecheck"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

func checkCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("karpdiff check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths listFlag
	fs.Var(&paths, "f", "a manifest file or scenario folder (repeatable)")
	catalog := fs.String("catalog", "", "instance-type catalog JSON (default: nodeplan's built-in AWS catalog, us-east-1)")
	planFile := fs.String("plan", "", "the plan to check (nodeplan's plan JSON, from nodeplan solve -o json or karpdiff karpenter)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if len(paths) == 0 || *planFile == "" {
		fmt.Fprintln(stderr, "karpdiff check: need -f PATH and --plan FILE")
		return exitInvalid
	}
	s, err := scenario.Load(paths, *catalog)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	p, err := plan.Read(*planFile)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	res, err := kubecheck.Check(s, p)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	for _, e := range res.Errors {
		fmt.Fprintln(stdout, "error:", e)
	}
	for _, r := range res.Refused {
		fmt.Fprintf(stdout, "refused: %s on %s: %s\n", r.Pod, r.Node, r.Reason)
	}
	for _, r := range res.OrderBound {
		fmt.Fprintf(stdout, "order: %s on %s binds only in a favourable order: %s\n", r.Pod, r.Node, r.Reason)
	}
	fmt.Fprintf(stdout, "placed %d, bind %d, refused %d, in a favourable order only %d\n", res.Placed, len(res.Bound), len(res.Refused), len(res.OrderBound))
	if !res.OK() {
		return exitFailure
	}
	return exitOK
}
