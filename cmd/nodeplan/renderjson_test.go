package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/scheduler"
)

// plainJSON is the plan as one encoding/json encoder writes it: what
// writePlan must reproduce byte for byte.
func plainJSON(t *testing.T, res scheduler.Result) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(normalize(res)))
	return b.String()
}

// bigPlan has n of each list, with strings that HTML escaping would change.
func bigPlan(n int) scheduler.Result {
	var res scheduler.Result
	for i := range n {
		res.NodeClaims = append(res.NodeClaims, scheduler.NodeClaim{
			Name: fmt.Sprintf("default-%d", i), NodePool: "default", InstanceType: "m5.large", Price: 0.096 + float64(i)/1e4,
			InstanceTypeOptions: []string{"m5.large", "m6i.large"}, Labels: map[string]string{"b": "<&>", "a": fmt.Sprint(i)},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")},
			Pods:     []string{fmt.Sprintf("default/p-%d", i)},
		})
		res.ExistingNodes = append(res.ExistingNodes, scheduler.NodePlacement{Name: fmt.Sprintf("node-%d", i), Pods: []string{"x"}})
		res.PodErrors = append(res.PodErrors, scheduler.PodError{Pod: fmt.Sprintf("default/q-%d", i), Reason: "cpu < 2 & memory > 1Gi", Code: scheduler.ReasonInsufficient})
		res.Relaxations = append(res.Relaxations, scheduler.Relaxation{Pod: fmt.Sprintf("default/r-%d", i), Dropped: []string{"\"zone\""}})
	}
	res.Summary = scheduler.Summary{Pods: 3 * n, Scheduled: n, NodeClaims: n, PricePerHour: 1.5}
	return res
}

func TestWritePlanIsTheEncoders(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, listChunk - 1, listChunk, listChunk + 1, 5*listChunk + 3} {
		for _, workers := range []int{1, 2, 3, 8} {
			t.Run(fmt.Sprintf("elements=%d/workers=%d", n, workers), func(t *testing.T) {
				t.Parallel()
				res := bigPlan(n)
				var b bytes.Buffer
				require.NoError(t, writePlan(&b, normalize(res), workers))
				b.WriteByte('\n')
				if diff := gocmp.Diff(plainJSON(t, res), b.String()); diff != "" {
					t.Errorf("writePlan() mismatch (-encoding/json +writePlan):\n%s", diff)
				}
			})
		}
	}
}

func TestIndentJSONIsJSONIndent(t *testing.T) {
	t.Parallel()
	values := []struct {
		name string
		v    any
	}{
		{name: "empty object", v: map[string]any{}},
		{name: "empty array", v: []int{}},
		{name: "scalars", v: []any{1, -2.5e-7, true, false, nil, "x"}},
		{name: "nested empties", v: map[string]any{"a": []any{map[string]any{}, []int{}, [][]int{{}}}, "b": map[string]any{"c": map[string]any{}}}},
		{name: "punctuation in strings", v: map[string]string{"{[,:]}": "}],:{[", "q": `say "hi", \ ok`}},
		{name: "backslashes before quotes", v: []string{`\`, `\\`, `a\"b`, `"`, `\"`, `""`}},
		{name: "unicode and control", v: []string{"é\u2028\t\n<&>", "\x01"}},
		{name: "a plan", v: normalize(bigPlan(3))},
	}
	for _, prefix := range []string{"", "    "} {
		for _, tc := range values {
			t.Run(fmt.Sprintf("%s/prefix=%d", tc.name, len(prefix)), func(t *testing.T) {
				t.Parallel()
				var compact bytes.Buffer
				enc := json.NewEncoder(&compact)
				enc.SetEscapeHTML(false)
				require.NoError(t, enc.Encode(tc.v))
				src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
				var want bytes.Buffer
				require.NoError(t, json.Indent(&want, src, prefix, "  "))
				if diff := gocmp.Diff(want.String(), string(indentJSON(nil, src, prefix))); diff != "" {
					t.Errorf("indentJSON() mismatch (-json.Indent +indentJSON):\n%s", diff)
				}
			})
		}
	}
}
