package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	imanifest "github.com/nodeplan/nodeplan/internal/manifest"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

const consolidateUsage = `Usage: nodeplan consolidate -f PATH [-f PATH ...] [flags]

Plans what Karpenter's disruption controller does with a running cluster:
which nodes to delete or replace, with what, what it saves, and why every
other node stays. The input is a dump of the cluster (kubectl get -A -o
yaml of nodes, pods, PodDisruptionBudgets, DaemonSets, NodePools and
NodeClaims, plus volume objects; see docs/CLUSTER.md).

By default the output is the whole sequence of commands under Karpenter's
rules and search, each applied before the next is sought, until none is
left; --next prints only the first (what Karpenter would do now).

Exit status: 0 when a plan was made, 2 for invalid input or usage (nothing
is printed on stdout then), 1 when the output failed.

Flags:
`

// consolidateFlags are the flags of `nodeplan consolidate`.
type consolidateFlags struct {
	paths        listFlag
	recursive    bool
	catalog      catalogSource
	now          string
	search       string
	next         bool
	minSavings   string
	prefer       string
	spotToSpot   bool
	spotMinTypes int
	output       string
	stats        bool
}

func (f *consolidateFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.paths, "f", "a manifest file, or a folder of *.yaml, *.yml and *.json files (repeatable; .gz files are decompressed)")
	fs.BoolVar(&f.recursive, "R", false, "read the sub-folders of -f folders too")
	fs.StringVar(&f.catalog.file, "catalog", "", "an instance-type catalog (JSON, docs/CATALOG.md) instead of the built-in AWS one")
	fs.StringVar(&f.catalog.region, "region", "us-east-1", "the region of the built-in catalog")
	fs.StringVar(&f.now, "now", "", "the time of the plan, RFC 3339 (default: the machine's clock); ages, consolidateAfter, do-not-disrupt durations and budget schedules count from it")
	fs.StringVar(&f.search, "search", string(disruption.SearchKarpenter), "karpenter: Karpenter's search; global: subsets, m→n replacements, NodePools apart, --min-savings (same safety rules)")
	fs.BoolVar(&f.next, "next", false, "print only the first command: what Karpenter would do now")
	fs.StringVar(&f.minSavings, "min-savings", "", "with --search global, the least a command must save: $/h (\"0.05\") or a share of the price of the nodes it disrupts (\"10%\")")
	fs.StringVar(&f.prefer, "prefer", "", "with --search global, what to favour when a lower end price needs more disrupted nodes: fewer-disruptions (default) or lower-price (converges twice, keeps the cheaper end)")
	fs.BoolVar(&f.spotToSpot, "spot-to-spot", false, "turn on Karpenter's SpotToSpotConsolidation feature gate (a spot node may be replaced by a cheaper spot node)")
	fs.IntVar(&f.spotMinTypes, "spot-to-spot-min-types", disruption.DefaultSpotToSpotMinTypes, "the cheaper spot instance types a single spot node needs before it is replaced (Karpenter: 15)")
	fs.StringVar(&f.output, "o", "table", "output format: table, json or yaml")
	fs.BoolVar(&f.stats, "stats", false, "print one line of JSON statistics to stderr (seconds, nodes, commands)")
}

