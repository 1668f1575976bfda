package scheduler_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

var update = flag.Bool("update", false, "rewrite testdata/scenarios/*/want.txt from the current plans")

// A scenario is a folder under testdata/scenarios:
//
//	scenario.yaml  what it shows, solve options and expectations (below)
//	*.yaml         the manifests (NodePools, pods, workloads, nodes, volumes)
//	catalog.json   optional instance-type catalog (default: built-in AWS, us-east-1)
//	want.txt       golden plan summary, rewritten with -update
//
// Expectations are checked on every run; the golden summary pins the rest
// of the plan so any change is a visible diff.
type scenarioSpec struct {
	Description string `json:"description"`
	// Skip, when set, names a known solver bug the scenario exposes; the
	// scenario is skipped until it is fixed.
	Skip    string `json:"skip,omitempty"`
	Options struct {
		PreferencePolicy string   `json:"preferencePolicy,omitempty"`
		MinValuesPolicy  string   `json:"minValuesPolicy,omitempty"`
		Zones            []string `json:"zones,omitempty"`
		Region           string   `json:"region,omitempty"`
		// Catalog is a catalog JSON file relative to the scenario folder
		// (e.g. ../../catalogs/k.json); catalog.json in the folder wins.
		Catalog string `json:"catalog,omitempty"`
		// ExistingNodesFirst plans with scheduler.WithExistingNodesFirst.
		ExistingNodesFirst bool `json:"existingNodesFirst,omitempty"`
	} `json:"options"`
	Expect expectations `json:"expect"`
}

