package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/nodeplan/nodeplan/tools/karpdiff/compare"
)

func compareCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("karpdiff compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o compare.Options
	fs.Uint64Var(&o.Seed, "seed", 1, "the first scenario's seed; scenario i has seed+i")
	fs.IntVar(&o.Count, "count", 100, "how many scenarios")
	fs.IntVar(&o.Jobs, "j", 1, "scenarios solved at once")
	fs.StringVar(&o.Out, "out", "", "keep every scenario folder, both plans and results.jsonl here")
	fs.StringVar(&o.KeepLosses, "keep-losses", "", "write each scenario nodeplan loses (fewer, costlier, refused) here, with both plans, NOTE.md and expect.json")
	fs.StringVar(&o.Nodeplan, "nodeplan", "", "a nodeplan binary to run (default: nodeplan in process, with the command line's default options)")
	fs.IntVar(&o.Runs, "runs", 1, "Karpenter runs per scenario (the best plan by the kube-scheduler check is kept)")
	fs.DurationVar(&o.Timeout, "timeout", 3*time.Minute, "limit on one Karpenter process")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if o.Count < 1 || o.Runs < 1 {
		fmt.Fprintln(stderr, "karpdiff compare: --count and --runs must be at least 1")
		return exitInvalid
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	o.Self, o.Progress = self, stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	outs, err := compare.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitFailure
	}
	if o.Out != "" {
		f, err := os.Create(filepath.Join(o.Out, "results.jsonl"))
		if err == nil {
			err = compare.WriteResults(f, outs)
			err = errorsJoin(err, f.Close())
		}
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
		}
	}
	if err := compare.Report(stdout, o, outs, time.Since(start)); err != nil {
		return exitFailure
	}
	return exitOK
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
