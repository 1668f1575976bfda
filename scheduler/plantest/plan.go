package plantest

import (
	"fmt"
	"strings"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// TB is the part of testing.TB the helpers use: *testing.T and *testing.B
// satisfy it. A helper that meets a broken scenario calls Fatalf and returns
// a value that holds nothing.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Option configures Load and FromYAML.
type Option func(*config)

type config struct {
	catalog *instancetypes.Catalog
	yaml    []string
	solve   []scheduler.Option
}

// WithCatalog solves on catalog instead of the built-in AWS catalog of
// us-east-1. Building a catalog takes a few tens of milliseconds: a test
// that solves many scenarios may build it once and pass it to each.
func WithCatalog(catalog instancetypes.Catalog) Option {
	return func(c *config) { c.catalog = &catalog }
}

// WithYAML adds manifests given inline (one or more YAML documents) to the
// scenario: the pods of a test case next to a folder of NodePools.
func WithYAML(docs string) Option {
	return func(c *config) { c.yaml = append(c.yaml, docs) }
}

// WithSolveOptions adds scheduler options (policies, budgets) after the
// ones the manifests carry (existing nodes, DaemonSets, volumes,
// namespaces).
func WithSolveOptions(opts ...scheduler.Option) Option {
	return func(c *config) { c.solve = append(c.solve, opts...) }
}

// Plan is a solved scenario: its input, the catalog it was solved on, and
// the plan, which passed verify.Plan (scheduler/verify).
type Plan struct {
	Input   manifest.Input
	Catalog instancetypes.Catalog
	Result  scheduler.Result
}

// Load reads the manifests of path, a folder (its *.yaml, *.yml and *.json
// files, gzipped or not) or a file, as `nodeplan solve -f PATH` does, adds
// the documents of WithYAML, solves and verifies the plan. Invalid
// manifests, an invalid option and a plan that fails verify.Plan are fatal.
func Load(t TB, path string, opts ...Option) *Plan {
	t.Helper()
	files, err := manifest.ReadFiles([]string{path}, false)
	if err != nil {
		t.Fatalf("plantest: reading the scenario:\n%s", indent(err.Error()))
		return &Plan{}
	}
	return solve(t, files, opts)
}

// FromYAML solves the scenario of the YAML documents given (NodePools,
// pods, workloads, nodes, ...), with the documents of WithYAML after them,
// and verifies the plan. Invalid manifests, an invalid option and a plan
// that fails verify.Plan are fatal.
func FromYAML(t TB, docs string, opts ...Option) *Plan {
	t.Helper()
	return solve(t, nil, append([]Option{WithYAML(docs)}, opts...))
}

func solve(t TB, files []manifest.File, opts []Option) *Plan {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	for i, y := range cfg.yaml {
		files = append(files, manifest.File{Name: fmt.Sprintf("inline-%d.yaml", i+1), Data: []byte(y)})
	}
	in, err := manifest.Decode(files)
	if err != nil {
		t.Fatalf("plantest: the scenario's manifests are invalid:\n%s", indent(err.Error()))
		return &Plan{}
	}
	if cfg.catalog == nil {
		cat, err := aws.Catalog()
		if err != nil {
			t.Fatalf("plantest: the built-in AWS catalog: %v", err)
			return &Plan{}
		}
		cfg.catalog = &cat
	}
	solveOpts := append(in.Options(), cfg.solve...)
	res, err := scheduler.Solve(in.Pods, in.NodePools, *cfg.catalog, solveOpts...)
	if err != nil {
		t.Fatalf("plantest: Solve refused the input:\n%s", indent(err.Error()))
		return &Plan{}
	}
	if err := verify.Plan(in.Pods, in.NodePools, *cfg.catalog, res, solveOpts...); err != nil {
		t.Fatalf("plantest: the plan fails verify.Plan:\n%s", indent(err.Error()))
		return &Plan{}
	}
	return &Plan{Input: in, Catalog: *cfg.catalog, Result: res}
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t")
}