type expectations struct {
	// Scheduled is the number of pods placed (new or existing nodes).
	Scheduled *int `json:"scheduled,omitempty"`
	// NodeClaims bounds the number of NodeClaims.
	NodeClaims    *int `json:"nodeClaims,omitempty"`
	MinNodeClaims *int `json:"minNodeClaims,omitempty"`
	MaxNodeClaims *int `json:"maxNodeClaims,omitempty"`
	// Unplaced lists pods ("ns/name") that must be in podErrors; every other
	// pod must be placed unless AllowUnplaced is set.
	Unplaced      []string `json:"unplaced,omitempty"`
	AllowUnplaced bool     `json:"allowUnplaced,omitempty"`
	// ReasonContains maps an unplaced pod to text its reason must contain.
	ReasonContains map[string]string `json:"reasonContains,omitempty"`
	// ReasonCode maps an unplaced pod to its reason code.
	ReasonCode map[string]string `json:"reasonCode,omitempty"`
	// Pool maps a pod to the NodePool of its NodeClaim.
	Pool map[string]string `json:"pool,omitempty"`
	// Existing maps a pod to the existing node it must be placed on.
	Existing map[string]string `json:"existing,omitempty"`
	// Together lists groups of pods that must share a node; Apart groups
	// whose pods must all be on different nodes.
	Together [][]string `json:"together,omitempty"`
	Apart    [][]string `json:"apart,omitempty"`
	// Label maps a pod to labels its NodeClaim must carry (label → value).
	Label map[string]map[string]string `json:"label,omitempty"`
	// Zone maps a pod to the allowed zones of its NodeClaim's chosen offering.
	Zone map[string][]string `json:"zone,omitempty"`
	// CapacityType maps a pod to the capacity type of its NodeClaim.
	CapacityType map[string]string `json:"capacityType,omitempty"`
	// InstanceType maps a pod to the allowed instance types of its NodeClaim.
	InstanceType map[string][]string `json:"instanceType,omitempty"`
	// Taint maps a pod to taint keys its NodeClaim must carry.
	Taint map[string][]string `json:"taint,omitempty"`
	// PodsPerZone: label selector "k=v" → zone → count, counting placed pods
	// with that label by their NodeClaim's zone.
	PodsPerZone map[string]map[string]int `json:"podsPerZone,omitempty"`
	// PodsPerLabel: label selector "k=v" → node label key → value → count.
	PodsPerLabel map[string]map[string]map[string]int `json:"podsPerLabel,omitempty"`
	// MaxPerNode: label selector "k=v" → the most such pods on one node.
	MaxPerNode map[string]int `json:"maxPerNode,omitempty"`
	// MaxPrice bounds the plan's price per hour.
	MaxPrice *float64 `json:"maxPrice,omitempty"`

	// LabelsSatisfy maps a pod to node-selector expressions (ANDed) that
	// its NodeClaim's labels must satisfy, matched by Kubernetes' own
	// nodeaffinity: Exists / DoesNotExist for a label's presence, NotIn for
	// values it must not have, Gt / Lt for generated integers.
	LabelsSatisfy map[string][]corev1.NodeSelectorRequirement `json:"labelsSatisfy,omitempty"`
	// Requests maps a pod to resources its NodeClaim's requests must equal
	// (resource → quantity; the quantities are compared, not their text).
	Requests map[string]map[string]string `json:"requests,omitempty"`
	// OptionsSatisfy maps a pod to node-selector expressions (ANDed) that
	// the catalog labels of its NodeClaim's instance type and of every
	// instance-type option must satisfy, matched by Kubernetes' own
	// nodeaffinity. Only instance-type labels are seen (not zone or
	// capacity type, which belong to offerings).
	OptionsSatisfy map[string][]corev1.NodeSelectorRequirement `json:"optionsSatisfy,omitempty"`
	// Requirements maps a pod to expressions that must appear among its
	// NodeClaim's requirements (same key and operator, the same values in
	// any order, and the same minValues when one is given).
	Requirements map[string][]requirements.Expression `json:"requirements,omitempty"`
	// MinOptions maps a pod to the least number of instance-type options of
	// its NodeClaim; Options to the exact options, cheapest first.
	MinOptions map[string]int      `json:"minOptions,omitempty"`
	Options    map[string][]string `json:"options,omitempty"`
	// ReservationID maps a pod to the capacity reservation of its
	// NodeClaim's offering ("" = none).
	ReservationID map[string]string `json:"reservationID,omitempty"`
	// MinValuesRelaxed maps a pod to whether BestEffort lowered a minValues
	// on its NodeClaim.
	MinValuesRelaxed map[string]bool `json:"minValuesRelaxed,omitempty"`
	// MaxPoolCapacity: NodePool → resource → the most capacity its
	// NodeClaims may add up to, each counted at the largest capacity among
	// its instance-type options (whichever the cloud launches); the
	// resource "nodes" counts NodeClaims.
	MaxPoolCapacity map[string]map[string]string `json:"maxPoolCapacity,omitempty"`
	// Relaxed maps a pod to text one of its dropped preferences must
	// contain ("" = any); NotRelaxed lists pods placed with nothing dropped.
	Relaxed    map[string]string `json:"relaxed,omitempty"`
	NotRelaxed []string          `json:"notRelaxed,omitempty"`
}

type scenario struct {
	name    string
	dir     string
	spec    scenarioSpec
	in      manifest.Input
	catalog instancetypes.Catalog
	opts    []scheduler.Option
}

