package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

const catalogUsage = `Usage: nodeplan catalog [flags]

Lists the instance types of the catalog that satisfy every --filter, with
their allocatable resources and their cheapest available offering, cheapest
first. Filters are requirements, as a NodePool or a pod would write them:

  KEY=V1,V2   In        KEY!=V1,V2  NotIn
  KEY>N       Gt        KEY<N       Lt
  KEY>=N      Gte       KEY<=N      Lte
  KEY         Exists    !KEY        DoesNotExist

For example: --filter karpenter.k8s.aws/instance-family=m5,m6i
--filter 'karpenter.k8s.aws/instance-cpu>3' --filter karpenter.sh/capacity-type=spot

With -o json it writes the catalog itself in the format of docs/CATALOG.md
(the types the filters keep, with all their offerings): a file --catalog
reads back, provider vocabulary included, to plan exactly alike.

Flags:
`

func catalogCommand(args []string, stdout, stderr io.Writer) int {
	var src catalogSource
	var zones string
	var filters listFlag
	fs := flag.NewFlagSet("nodeplan catalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&src.file, "catalog", "", "an instance-type catalog (JSON, docs/CATALOG.md) instead of the built-in AWS one")
	fs.StringVar(&src.region, "region", "us-east-1", "the region of the built-in catalog")
	fs.StringVar(&zones, "zones", "", "comma-separated zones (default: every zone of the region)")
	fs.Var(&filters, "filter", "a requirement the instance types must satisfy (repeatable; see above)")
	output := fs.String("o", "table", "output format: table, or json (the catalog file format)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), catalogUsage)
		fs.PrintDefaults()
	}
	positional, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitInvalid
	}
	if len(positional) > 0 {
		printLines(stderr, "error: ", []string{fmt.Sprintf("unexpected argument %q (filters are given with --filter)", positional[0])})
		return exitInvalid
	}
	fs.Visit(func(fl *flag.Flag) { src.regionSet = src.regionSet || fl.Name == "region" })
	src.zones = splitList(zones)
	cat, errs := src.load()
	if len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return exitInvalid
	}
	if *output != "table" && *output != "json" {
		printLines(stderr, "error: ", []string{fmt.Sprintf("-o %q: want table or json", *output)})
		return exitInvalid
	}
	reqs, warnings, errs := parseFilters(cat, filters)
	printLines(stderr, "warning: ", warnings)
	if len(errs) > 0 {
		printLines(stderr, "error: ", errs)
		return exitInvalid
	}
	rows := listTypes(cat, reqs)
	if len(rows) == 0 {
		printLines(stderr, "warning: ", []string{"no instance type satisfies the filters"})
	}
	if *output == "json" {
		return writeCatalog(stdout, stderr, cat, rows, len(filters) > 0)
	}
	var b strings.Builder
	if err := renderTypes(&b, rows); err != nil {
		return exitFailure
	}
	return write(stdout, b.String())
}

// writeCatalog writes the catalog in its file format: the types of rows
// when filtered (in catalog order), every type otherwise.
func writeCatalog(stdout, stderr io.Writer, cat instancetypes.Catalog, rows []typeRow, filtered bool) int {
	if filtered {
		keep := map[string]bool{}
		for _, r := range rows {
			keep[r.it.Name] = true
		}
		var types []instancetypes.InstanceType
		for _, it := range cat.Types() {
			if keep[it.Name] {
				types = append(types, *it)
			}
		}
		var err error
		cat, err = instancetypes.NewCatalog(types, instancetypes.WithRegion(cat.Region()), instancetypes.WithSource(cat.Source()),
			instancetypes.WithProvider(cat.Provider()), instancetypes.WithBaseSchema(cat.Schema()))
		if err != nil {
			printLines(stderr, "error: ", errorLines(err))
			return exitFailure
		}
	}
	b, err := instancetypes.Encode(cat)
	if err != nil {
		printLines(stderr, "error: ", errorLines(err))
		return exitFailure
	}
	return write(stdout, string(b))
}

