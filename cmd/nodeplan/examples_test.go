package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

var update = flag.Bool("update", false, "rewrite testdata/examples/*/golden/plan.json from the current output")

// examplesDir holds one folder per example: manifests, a README.md and the
// golden plan golden/plan.json (in a subfolder, so that solving the folder
// reads only the manifests).
const examplesDir = "../../testdata/examples"

func examples(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(examplesDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	require.NotEmpty(t, names)
	return names
}

// manifestFiles returns the manifests of an example, in name order.
func manifestFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, ext := range []string{"*.yaml", "*.yml", "*.json"} {
		m, err := filepath.Glob(filepath.Join(dir, ext))
		require.NoError(t, err)
		files = append(files, m...)
	}
	slices.Sort(files)
	return files
}

// TestExamples runs `nodeplan solve -o json` on every example and compares
// the plan with golden/plan.json byte for byte; `go test ./cmd/nodeplan -update`
// rewrites the goldens. The plan must not change when the manifests are
// given in the reverse order, nor from one run to the next.
func TestExamples(t *testing.T) {
	for _, name := range examples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(examplesDir, name)
			var stdout, stderr bytes.Buffer
			code := run([]string{"solve", "-f", dir, "-o", "json"}, &stdout, &stderr)
			require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
			golden := filepath.Join(dir, "golden", "plan.json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, stdout.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "no golden plan; run go test ./cmd/nodeplan -update")
			if diff := gocmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("plan differs from %s (-want +got):\n%s", golden, diff)
			}

			args := []string{"solve", "-o", "json"}
			files := manifestFiles(t, dir)
			slices.Reverse(files)
			for _, f := range files {
				args = append(args, "-f", f)
			}
			var again bytes.Buffer
			require.Equal(t, exitOK, run(args, &again, &bytes.Buffer{}))
			if diff := gocmp.Diff(stdout.String(), again.String()); diff != "" {
				t.Errorf("plan depends on the order of the manifests (-first +reversed):\n%s", diff)
			}
		})
	}
}

// TestExamplesDecode checks every example's manifests on their own: they
// decode without errors, their NodePools are valid for the built-in
// catalog, and the only warnings are the ones the example is about.
func TestExamplesDecode(t *testing.T) {
	t.Parallel()
	wantWarnings := map[string][]string{
		"stress-test": {"stress-test/nodeclass.yaml: document 1: skipped kind AWSNodeClass"},
		"team-isolation": {`team-isolation/team-a.yaml: document 1 (Deployment default/team-a-deployment): ` +
			`apiVersion "v1" is not an apiVersion of Deployment; decoded as apps/v1 Deployment`},
	}
	for _, name := range examples(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(examplesDir, name)
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			require.NoError(t, err)
			require.NotEmpty(t, strings.TrimSpace(string(readme)))
			var files []manifest.File
			for _, f := range manifestFiles(t, dir) {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				files = append(files, manifest.File{Name: filepath.Join(name, filepath.Base(f)), Data: data})
			}
			in, err := manifest.Decode(files)
			require.NoError(t, err)
			if diff := gocmp.Diff(wantWarnings[name], in.Warnings); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", diff)
			}
			require.NotEmpty(t, in.Pods, "an example needs pods to place")
			require.NotEmpty(t, in.NodePools, "an example needs NodePools")
			for _, np := range in.NodePools {
				if errs := nodepool.Validate(np, aws.Schema()); len(errs) > 0 {
					t.Errorf("NodePool %s is invalid for the AWS catalog: %v", np.Name, errs)
				}
			}
		})
	}
}