func loadScenario(t *testing.T, dir string) scenario {
	t.Helper()
	sc := scenario{name: filepath.Base(dir), dir: dir}
	raw, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.UnmarshalStrict(raw, &sc.spec), "scenario.yaml")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []manifest.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || n == "scenario.yaml" || n == "want.txt" || n == "catalog.json" {
			continue
		}
		if !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") && !strings.HasSuffix(n, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		files = append(files, manifest.File{Name: n, Data: data})
	}
	sc.in, err = manifest.Decode(files)
	require.NoError(t, err, "manifests")
	catalogFile := filepath.Join(dir, "catalog.json")
	if _, err := os.Stat(catalogFile); err != nil && sc.spec.Options.Catalog != "" {
		catalogFile = filepath.Join(dir, sc.spec.Options.Catalog)
	}
	if data, err := os.ReadFile(catalogFile); err == nil {
		sc.catalog, err = instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
		require.NoError(t, err, "catalog.json")
	} else {
		var opts []aws.Option
		if sc.spec.Options.Region != "" {
			opts = append(opts, aws.WithRegion(sc.spec.Options.Region))
		}
		if len(sc.spec.Options.Zones) > 0 {
			opts = append(opts, aws.WithZones(sc.spec.Options.Zones...))
		}
		sc.catalog, err = aws.Catalog(opts...)
		require.NoError(t, err)
	}
	sc.opts = sc.in.Options()
	if p := sc.spec.Options.PreferencePolicy; p != "" {
		sc.opts = append(sc.opts, scheduler.WithPreferencePolicy(scheduler.PreferencePolicy(p)))
	}
	if sc.spec.Options.ExistingNodesFirst {
		sc.opts = append(sc.opts, scheduler.WithExistingNodesFirst())
	}
	if p := sc.spec.Options.MinValuesPolicy; p != "" {
		sc.opts = append(sc.opts, scheduler.WithMinValuesPolicy(scheduler.MinValuesPolicy(p)))
	}
	return sc
}

func TestScenarios(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*"))
	require.NoError(t, err)
	for _, dir := range dirs {
		if st, err := os.Stat(filepath.Join(dir, "scenario.yaml")); err != nil || st.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			sc := loadScenario(t, dir)
			if sc.spec.Skip != "" && os.Getenv("NODEPLAN_RUN_SKIPPED") == "" {
				t.Skip("known issue: " + sc.spec.Skip)
			}
			res, err := scheduler.Solve(sc.in.Pods, sc.in.NodePools, sc.catalog, sc.opts...)
			require.NoError(t, err)
			checkAccounting(t, sc.in, res)
			checkVerify(t, sc, res)
			sc.check(t, res)
			got := summarize(res)
			golden := filepath.Join(dir, "want.txt")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "no golden summary; run go test ./scheduler -run TestScenarios -update")
			if diff := gocmp.Diff(string(want), got); diff != "" {
				t.Errorf("plan summary changed (-want +got); if intended, rerun with -update and review:\n%s", diff)
			}
		})
	}
}

// checkVerify runs the independent plan checker (scheduler/verify).
func checkVerify(t *testing.T, sc scenario, res scheduler.Result) {
	t.Helper()
	if err := verify.Plan(sc.in.Pods, sc.in.NodePools, sc.catalog, res, sc.opts...); err != nil {
		t.Errorf("verify.Plan: %v", err)
	}
}

// checkAccounting asserts that every pending pod appears exactly once.
func checkAccounting(t *testing.T, in manifest.Input, res scheduler.Result) {
	t.Helper()
	seen := map[string]int{}
	for _, nc := range res.NodeClaims {
		for _, p := range nc.Pods {
			seen[p]++
		}
	}
	for _, n := range res.ExistingNodes {
		for _, p := range n.Pods {
			seen[p]++
		}
	}
	for _, e := range res.PodErrors {
		seen[e.Pod]++
	}
	for _, p := range pendingPods(in) {
		name := p.Namespace + "/" + p.Name
		if p.Namespace == "" {
			name = "default/" + p.Name
		}
		if seen[name] != 1 {
			t.Errorf("pod %s appears %d times in the plan, want exactly once", name, seen[name])
		}
		delete(seen, name)
	}
	for p := range seen {
		t.Errorf("plan names pod %s that was not an input", p)
	}
}

// placement returns, per pod, its NodeClaim (or nil) and existing node.
type placement struct {
	claims map[string]*scheduler.NodeClaim
	nodes  map[string]string
	errs   map[string]scheduler.PodError
}