var filterSyntax = regexp.MustCompile(`^([^=!<>]+)(=|!=|>=|<=|>|<)(.*)$`)

// parseFilter turns one --filter into a requirement (see catalogUsage).
func parseFilter(schema requirements.Schema, f string) (requirements.Requirement, error) {
	f = strings.TrimSpace(f)
	key, op, values := f, requirements.OpExists, []string(nil)
	if m := filterSyntax.FindStringSubmatch(f); m != nil {
		key = strings.TrimSpace(m[1])
		switch m[2] {
		case "=":
			op, values = requirements.OpIn, splitList(m[3])
		case "!=":
			op, values = requirements.OpNotIn, splitList(m[3])
		case ">":
			op, values = requirements.OpGt, []string{strings.TrimSpace(m[3])}
		case "<":
			op, values = requirements.OpLt, []string{strings.TrimSpace(m[3])}
		case ">=":
			op, values = requirements.OpGte, []string{strings.TrimSpace(m[3])}
		case "<=":
			op, values = requirements.OpLte, []string{strings.TrimSpace(m[3])}
		}
	} else if k, ok := strings.CutPrefix(f, "!"); ok {
		key, op = strings.TrimSpace(k), requirements.OpDoesNotExist
	}
	r, err := schema.Parse(key, op, values, 0)
	if err != nil {
		return requirements.Requirement{}, fmt.Errorf("--filter %q: %s", f, oneLine(err.Error()))
	}
	return r, nil
}

// parseFilters parses every filter. A key no instance type carries and the
// schema does not know draws a warning: such a filter matches nothing or
// everything, and is most likely a typo.
func parseFilters(cat instancetypes.Catalog, filters []string) (requirements.Requirements, []string, []string) {
	schema := cat.Schema()
	var reqs []requirements.Requirement
	var warnings, errs []string
	for _, f := range filters {
		r, err := parseFilter(schema, f)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if !schema.IsWellKnown(r.Key()) {
			w := fmt.Sprintf("--filter %q: no instance type has the label %q", f, r.Key())
			if hint := schema.Hint(r.Key()); hint != "" {
				w += fmt.Sprintf(" (typo of %q?)", hint)
			}
			warnings = append(warnings, w)
		}
		reqs = append(reqs, r)
	}
	return requirements.NewRequirements(reqs...), warnings, errs
}

// typeRow is one instance type and its cheapest offering under the filters.
type typeRow struct {
	it       *instancetypes.InstanceType
	offering instancetypes.Offering
}

// listTypes returns the types compatible with reqs, cheapest offering
// first, then by name.
func listTypes(cat instancetypes.Catalog, reqs requirements.Requirements) []typeRow {
	var rows []typeRow
	for _, it := range cat.Filter(reqs) {
		o, ok := it.CheapestOffering(reqs)
		if !ok {
			continue
		}
		rows = append(rows, typeRow{it: it, offering: o})
	}
	slices.SortStableFunc(rows, func(a, b typeRow) int {
		return cmp.Or(cmp.Compare(a.offering.Price, b.offering.Price), strings.Compare(a.it.Name, b.it.Name))
	})
	return rows
}

func renderTypes(w io.Writer, rows []typeRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tARCH\tVCPU\tCPU\tMEMORY\tPODS\t$/HOUR\tCAPACITY\tZONE")
	for _, r := range rows {
		alloc := r.it.Allocatable()
		vcpu := r.it.Capacity[corev1.ResourceCPU]
		pods := alloc[corev1.ResourcePods]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.it.Name, r.it.Labels[corev1.LabelArchStable], vcpu.String(),
			quantity(alloc[corev1.ResourceCPU], corev1.ResourceCPU), quantity(alloc[corev1.ResourceMemory], corev1.ResourceMemory),
			pods.String(), price(r.offering.Price), r.offering.CapacityType, r.offering.Zone)
	}
	return tw.Flush()
}
