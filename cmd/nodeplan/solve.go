package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

const solveUsage = `Usage: nodeplan solve -f PATH [-f PATH ...] [flags]

Plans the NodeClaims for the pending pods of Kubernetes manifests (see
docs/SCENARIO.md): Pods, Deployments, ReplicaSets, StatefulSets,
Jobs, DaemonSets, NodePools, Nodes, PersistentVolumeClaims,
PersistentVolumes, StorageClasses and Namespaces. Other kinds are skipped
with a warning.

Exit status: 0 when a plan was made (even with unplaced pods), 2 for invalid
input (nothing is printed on stdout then), 1 when the output failed or
--verify found a violation.

Flags:
`

// solveFlags are the flags of `nodeplan solve`.
type solveFlags struct {
	paths          listFlag
	recursive      bool
	catalog        catalogSource
	zones          string
	preference     string
	minValues      string
	stats          bool
	verify         bool
	preferenceCost bool
	existingFirst  bool
	output         string
}

func (f *solveFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.paths, "f", "a manifest file, or a folder of *.yaml, *.yml and *.json files (repeatable; a file ending in .gz, such as pods.yaml.gz, is decompressed)")
	fs.BoolVar(&f.recursive, "R", false, "read the sub-folders of -f folders too")
	fs.StringVar(&f.catalog.file, "catalog", "", "an instance-type catalog (JSON, docs/CATALOG.md) instead of the built-in AWS one")
	fs.StringVar(&f.catalog.region, "region", "us-east-1", "the region of the built-in catalog")
	fs.StringVar(&f.zones, "zones", "", "comma-separated zones to plan in (default: every zone of the region)")
	fs.StringVar(&f.preference, "preference-policy", string(scheduler.PreferenceRespect), "how preferences are treated: Respect, Honor, Ignore or WhileFree")
	fs.StringVar(&f.minValues, "min-values-policy", string(scheduler.MinValuesStrict), "what happens when a NodePool's minValues cannot be met: Strict or BestEffort")
	fs.BoolVar(&f.stats, "stats", false, "print one line of JSON statistics to stderr")
	fs.BoolVar(&f.verify, "verify", false, "check the plan against every constraint (verify.Plan): stderr says \"verify: plan valid (N pods, K NodeClaims)\", or lists the violations, one per line, and the exit status is 1")
	fs.BoolVar(&f.existingFirst, "existing-nodes-first", false, "plan for pods created now, which bind to the existing nodes before any new node joins: a spread may then count the existing nodes alone for them (scheduler.WithExistingNodesFirst)")
	fs.BoolVar(&f.preferenceCost, "preference-cost", false, "also plan with preferences ignored and report what honouring them costs (table output)")
	fs.StringVar(&f.output, "o", "table", "output format: table, json or yaml")
}

// check validates the flag values; each problem is one line.
func (f *solveFlags) check() []string {
	var errs []string
	if len(f.paths) == 0 {
		errs = append(errs, "no input: give manifests with -f PATH")
	}
	if !slices.Contains([]string{"table", "json", "yaml"}, f.output) {
		errs = append(errs, fmt.Sprintf("-o %q: want table, json or yaml", f.output))
	}
	if !slices.Contains([]scheduler.PreferencePolicy{scheduler.PreferenceRespect, scheduler.PreferenceHonor, scheduler.PreferenceIgnore, scheduler.PreferenceWhileFree}, scheduler.PreferencePolicy(f.preference)) {
		errs = append(errs, fmt.Sprintf("--preference-policy %q: want Respect, Honor, Ignore or WhileFree", f.preference))
	}
	if !slices.Contains([]scheduler.MinValuesPolicy{scheduler.MinValuesStrict, scheduler.MinValuesBestEffort}, scheduler.MinValuesPolicy(f.minValues)) {
		errs = append(errs, fmt.Sprintf("--min-values-policy %q: want Strict or BestEffort", f.minValues))
	}
	return errs
}

func newSolveFlagSet(f *solveFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("nodeplan solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), solveUsage)
		fs.PrintDefaults()
	}
	return fs
}

// parseSolveFlags parses and checks the flags of `nodeplan solve`; done
// is set, with the exit status, when there is nothing more to do (help,
// or invalid flags).
func parseSolveFlags(args []string, stderr io.Writer) (f solveFlags, done bool, code int) {
	fs := newSolveFlagSet(&f, stderr)
	positional, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return f, true, exitOK
	}
	if err != nil {
		return f, true, exitInvalid
	}
	f.paths = append(f.paths, positional...)
	fs.Visit(func(fl *flag.Flag) { f.catalog.regionSet = f.catalog.regionSet || fl.Name == "region" })
	f.catalog.zones = splitList(f.zones)
	if errs := f.check(); len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return f, true, exitInvalid
	}
	return f, false, exitOK
}