func placements(res scheduler.Result) placement {
	pl := placement{claims: map[string]*scheduler.NodeClaim{}, nodes: map[string]string{}, errs: map[string]scheduler.PodError{}}
	for i := range res.NodeClaims {
		for _, p := range res.NodeClaims[i].Pods {
			pl.claims[p] = &res.NodeClaims[i]
		}
	}
	for _, n := range res.ExistingNodes {
		for _, p := range n.Pods {
			pl.nodes[p] = n.Name
		}
	}
	for _, e := range res.PodErrors {
		pl.errs[e.Pod] = e
	}
	return pl
}

func (pl placement) host(pod string) string {
	if c, ok := pl.claims[pod]; ok {
		return "claim/" + c.Name
	}
	if n, ok := pl.nodes[pod]; ok {
		return "node/" + n
	}
	return ""
}

func (sc scenario) check(t *testing.T, res scheduler.Result) {
	t.Helper()
	e := sc.spec.Expect
	pl := placements(res)
	if e.Scheduled != nil && res.Summary.Scheduled != *e.Scheduled {
		t.Errorf("scheduled = %d, want %d", res.Summary.Scheduled, *e.Scheduled)
	}
	if e.NodeClaims != nil && len(res.NodeClaims) != *e.NodeClaims {
		t.Errorf("nodeClaims = %d, want %d", len(res.NodeClaims), *e.NodeClaims)
	}
	if e.MinNodeClaims != nil && len(res.NodeClaims) < *e.MinNodeClaims {
		t.Errorf("nodeClaims = %d, want at least %d", len(res.NodeClaims), *e.MinNodeClaims)
	}
	if e.MaxNodeClaims != nil && len(res.NodeClaims) > *e.MaxNodeClaims {
		t.Errorf("nodeClaims = %d, want at most %d", len(res.NodeClaims), *e.MaxNodeClaims)
	}
	var gotUnplaced []string
	for _, pe := range res.PodErrors {
		gotUnplaced = append(gotUnplaced, pe.Pod)
	}
	if !e.AllowUnplaced {
		want := slices.Clone(e.Unplaced)
		slices.Sort(want)
		if diff := gocmp.Diff(want, gotUnplaced, cmpEmpty); diff != "" {
			t.Errorf("unplaced pods (-want +got):\n%s\nreasons: %v", diff, res.PodErrors)
		}
	} else {
		for _, p := range e.Unplaced {
			if _, ok := pl.errs[p]; !ok {
				t.Errorf("pod %s should be unplaced", p)
			}
		}
	}
	for p, s := range e.ReasonContains {
		if pe, ok := pl.errs[p]; !ok || !strings.Contains(pe.Reason, s) {
			t.Errorf("pod %s reason %q should contain %q", p, pe.Reason, s)
		}
	}
	for p, code := range e.ReasonCode {
		if pe, ok := pl.errs[p]; !ok || string(pe.Code) != code {
			t.Errorf("pod %s reason code %q, want %q (reason %q)", p, pe.Code, code, pe.Reason)
		}
	}
	claimOf := func(p string) *scheduler.NodeClaim {
		c, ok := pl.claims[p]
		if !ok {
			t.Errorf("pod %s is not on a NodeClaim (host %q, error %q)", p, pl.host(p), pl.errs[p].Reason)
		}
		return c
	}
	for p, pool := range e.Pool {
		if c := claimOf(p); c != nil && c.NodePool != pool {
			t.Errorf("pod %s is on NodePool %s, want %s", p, c.NodePool, pool)
		}
	}
	for p, node := range e.Existing {
		if pl.nodes[p] != node {
			t.Errorf("pod %s is on %q, want existing node %s", p, pl.host(p), node)
		}
	}
	for _, group := range e.Together {
		for _, p := range group[1:] {
			if pl.host(p) == "" || pl.host(p) != pl.host(group[0]) {
				t.Errorf("pods %s (%s) and %s (%s) should share a node", group[0], pl.host(group[0]), p, pl.host(p))
			}
		}
	}
	for _, group := range e.Apart {
		seen := map[string]string{}
		for _, p := range group {
			h := pl.host(p)
			if h == "" {
				t.Errorf("pod %s is not placed", p)
				continue
			}
			if o, dup := seen[h]; dup {
				t.Errorf("pods %s and %s share %s, want different nodes", o, p, h)
			}
			seen[h] = p
		}
	}
	for p, labels := range e.Label {
		if c := claimOf(p); c != nil {
			for k, v := range labels {
				if c.Labels[k] != v {
					t.Errorf("pod %s: NodeClaim %s label %s = %q, want %q", p, c.Name, k, c.Labels[k], v)
				}
			}
		}
	}
	for p, zones := range e.Zone {
		if c := claimOf(p); c != nil && !slices.Contains(zones, c.Zone) {
			t.Errorf("pod %s: NodeClaim %s zone %s, want one of %v", p, c.Name, c.Zone, zones)
		}
	}
	for p, ct := range e.CapacityType {
		if c := claimOf(p); c != nil && c.CapacityType != ct {
			t.Errorf("pod %s: NodeClaim %s capacity type %s, want %s", p, c.Name, c.CapacityType, ct)
		}
	}
	for p, types := range e.InstanceType {
		if c := claimOf(p); c != nil && !slices.Contains(types, c.InstanceType) {
			t.Errorf("pod %s: NodeClaim %s instance type %s, want one of %v", p, c.Name, c.InstanceType, types)
		}
	}
	for p, keys := range e.Taint {
		if c := claimOf(p); c != nil {
			for _, k := range keys {
				if !slices.ContainsFunc(c.Taints, func(tt corev1Taint) bool { return tt.Key == k }) {
					t.Errorf("pod %s: NodeClaim %s has no taint %s", p, c.Name, k)
				}
			}
		}
	}
	podLabels := map[string]map[string]string{}
	for _, p := range sc.in.Pods {
		ns := p.Namespace
		if ns == "" {
			ns = "default"
		}
		podLabels[ns+"/"+p.Name] = p.Labels
	}
	matches := func(sel, pod string) bool {
		k, v, _ := strings.Cut(sel, "=")
		return podLabels[pod][k] == v
	}
	for sel, want := range e.PodsPerZone {
		got := map[string]int{}
		for p, c := range pl.claims {
			if matches(sel, p) {
				got[c.Zone]++
			}
		}
		if diff := gocmp.Diff(want, got, cmpEmpty); diff != "" {
			t.Errorf("pods %s per zone (-want +got):\n%s", sel, diff)
		}
	}
	for sel, byKey := range e.PodsPerLabel {
		for key, want := range byKey {
			got := map[string]int{}
			for p, c := range pl.claims {
				if matches(sel, p) {
					got[c.Labels[key]]++
				}
			}
			if diff := gocmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Errorf("pods %s per %s (-want +got):\n%s", sel, key, diff)
			}
		}
	}
	for sel, most := range e.MaxPerNode {
		count := map[string]int{}
		for p := range podLabels {
			if h := pl.host(p); h != "" && matches(sel, p) {
				count[h]++
			}
		}
		for h, n := range count {
			if n > most {
				t.Errorf("%d pods %s on %s, want at most %d", n, sel, h, most)
			}
		}
	}
	if e.MaxPrice != nil && res.Summary.PricePerHour > *e.MaxPrice {
		t.Errorf("price %.4f $/h, want at most %.4f", res.Summary.PricePerHour, *e.MaxPrice)
	}
	sc.checkClaims(t, res, claimOf)
}

