package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// renderConsolidation writes a consolidation plan as a table, JSON
// (CLUSTER.md) or YAML.
func renderConsolidation(w io.Writer, format string, res disruption.Result) error {
	if format == "table" {
		return consolidationTable(w, res)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(normalizeConsolidation(res)); err != nil {
		return fmt.Errorf("rendering the plan: %w", err)
	}
	out := buf.Bytes()
	if format == "yaml" {
		y, err := yaml.JSONToYAML(out)
		if err != nil {
			return fmt.Errorf("rendering the plan: %w", err)
		}
		out = y
	}
	_, err := w.Write(out)
	return err
}

// normalizeConsolidation makes the replacements' nil lists and maps empty
// ones, as the plan format shows them.
func normalizeConsolidation(res disruption.Result) disruption.Result {
	out := res
	out.Commands = slices.Clone(res.Commands)
	for i := range out.Commands {
		cmd := &out.Commands[i]
		cmd.Replacements = slices.Clone(cmd.Replacements)
		for j := range cmd.Replacements {
			nc := &cmd.Replacements[j]
			nc.InstanceTypeOptions = orEmpty(nc.InstanceTypeOptions)
			nc.Requirements = orEmpty[requirements.Expression](nc.Requirements)
			nc.Pods = orEmpty(nc.Pods)
			if nc.Labels == nil {
				nc.Labels = map[string]string{}
			}
			if nc.Requests == nil {
				nc.Requests = corev1.ResourceList{}
			}
		}
	}
	return out
}

// consolidationTable writes the plan for people: the commands, then the
// nodes that stay grouped by reason, then the price before and after and
// the repack figure.
func consolidationTable(w io.Writer, res disruption.Result) error {
	var b strings.Builder
	if len(res.Commands) == 0 {
		b.WriteString("No command: every node stays.\n")
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "#\tMETHOD\tDECISION\tNODES\tREPLACEMENTS\tPODS MOVED\t$/HOUR BEFORE\tAFTER\tSAVES")
		for i, c := range res.Commands {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", i+1, c.Method, c.Decision, commandNodes(c.Nodes),
				replacementList(c.Replacements), movedPods(c.Moves), dollars(c.PricePerHourBefore), dollars(c.PricePerHourAfter), dollars(c.SavingsPerHour))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := keptTable(&b, res.Nodes); err != nil {
		return err
	}
	s := res.Summary
	b.WriteString("\n")
	pct := 0.0
	if s.PricePerHour > 0 {
		pct = s.SavingsPerHour / s.PricePerHour * 100
	}
	fmt.Fprintf(&b, "Price:   %s/hour → %s/hour: saves %s/hour (%s/month, %.1f%%)\n", dollars(s.PricePerHour), dollars(s.PricePerHourAfter),
		dollars(s.SavingsPerHour), "$"+strconv.FormatFloat(s.SavingsPerHour*hoursPerMonth, 'f', 2, 64), pct)
	fmt.Fprintf(&b, "Plan:    %d command(s), %d of %d node(s) disrupted, %d pod(s) moved\n", s.Commands, s.NodesDisrupted, s.Nodes, s.PodsMoved)
	if s.RepackPricePerHour > 0 || s.RepackLowerBound > 0 {
		fmt.Fprintf(&b, "Repack:  every pod on new nodes would cost %s/hour; no placement costs less than %s/hour\n",
			dollars(s.RepackPricePerHour), dollars(s.RepackLowerBound))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// keptTable groups the nodes that stay by reason (most nodes first), each
// with its first node's message.
func keptTable(b *strings.Builder, nodes []disruption.NodeState) error {
	groups := map[disruption.KeepReason][]disruption.NodeState{}
	for _, n := range nodes {
		if !n.Disrupted {
			groups[n.Reason] = append(groups[n.Reason], n)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	var reasons []disruption.KeepReason
	for r := range groups {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, c disruption.KeepReason) int {
		if d := len(groups[c]) - len(groups[a]); d != 0 {
			return d
		}
		return strings.Compare(string(a), string(c))
	})
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEPT\tNODES\tFOR EXAMPLE")
	for _, r := range reasons {
		g := groups[r]
		var names []string
		for _, n := range g {
			names = append(names, n.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s: %s\n", r, shortList(names), g[0].Name, g[0].Message)
	}
	return tw.Flush()
}

func commandNodes(ns []disruption.CommandNode) string {
	var names []string
	for _, n := range ns {
		names = append(names, fmt.Sprintf("%s (%s)", n.Name, n.InstanceType))
	}
	return shortList(names)
}

func replacementList(rs []scheduler.NodeClaim) string {
	if len(rs) == 0 {
		return "-"
	}
	var names []string
	for _, r := range rs {
		names = append(names, fmt.Sprintf("%s (%s %s)", r.Name, r.InstanceType, r.CapacityType))
	}
	return shortList(names)
}

func movedPods(ms []disruption.Move) int {
	n := 0
	for _, m := range ms {
		if m.From != "" {
			n++
		}
	}
	return n
}

// shortList joins at most three names and counts the rest.
func shortList(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s (+%d more)", strings.Join(names[:shown], ", "), len(names)-shown)
}

func dollars(p float64) string { return "$" + strconv.FormatFloat(p, 'f', 4, 64) }