func solveCommand(args []string, stdout, stderr io.Writer) int {
	f, done, code := parseSolveFlags(args, stderr)
	if done {
		return code
	}
	start := time.Now()
	in, cat, ok := load(f, stderr)
	if !ok {
		return exitInvalid
	}
	prepared, err := scheduler.Prepare(cat) // indexing the catalog is part of loading it
	if err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return exitInvalid
	}
	collectAfterLoad()
	loaded := time.Since(start)

	opts := append(in.Options(), scheduler.WithPrepared(prepared),
		scheduler.WithPreferencePolicy(scheduler.PreferencePolicy(f.preference)),
		scheduler.WithMinValuesPolicy(scheduler.MinValuesPolicy(f.minValues)))
	if f.preferenceCost {
		opts = append(opts, scheduler.WithPreferenceCost())
	}
	if f.existingFirst {
		opts = append(opts, scheduler.WithExistingNodesFirst())
	}
	solveStart := time.Now()
	res, err := verify.Solve(in.Pods, in.NodePools, cat, opts...)
	solved := time.Since(solveStart)
	if err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return exitInvalid
	}

	var violations []string
	if f.verify {
		violations = verifyLines(in, cat, res, opts)
	}
	pods := len(in.Pods)
	in = manifest.Input{} // the pods are no longer needed: let a large input go before rendering
	out := bufio.NewWriterSize(stdout, 1<<16)
	if err := render(out, f.output, res, cat); err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return exitFailure
	}
	if out.Flush() != nil {
		return exitFailure
	}
	if f.stats {
		if code := write(stderr, statsLine(pods, loaded, solved, res)); code != exitOK {
			return code
		}
	}
	if f.verify {
		return verdict(stderr, violations, res)
	}
	return exitOK
}

// verifyLines checks the plan with verify.Plan: its violations (or
// its input error), one line each.
func verifyLines(in manifest.Input, cat instancetypes.Catalog, res scheduler.Result, opts []scheduler.Option) []string {
	err := verify.Plan(in.Pods, in.NodePools, cat, res, opts...)
	var ve *verify.Error
	if !errors.As(err, &ve) {
		return errorLines(err)
	}
	lines := make([]string, 0, len(ve.Violations))
	for _, v := range ve.Violations {
		lines = append(lines, fmt.Sprint(v))
	}
	return lines
}

// verdict writes the result of --verify on stderr: the violations (exit
// status 1), or that the plan is valid.
func verdict(stderr io.Writer, violations []string, res scheduler.Result) int {
	if len(violations) > 0 {
		printLines(stderr, "violation: ", violations)
		return exitFailure
	}
	return write(stderr, fmt.Sprintf("verify: plan valid (%d pods, %d NodeClaims)\n", res.Summary.Pods, len(res.NodeClaims)))
}

// render writes the plan in an output format (table, json or yaml).
func render(w io.Writer, format string, res scheduler.Result, cat instancetypes.Catalog) error {
	switch format {
	case "json":
		return renderJSON(w, res)
	case "yaml":
		return renderYAML(w, res)
	default:
		return renderTable(w, res, cat)
	}
}

// load reads the manifests and the catalog. Warnings and errors go to
// stderr, one line each; every error of the input is reported in one pass.
func load(f solveFlags, stderr io.Writer) (manifest.Input, instancetypes.Catalog, bool) {
	files, readErr := manifest.ReadFiles(f.paths, f.recursive)
	errs := readErrors(readErr)
	in, err := manifest.Decode(files)
	warnings := in.Warnings
	if err == nil && len(errs) == 0 && len(in.NodePools) == 0 {
		warnings = append(warnings, "no NodePool in the input: pods can only go to existing nodes")
	}
	printLines(stderr, "warning: ", warnings)
	errs = append(errs, errorLines(err)...)
	cat, catErrs := f.catalog.load()
	errs = append(errs, catErrs...)
	if len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return manifest.Input{}, instancetypes.Catalog{}, false
	}
	return in, cat, true
}

// stats is the --stats line (SCENARIO.md).
type stats struct {
	Pods            int     `json:"pods"`
	LoadSeconds     float64 `json:"loadSeconds"`
	SolveSeconds    float64 `json:"solveSeconds"`
	PodsPerSecond   float64 `json:"podsPerSecond"`
	NodeClaims      int     `json:"nodeClaims"`
	PricePerHour    float64 `json:"pricePerHour"`
	PriceLowerBound float64 `json:"priceLowerBound"`
}

func statsLine(pods int, load, solve time.Duration, res scheduler.Result) string {
	s := stats{
		Pods:            pods,
		LoadSeconds:     roundTo(load.Seconds(), 6),
		SolveSeconds:    roundTo(solve.Seconds(), 6),
		NodeClaims:      len(res.NodeClaims),
		PricePerHour:    res.Summary.PricePerHour,
		PriceLowerBound: res.Summary.PriceLowerBound,
	}
	if solve > 0 {
		s.PodsPerSecond = roundTo(float64(pods)/solve.Seconds(), 1)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return string(b) + "\n"
}

func roundTo(x float64, digits int) float64 {
	p := math.Pow10(digits)
	return math.Round(x*p) / p
}
