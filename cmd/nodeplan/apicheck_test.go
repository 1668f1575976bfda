package main

import (
	"bytes"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// A manifest the API server would reject makes `nodeplan solve` exit 2 with
// the file, document, object and field, and print no plan.
func TestSolveRejectsWhatTheAPIServerRejects(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"nodepool.yaml": validNodePool,
		"pods.yaml":     strings.Replace(validPod, "cpu: 500m", `cpu: "-500m"`, 1),
		"nodes.yaml":    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: gpu, effect: Never}]\n",
	})
	var stdout, stderr bytes.Buffer
	code := run([]string{"solve", "-f", dir}, &stdout, &stderr)
	want := []string{
		`error: {dir}/nodes.yaml: document 1 (Node n1): spec.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		`error: {dir}/pods.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests[cpu]: Invalid value: "-500m": must be greater than or equal to 0`,
	}
	got := strings.Split(strings.TrimSpace(strings.ReplaceAll(stderr.String(), dir, "{dir}")), "\n")
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if code != exitInvalid || stdout.Len() > 0 {
		t.Errorf("exit %d with %d bytes on stdout; want %d and none", code, stdout.Len(), exitInvalid)
	}
}
