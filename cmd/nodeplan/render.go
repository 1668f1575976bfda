package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
)

// hoursPerMonth is the month of cloud bills (365 × 24 / 12).
const hoursPerMonth = 730

// renderJSON writes the plan in the JSON format of docs/SCENARIO.md: indented by
// two spaces, object keys sorted (maps) or in field order (structs), empty
// lists as [] and empty objects as {}, so that the same Result always gives
// the same bytes.
func renderJSON(w io.Writer, res scheduler.Result) error {
	if err := writePlan(w, normalize(res), runtime.GOMAXPROCS(0)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func planJSON(res scheduler.Result) ([]byte, error) {
	var buf bytes.Buffer
	if err := renderJSON(&buf, res); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// renderYAML writes the same document as renderJSON, as YAML (keys sorted).
func renderYAML(w io.Writer, res scheduler.Result) error {
	j, err := planJSON(res)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return fmt.Errorf("rendering the plan: %w", err)
	}
	_, err = w.Write(y)
	return err
}

// normalize returns a copy of res whose nil lists and maps are empty ones,
// so the plan shows [] and {} rather than null.
func normalize(res scheduler.Result) scheduler.Result {
	out := res
	out.NodeClaims = make([]scheduler.NodeClaim, len(res.NodeClaims))
	for i, nc := range res.NodeClaims {
		nc.InstanceTypeOptions = orEmpty(nc.InstanceTypeOptions)
		nc.Requirements = orEmpty(nc.Requirements)
		nc.Pods = orEmpty(nc.Pods)
		if nc.Labels == nil {
			nc.Labels = map[string]string{}
		}
		if nc.Requests == nil {
			nc.Requests = corev1.ResourceList{}
		}
		out.NodeClaims[i] = nc
	}
	out.ExistingNodes = make([]scheduler.NodePlacement, len(res.ExistingNodes))
	for i, n := range res.ExistingNodes {
		n.Pods = orEmpty(n.Pods)
		out.ExistingNodes[i] = n
	}
	out.PodErrors = make([]scheduler.PodError, len(res.PodErrors))
	for i, e := range res.PodErrors {
		e.Details = orEmpty(e.Details)
		out.PodErrors[i] = e
	}
	out.Relaxations = make([]scheduler.Relaxation, len(res.Relaxations))
	for i, r := range res.Relaxations {
		r.Dropped = orEmpty(r.Dropped)
		out.Relaxations[i] = r
	}
	return out
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// renderTable writes the plan for people: one row per NodeClaim with its
// use of the instance type's allocatable cpu and memory, the pods placed on
// existing nodes, the unplaced pods grouped by reason, and the totals.
func renderTable(w io.Writer, res scheduler.Result, cat instancetypes.Catalog) error {
	var b strings.Builder
	if len(res.NodeClaims) == 0 {
		b.WriteString("No new nodes.\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tNODEPOOL\tINSTANCE TYPE\tZONE\tCAPACITY\t$/HOUR\tPODS\tCPU\tMEMORY")
		for _, nc := range res.NodeClaims {
			var alloc corev1.ResourceList
			if it, ok := cat.Get(nc.InstanceType); ok {
				alloc = it.Allocatable()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", nc.Name, nc.NodePool, nc.InstanceType, nc.Zone, nc.CapacityType,
				price(nc.Price), len(nc.Pods), usage(nc.Requests, alloc, corev1.ResourceCPU), usage(nc.Requests, alloc, corev1.ResourceMemory))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(res.ExistingNodes) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "EXISTING NODE\tPODS\tNAMES")
		for _, n := range res.ExistingNodes {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", n.Name, len(n.Pods), podList(n.Pods))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(res.PodErrors) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "UNPLACED PODS\tREASON")
		for _, g := range groupByReason(res.PodErrors) {
			fmt.Fprintf(tw, "%s\t%s\n", podList(g.pods), g.reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	b.WriteString("\n")
	writeTotals(&b, res)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTotals(b *strings.Builder, res scheduler.Result) {
	s := res.Summary
	onExisting := 0
	for _, n := range res.ExistingNodes {
		onExisting += len(n.Pods)
	}
	fmt.Fprintf(b, "Pods:   %d of %d scheduled (%d on existing nodes, %d unplaced)\n", s.Scheduled, s.Pods, onExisting, len(res.PodErrors))
	fmt.Fprintf(b, "Nodes:  %d new\n", len(res.NodeClaims))
	fmt.Fprintf(b, "Price:  %s/hour, %s/month (%d hours)\n", price(s.PricePerHour), money(s.PricePerHour*hoursPerMonth), hoursPerMonth)
	if s.PriceLowerBound > 0 {
		fmt.Fprintf(b, "Bound:  no valid plan for these pods costs less than %s/hour (this plan costs %.3f times that)\n",
			price(s.PriceLowerBound), s.PricePerHour/s.PriceLowerBound)
	}
	if p := res.Preferences; p != nil {
		fmt.Fprintf(b, "Preferences: honouring them costs %+d nodes and %s/hour against the plan that ignores them\n",
			p.ExtraNodeClaims, signedPrice(p.ExtraPerHour))
	}
	if n := len(res.Relaxations); n > 0 {
		fmt.Fprintf(b, "Relaxed: %d pods had preferences dropped to be placed\n", n)
	}
}

func signedPrice(p float64) string {
	if p < 0 {
		return "-" + price(-p)
	}
	return "+" + price(p)
}

// price renders dollars per hour with four decimals (spot prices of small
// types are fractions of a cent).
func price(p float64) string { return "$" + strconv.FormatFloat(p, 'f', 4, 64) }

func money(p float64) string { return "$" + strconv.FormatFloat(p, 'f', 2, 64) }

// usage renders "used/allocatable (pct%)" of one resource; "?" stands for an
// allocatable the catalog does not know.
func usage(requests, alloc corev1.ResourceList, name corev1.ResourceName) string {
	used := requests[name]
	a, ok := alloc[name]
	if !ok || a.IsZero() {
		return quantity(used, name) + "/?"
	}
	pct := float64(used.MilliValue()) / float64(a.MilliValue()) * 100
	return fmt.Sprintf("%s/%s (%.0f%%)", quantity(used, name), quantity(a, name), pct)
}

// quantity renders cpu in cores ("1.5") and memory in Gi or Mi ("6.74Gi").
func quantity(q resource.Quantity, name corev1.ResourceName) string {
	switch name {
	case corev1.ResourceCPU:
		return trimFloat(float64(q.MilliValue()) / 1000)
	case corev1.ResourceMemory:
		v := float64(q.Value())
		if v == 0 {
			return "0"
		}
		if v >= 1<<30 {
			return trimFloat(v/(1<<30)) + "Gi"
		}
		return trimFloat(v/(1<<20)) + "Mi"
	}
	return q.String()
}

func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// maxListed is how many pod names a table cell lists before "+N more".
const maxListed = 3

func podList(pods []string) string {
	if len(pods) <= maxListed {
		return strings.Join(pods, ", ")
	}
	return fmt.Sprintf("%s (+%d more)", strings.Join(pods[:maxListed], ", "), len(pods)-maxListed)
}

type reasonGroup struct {
	reason string
	pods   []string
}

// groupByReason groups unplaced pods by reason, most pods first, then by
// reason; pods keep their order.
func groupByReason(errs []scheduler.PodError) []reasonGroup {
	byReason := map[string]int{}
	var groups []reasonGroup
	for _, e := range errs {
		i, ok := byReason[e.Reason]
		if !ok {
			i = len(groups)
			byReason[e.Reason] = i
			groups = append(groups, reasonGroup{reason: e.Reason})
		}
		groups[i].pods = append(groups[i].pods, e.Pod)
	}
	slices.SortStableFunc(groups, func(a, b reasonGroup) int {
		return cmp.Or(cmp.Compare(len(b.pods), len(a.pods)), strings.Compare(a.reason, b.reason))
	})
	return groups
}
