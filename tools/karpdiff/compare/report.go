package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
)

// Report writes the summary: one table of classes with their seeds, totals
// of pods and prices, a table per catalog family, and timings (the only
// part that varies between runs).
func Report(w io.Writer, o Options, outs []Outcome, wall time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "karpdiff compare: seeds %d..%d (%d scenarios), Karpenter v1.14.1 with %d run(s) per scenario, checks with kube-scheduler v1.37.2's filters\n\n",
		o.Seed, o.Seed+uint64(len(outs))-1, len(outs), o.Runs)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tSCENARIOS\tSEEDS")
	for _, c := range []string{Fewer, FewerOrderOnly, Costlier, CostlierOrderOnly, Refused, NodeplanOrder, NodeplanError, More, Cheaper, Same, KarpenterRefused, KarpenterError, KarpenterCrash, HarnessError} {
		seeds := seedsOf(outs, c)
		list := "-"
		if c != More && c != Cheaper && c != Same {
			list = joinSeeds(seeds, 60)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c, len(seeds), list)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeTotals(&b, outs)
	writeFamilies(&b, outs)
	writeTimings(&b, outs, wall, o.Jobs)
	_, err := io.WriteString(w, b.String())
	return err
}

func seedsOf(outs []Outcome, class string) []uint64 {
	var s []uint64
	for _, oc := range outs {
		if oc.Has(class) {
			s = append(s, oc.Seed)
		}
	}
	return s
}

func joinSeeds(seeds []uint64, limit int) string {
	if len(seeds) == 0 {
		return "-"
	}
	var parts []string
	for i, s := range seeds {
		if i == limit {
			parts = append(parts, fmt.Sprintf("... (%d more)", len(seeds)-limit))
			break
		}
		parts = append(parts, fmt.Sprint(s))
	}
	return strings.Join(parts, " ")
}

func writeTotals(b *strings.Builder, outs []Outcome) {
	var pods, npPlaced, npBound, kPlaced, kBound, both int
	var npPrice, kPrice float64
	var ratios []float64
	for _, oc := range outs {
		pods += oc.Pods
		np, k := oc.Nodeplan, oc.Karpenter
		npPlaced, npBound, kPlaced, kBound = npPlaced+np.Placed, npBound+np.Bound, kPlaced+k.Placed, kBound+k.Bound
		if oc.Has(Costlier) {
			ratios = append(ratios, oc.ratio())
		}
		if oc.Err == "" && np.Err == "" && k.Err == "" {
			both++
			npPrice += np.Price
			kPrice += k.Price
		}
	}
	fmt.Fprintf(b, "\npending pods: %d\n", pods)
	fmt.Fprintf(b, "nodeplan:  placed %d, bind %d\n", npPlaced, npBound)
	fmt.Fprintf(b, "Karpenter: placed %d, bind %d\n", kPlaced, kBound)
	fmt.Fprintf(b, "price over the %d scenarios both solved: nodeplan $%.2f/h, Karpenter $%.2f/h", both, npPrice, kPrice)
	if kPrice > 0 {
		fmt.Fprintf(b, " (nodeplan/Karpenter %.3f)", npPrice/kPrice)
	}
	b.WriteString("\n")
	launch, filters := refusalCauses(outs)
	fmt.Fprintf(b, "Karpenter's refused pods: %d on NodeClaims that cannot launch (NodePool limits, reservations, minValues), %d by kube-scheduler's filters\n", launch, filters)
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		fmt.Fprintf(b, "costlier: median %.1f%%, worst %.2fx\n", (ratios[len(ratios)/2]-1)*100, ratios[len(ratios)-1])
	}
}

func writeFamilies(b *strings.Builder, outs []Outcome) {
	type row struct{ n, fewer, costlier, refused, kRefused int }
	rows := map[string]*row{}
	for _, oc := range outs {
		r := rows[oc.Family]
		if r == nil {
			r = &row{}
			rows[oc.Family] = r
		}
		r.n++
		for c, p := range map[string]*int{Fewer: &r.fewer, Costlier: &r.costlier, Refused: &r.refused, KarpenterRefused: &r.kRefused} {
			if oc.Has(c) {
				*p++
			}
		}
	}
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	slices.Sort(names)
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tSCENARIOS\tFEWER\tCOSTLIER\tREFUSED\tKARPENTER REFUSED")
	for _, n := range names {
		r := rows[n]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\n", n, r.n, r.fewer, r.costlier, r.refused, r.kRefused)
	}
	_ = tw.Flush()
}

func writeTimings(b *strings.Builder, outs []Outcome, wall time.Duration, jobs int) {
	var np, k, chk float64
	for _, oc := range outs {
		np += oc.Nodeplan.Seconds
		k += oc.Karpenter.Seconds
		chk += oc.Nodeplan.CheckSeconds + oc.Karpenter.CheckSeconds
	}
	n := float64(max(len(outs), 1))
	fmt.Fprintf(b, "\ntimings (vary between runs): wall %.1fs with -j %d, %.2f scenarios/s; per scenario: nodeplan %.3fs, Karpenter %.3fs (child process), both checks %.3fs\n",
		wall.Seconds(), jobs, float64(len(outs))/wall.Seconds(), np/n, k/n, chk/n)
}

// writePlans stores both plans next to the scenario (with --out).
func writePlans(oc Outcome) {
	for name, sd := range map[string]Side{"nodeplan-plan.json": oc.Nodeplan, "karpenter-plan.json": oc.Karpenter} {
		if sd.Err != "" {
			continue
		}
		if data, err := plan.Encode(sd.plan); err == nil {
			_ = os.WriteFile(filepath.Join(oc.dir, name), data, 0o644)
		}
	}
}

// WriteResults writes one JSON line per scenario, in seed order.
func WriteResults(w io.Writer, outs []Outcome) error {
	enc := json.NewEncoder(w)
	for _, oc := range outs {
		if err := enc.Encode(oc); err != nil {
			return err
		}
	}
	return nil
}

// refusalCauses splits Karpenter's refused pods into those on NodeClaims
// that cannot launch and those a filter plugin refuses.
func refusalCauses(outs []Outcome) (launch, filters int) {
	for _, oc := range outs {
		for _, r := range oc.Karpenter.check.Refused {
			if strings.HasPrefix(r.Reason, "NodeClaim ") {
				launch++
			} else {
				filters++
			}
		}
	}
	return launch, filters
}
