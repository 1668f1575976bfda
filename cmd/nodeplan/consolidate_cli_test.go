package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const consolidatePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
`

const consolidateNode = `apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-0-1
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/initialized: "true"
    node.kubernetes.io/instance-type: %s
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: on-demand
`

// TestConsolidateInvalidInput: bad input exits 2 with one error line per
// problem naming the file, the object and the field, and prints nothing
// on stdout.
func TestConsolidateInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		args  []string
		want  []string
	}{
		{"a node of an instance type the catalog does not know",
			map[string]string{"pool.yaml": consolidatePool, "node.yaml": strings.Replace(consolidateNode, "%s", "m9.huge", 1)}, nil,
			[]string{"node.yaml: document 1 (Node ip-10-0-0-1): metadata.labels[node.kubernetes.io/instance-type]: instance type \"m9.huge\" is not in the catalog"}},
		{"a budget of 110%",
			map[string]string{"pool.yaml": consolidatePool + "  disruption:\n    budgets:\n      - nodes: \"110%\"\n"}, nil,
			[]string{"pool.yaml: document 1 (NodePool default): spec.disruption.budgets[0].nodes"}},
		{"a schedule that does not parse",
			map[string]string{"pool.yaml": consolidatePool + "  disruption:\n    budgets:\n      - nodes: \"0\"\n        schedule: \"61 * * * *\"\n        duration: 1h\n"}, nil,
			[]string{"pool.yaml: document 1 (NodePool default): spec.disruption.budgets[0].schedule", "61 is out of range 0-59"}},
		{"a PodDisruptionBudget with minAvailable and maxUnavailable",
			map[string]string{"pool.yaml": consolidatePool, "pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: db\nspec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: db\n"}, nil,
			[]string{"pdb.yaml: document 1 (PodDisruptionBudget default/db): spec: ", "minAvailable and maxUnavailable cannot both be set"}},
		{"a PodDisruptionBudget with minAvailable above 100%",
			map[string]string{"pool.yaml": consolidatePool, "pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: db\nspec:\n  minAvailable: 150%\n  selector:\n    matchLabels:\n      app: db\n"}, nil,
			[]string{"pdb.yaml: document 1 (PodDisruptionBudget default/db): spec.minAvailable: Invalid value: \"150%\": must not be greater than 100%"}},
		{"a PodDisruptionBudget with a negative maxUnavailable",
			map[string]string{"pool.yaml": consolidatePool, "pdb.yaml": "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: db\nspec:\n  maxUnavailable: -1\n  selector:\n    matchLabels:\n      app: db\n"}, nil,
			[]string{"pdb.yaml: document 1 (PodDisruptionBudget default/db): spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"}},
		{"--min-savings with Karpenter's search", map[string]string{"pool.yaml": consolidatePool}, []string{"--min-savings", "0.1"},
			[]string{"--min-savings: only --search global has a minimum saving"}},
		{"a bad --now", map[string]string{"pool.yaml": consolidatePool}, []string{"--now", "yesterday"},
			[]string{"--now \"yesterday\": want an RFC 3339 time"}},
		{"an unknown search", map[string]string{"pool.yaml": consolidatePool}, []string{"--search", "best"},
			[]string{"--search \"best\": want karpenter or global"}},
		{"--prefer with Karpenter's search", map[string]string{"pool.yaml": consolidatePool}, []string{"--prefer", "lower-price"},
			[]string{"--prefer: only --search global has a choice"}},
		{"an unknown --prefer", map[string]string{"pool.yaml": consolidatePool}, []string{"--search", "global", "--prefer", "cheapest"},
			[]string{"--prefer \"cheapest\": want fewer-disruptions or lower-price"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			var stdout, stderr bytes.Buffer
			args := append([]string{"-f", dir, "--now", "2025-06-02T12:00:00Z"}, tc.args...)
			code := consolidateWith(args, &stdout, &stderr, noClock(t))
			require.Equal(t, exitInvalid, code, "stderr:\n%s", stderr.String())
			require.Empty(t, stdout.String())
			for _, w := range tc.want {
				require.Contains(t, stderr.String(), w)
			}
		})
	}
}

// TestConsolidateNext: --next prints the first command only, and the
// nodes the next command would take are kept as LaterCommand.
func TestConsolidateNext(t *testing.T) {
	dir := filepath.Join(consolidateDir, "budgets")
	var stdout, stderr bytes.Buffer
	args := append([]string{"-f", dir, "-o", "json", "--next"}, exampleArgs(t, dir)...)
	require.Equal(t, exitOK, consolidateWith(args, &stdout, &stderr, noClock(t)), stderr.String())
	require.Equal(t, 1, strings.Count(stdout.String(), `"method"`))
	require.Contains(t, stdout.String(), `"reason": "LaterCommand"`)
}

// TestConsolidatePreferLowerPrice: --prefer lower-price reaches Plan (its
// end is never dearer than the default's) and works with --next.
func TestConsolidatePreferLowerPrice(t *testing.T) {
	dir := filepath.Join(consolidateDir, "when-empty-or-underutilized")
	after := func(extra ...string) (float64, int) {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"-f", dir, "-o", "json", "--search", "global"}, exampleArgs(t, dir)...), extra...)
		require.Equal(t, exitOK, consolidateWith(args, &stdout, &stderr, noClock(t)), stderr.String())
		var out struct {
			Commands []json.RawMessage `json:"commands"`
			Summary  struct {
				PricePerHourAfter float64 `json:"pricePerHourAfter"`
			} `json:"summary"`
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
		return out.Summary.PricePerHourAfter, len(out.Commands)
	}
	def, _ := after()
	low, n := after("--prefer", "lower-price")
	require.LessOrEqual(t, low, def)
	require.Positive(t, n)
	_, n = after("--prefer", "lower-price", "--next")
	require.Equal(t, 1, n)
}