// options checks the flags and turns them into Plan's options and the
// time; each problem is one line.
func (f *consolidateFlags) options(clock func() time.Time) ([]disruption.Option, time.Time, []string) {
	var errs []string
	if len(f.paths) == 0 {
		errs = append(errs, "no input: give a cluster dump with -f PATH")
	}
	if !slices.Contains([]string{"table", "json", "yaml"}, f.output) {
		errs = append(errs, fmt.Sprintf("-o %q: want table, json or yaml", f.output))
	}
	search := disruption.Search(f.search)
	if search != disruption.SearchKarpenter && search != disruption.SearchGlobal {
		errs = append(errs, fmt.Sprintf("--search %q: want karpenter or global", f.search))
	}
	opts := []disruption.Option{disruption.WithSearch(search)}
	var now time.Time
	if f.now == "" {
		now = clock().UTC()
	} else if t, err := time.Parse(time.RFC3339, f.now); err != nil {
		errs = append(errs, fmt.Sprintf("--now %q: want an RFC 3339 time such as 2025-06-01T12:00:00Z", f.now))
	} else {
		now = t.UTC()
	}
	if f.minSavings != "" {
		abs, rel, err := parseMinSavings(f.minSavings)
		switch {
		case err != nil:
			errs = append(errs, err.Error())
		case search != disruption.SearchGlobal:
			errs = append(errs, "--min-savings: only --search global has a minimum saving (Karpenter takes any positive saving)")
		default:
			opts = append(opts, disruption.WithMinSavings(abs, rel))
		}
	}
	if f.prefer != "" {
		p := disruption.Prefer(f.prefer)
		switch {
		case p != disruption.PreferFewerDisruptions && p != disruption.PreferLowerPrice:
			errs = append(errs, fmt.Sprintf("--prefer %q: want fewer-disruptions or lower-price", f.prefer))
		case search != disruption.SearchGlobal:
			errs = append(errs, "--prefer: only --search global has a choice (Karpenter's order is its own)")
		default:
			opts = append(opts, disruption.WithPrefer(p))
		}
	}
	if f.next {
		opts = append(opts, disruption.WithMaxCommands(1))
	}
	if f.spotToSpot {
		if f.spotMinTypes < 1 {
			errs = append(errs, fmt.Sprintf("--spot-to-spot-min-types %d: must be at least 1", f.spotMinTypes))
		}
		opts = append(opts, disruption.WithSpotToSpot(f.spotMinTypes))
	}
	return opts, now, errs
}

// parseMinSavings reads "$/h" or "P%".
func parseMinSavings(s string) (float64, float64, error) {
	bad := fmt.Errorf("--min-savings %q: want $/h (\"0.05\") or a percentage (\"10%%\")", s)
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(pct, 64)
		if err != nil || v < 0 || v >= 100 {
			return 0, 0, bad
		}
		return 0, v / 100, nil
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || v < 0 {
		return 0, 0, bad
	}
	return v, 0, nil
}

func consolidateCommand(args []string, stdout, stderr io.Writer) int {
	return consolidateWith(args, stdout, stderr, time.Now)
}

func consolidateWith(args []string, stdout, stderr io.Writer, clock func() time.Time) int {
	var f consolidateFlags
	fs := flag.NewFlagSet("nodeplan consolidate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), consolidateUsage)
		fs.PrintDefaults()
	}
	positional, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitInvalid
	}
	f.paths = append(f.paths, positional...)
	fs.Visit(func(fl *flag.Flag) { f.catalog.regionSet = f.catalog.regionSet || fl.Name == "region" })
	opts, now, errs := f.options(clock)
	if len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return exitInvalid
	}
	start := time.Now()
	in, cat, ok := loadCluster(f, stderr)
	if !ok {
		return exitInvalid
	}
	res, err := disruption.Plan(in.RunningCluster(), in.NodePools, cat, now, opts...)
	if err != nil {
		printLines(stderr, "error: ", errorLines(in.Locate(err)))
		return exitInvalid
	}
	seconds := time.Since(start).Seconds()
	out := bufio.NewWriterSize(stdout, 1<<16)
	if err := renderConsolidation(out, f.output, res); err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return exitFailure
	}
	if out.Flush() != nil {
		return exitFailure
	}
	if f.stats {
		b, _ := json.Marshal(struct {
			Seconds  float64 `json:"seconds"`
			Nodes    int     `json:"nodes"`
			Commands int     `json:"commands"`
		}{roundTo(seconds, 6), res.Summary.Nodes, res.Summary.Commands})
		return write(stderr, string(b)+"\n")
	}
	return exitOK
}

// loadCluster reads the dump and the catalog; warnings and errors go to
// stderr, one line each, every error of the input in one pass.
func loadCluster(f consolidateFlags, stderr io.Writer) (imanifest.Input, instancetypes.Catalog, bool) {
	files, readErr := manifest.ReadFiles(f.paths, f.recursive)
	errs := readErrors(readErr)
	in, err := imanifest.DecodeCluster(files)
	printLines(stderr, "warning: ", in.Warnings)
	errs = append(errs, errorLines(err)...)
	cat, catErrs := f.catalog.load()
	errs = append(errs, catErrs...)
	if len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return imanifest.Input{}, instancetypes.Catalog{}, false
	}
	if err := scheduler.PrepareCatalog(cat); err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return imanifest.Input{}, instancetypes.Catalog{}, false
	}
	return in, cat, true
}