// checkClaims checks the expectations on NodeClaim details: labels,
// requests, instance-type options, reservations, pool capacity and
// relaxations.
func (sc scenario) checkClaims(t *testing.T, res scheduler.Result, claimOf func(string) *scheduler.NodeClaim) {
	t.Helper()
	e := sc.spec.Expect
	for p, exprs := range e.LabelsSatisfy {
		if c := claimOf(p); c != nil && !matchLabels(t, exprs, c.Labels) {
			t.Errorf("pod %s: NodeClaim %s labels %v do not satisfy %v", p, c.Name, c.Labels, exprs)
		}
	}
	for p, want := range e.Requests {
		if c := claimOf(p); c != nil {
			for name, qs := range want {
				q := resource.MustParse(qs)
				if got, ok := c.Requests[corev1.ResourceName(name)]; !ok || got.Cmp(q) != 0 {
					t.Errorf("pod %s: NodeClaim %s requests %s = %s, want %s", p, c.Name, name, got.String(), qs)
				}
			}
		}
	}
	for p, exprs := range e.OptionsSatisfy {
		c := claimOf(p)
		if c == nil {
			continue
		}
		for _, name := range append([]string{c.InstanceType}, c.InstanceTypeOptions...) {
			it, ok := sc.catalog.Get(name)
			if !ok {
				t.Errorf("pod %s: NodeClaim %s names instance type %s that is not in the catalog", p, c.Name, name)
			} else if !matchLabels(t, exprs, it.Labels) {
				t.Errorf("pod %s: NodeClaim %s instance type %s (labels %v) does not satisfy %v", p, c.Name, name, it.Labels, exprs)
			}
		}
	}
	for p, exprs := range e.Requirements {
		c := claimOf(p)
		if c == nil {
			continue
		}
		for _, want := range exprs {
			if !slices.ContainsFunc(c.Requirements, func(got requirements.Expression) bool { return sameExpression(want, got) }) {
				t.Errorf("pod %s: NodeClaim %s has no requirement %v among %v", p, c.Name, want, c.Requirements)
			}
		}
	}
	for p, n := range e.MinOptions {
		if c := claimOf(p); c != nil && len(c.InstanceTypeOptions) < n {
			t.Errorf("pod %s: NodeClaim %s has %d instance-type options %v, want at least %d", p, c.Name, len(c.InstanceTypeOptions), c.InstanceTypeOptions, n)
		}
	}
	for p, want := range e.Options {
		if c := claimOf(p); c != nil {
			if diff := gocmp.Diff(want, c.InstanceTypeOptions); diff != "" {
				t.Errorf("pod %s: NodeClaim %s instance-type options (-want +got):\n%s", p, c.Name, diff)
			}
		}
	}
	for p, id := range e.ReservationID {
		if c := claimOf(p); c != nil && c.ReservationID != id {
			t.Errorf("pod %s: NodeClaim %s reservation %q, want %q", p, c.Name, c.ReservationID, id)
		}
	}
	for p, want := range e.MinValuesRelaxed {
		if c := claimOf(p); c != nil && c.MinValuesRelaxed != want {
			t.Errorf("pod %s: NodeClaim %s minValuesRelaxed = %v, want %v", p, c.Name, c.MinValuesRelaxed, want)
		}
	}
	sc.checkPoolCapacity(t, res)
	dropped := map[string][]string{}
	for _, r := range res.Relaxations {
		dropped[r.Pod] = append(dropped[r.Pod], r.Dropped...)
	}
	for p, text := range e.Relaxed {
		if !slices.ContainsFunc(dropped[p], func(d string) bool { return strings.Contains(d, text) }) {
			t.Errorf("pod %s: relaxations %q, want one containing %q", p, dropped[p], text)
		}
	}
	for _, p := range e.NotRelaxed {
		if len(dropped[p]) > 0 {
			t.Errorf("pod %s: relaxations %q, want none", p, dropped[p])
		}
	}
}

