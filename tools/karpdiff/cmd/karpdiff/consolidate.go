package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	imanifest "github.com/nodeplan/nodeplan/internal/manifest"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/tools/karpdiff/disrupt"
	"github.com/nodeplan/nodeplan/tools/karpdiff/karp"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

// consolidateCommand follows nodeplan's Karpenter-faithful consolidation
// plan of a running cluster (the input of `nodeplan consolidate`) and
// checks every command against Karpenter v1.14.1's disruption code on the
// cluster as the previous commands leave it (package disrupt). Exit 1 when
// a step differs in a rule (differ, same-nodes).
func consolidateCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("karpdiff consolidate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths listFlag
	fs.Var(&paths, "f", "a cluster dump file or folder, as `nodeplan consolidate -f` reads (repeatable)")
	recursive := fs.Bool("R", false, "read folders recursively")
	catalog := fs.String("catalog", "", "instance-type catalog JSON (default: nodeplan's built-in AWS catalog, us-east-1)")
	nowFlag := fs.String("now", "", "the time of the plan, RFC 3339 (default: the current time)")
	spot := fs.Bool("spot-to-spot", false, "turn the SpotToSpotConsolidation feature gate on (in both)")
	steps := fs.Int("steps", 0, "check at most N commands (0: the whole plan)")
	runs := fs.Int("runs", 4, "run Karpenter up to K times per step (it breaks ties by map order) until it agrees")
	output := fs.String("o", "text", "output format: text or json")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if len(paths) == 0 || *runs < 1 || *steps < 0 || (*output != "text" && *output != "json") {
		fmt.Fprintln(stderr, "karpdiff consolidate: need -f PATH, --runs >= 1, --steps >= 0 and -o text|json")
		return exitInvalid
	}
	now := time.Now().UTC()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "error: --now %q: want an RFC 3339 time\n", *nowFlag)
			return exitInvalid
		}
		now = t.UTC()
	}
	files, err := manifest.ReadFiles(paths, *recursive)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	in, err := imanifest.DecodeCluster(files)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	var cat instancetypes.Catalog
	if *catalog == "" {
		cat, err = aws.Catalog()
	} else {
		cat, err = scenario.LoadCatalog(*catalog)
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitInvalid
	}
	karp.RegisterVocabulary(cat, *catalog == "")
	var all []disrupt.Step
	failed := false
	err = disrupt.Follow(in.RunningCluster(), in.NodePools, cat, now, disrupt.Options{SpotToSpot: *spot}, *steps, *runs, func(s disrupt.Step) {
		all = append(all, s)
		failed = failed || s.Verdict == disrupt.Differ || s.Verdict == disrupt.SameNodes
		if *output == "text" {
			fmt.Fprintf(stdout, "step %d (%d nodes): %s\n  nodeplan:  %v\n", len(all), s.Nodes, s.Verdict, s.Nodeplan)
			for _, k := range s.Karpenter {
				fmt.Fprintf(stdout, "  karpenter: %v\n", k)
			}
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "error:", in.Locate(err))
		return exitInvalid
	}
	if *output == "json" {
		data, err := json.MarshalIndent(all, "", "  ")
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
			return exitFailure
		}
		if code := writeOut(stdout, append(data, '\n')); code != exitOK {
			return code
		}
	}
	if failed {
		return exitFailure
	}
	return exitOK
}