// sameExpression reports whether got is the expression want: the same key
// and operator, the same values as a set, and want's minValues if it sets one.
func sameExpression(want, got requirements.Expression) bool {
	if want.Key != got.Key || want.Operator != got.Operator || (want.MinValues != 0 && want.MinValues != got.MinValues) {
		return false
	}
	w, g := slices.Sorted(slices.Values(want.Values)), slices.Sorted(slices.Values(got.Values))
	return slices.Equal(w, g)
}

// matchLabels reports whether labels satisfy every expression, by
// Kubernetes' own node-selector matching.
func matchLabels(t *testing.T, exprs []corev1.NodeSelectorRequirement, labels map[string]string) bool {
	t.Helper()
	sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}})
	require.NoError(t, err, "expectation %v", exprs)
	return sel.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}})
}

// checkPoolCapacity adds up, per NodePool, the largest capacity among each
// NodeClaim's instance-type options and compares it with MaxPoolCapacity.
func (sc scenario) checkPoolCapacity(t *testing.T, res scheduler.Result) {
	t.Helper()
	for pool, limits := range sc.spec.Expect.MaxPoolCapacity {
		total := corev1.ResourceList{}
		claims := 0
		for _, c := range res.NodeClaims {
			if c.NodePool != pool {
				continue
			}
			claims++
			largest := corev1.ResourceList{}
			for _, name := range append([]string{c.InstanceType}, c.InstanceTypeOptions...) {
				it, ok := sc.catalog.Get(name)
				if !ok {
					continue
				}
				for r, q := range it.Capacity {
					if l, ok := largest[r]; !ok || q.Cmp(l) > 0 {
						largest[r] = q
					}
				}
			}
			for r, q := range largest {
				sum := total[r]
				sum.Add(q)
				total[r] = sum
			}
		}
		for name, qs := range limits {
			limit := resource.MustParse(qs)
			got := total[corev1.ResourceName(name)]
			if name == "nodes" {
				got = *resource.NewQuantity(int64(claims), resource.DecimalSI)
			}
			if got.Cmp(limit) > 0 {
				t.Errorf("NodePool %s: NodeClaims' capacity %s = %s, want at most %s", pool, name, got.String(), qs)
			}
		}
	}
}

// cmpEmpty treats nil and empty slices and maps as equal: an empty golden
// list and no list say the same.
var cmpEmpty = gocmpEquateEmpty()

// summarize renders the plan compactly and deterministically for the golden
// file: one line per NodeClaim, per existing node and per unplaced pod.
func summarize(res scheduler.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pods %d scheduled %d nodeClaims %d price %.6f bound %.6f\n", res.Summary.Pods, res.Summary.Scheduled,
		res.Summary.NodeClaims, res.Summary.PricePerHour, res.Summary.PriceLowerBound)
	for _, nc := range res.NodeClaims {
		fmt.Fprintf(&b, "claim %s pool=%s type=%s zone=%s capacity=%s price=%.6f options=%d pods=%s\n", nc.Name, nc.NodePool,
			nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, len(nc.InstanceTypeOptions), strings.Join(nc.Pods, ","))
	}
	for _, n := range res.ExistingNodes {
		fmt.Fprintf(&b, "node %s pods=%s\n", n.Name, strings.Join(n.Pods, ","))
	}
	for _, e := range res.PodErrors {
		fmt.Fprintf(&b, "unplaced %s [%s] %s\n", e.Pod, e.Code, e.Reason)
	}
	return b.String()
}

// pendingPods are the pods a plan must account for: the pending ones, and
// the active pods of nodes being deleted (Solve reschedules them).
func pendingPods(in manifest.Input) []*corev1.Pod {
	out := slices.Clone(in.Pods)
	deleting := map[string]bool{}
	for _, n := range in.Nodes {
		if n.DeletionTimestamp != nil {
			deleting[n.Name] = true
		}
	}
	for _, p := range in.BoundPods {
		if !deleting[p.Spec.NodeName] || p.DeletionTimestamp != nil ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed ||
			slices.ContainsFunc(p.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" }) {
			continue
		}
		out = append(out, p)
	}
	return out
}
