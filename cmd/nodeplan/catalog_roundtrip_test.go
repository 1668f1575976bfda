package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/benchdata"
)

// TestBuiltinCatalogRoundTrip writes the built-in catalog out with
// `nodeplan catalog -o json` and plans with it (--catalog): the file names
// its provider, so it reads back with the AWS vocabulary
// (topology.ebs.csi.aws.com/zone stays an alias of the zone, karpenter.k8s.aws
// stays restricted), and every plan is byte-identical to the built-in
// catalog's, on aws-mixed-1000 and on every example.
func TestBuiltinCatalogRoundTrip(t *testing.T) {
	t.Parallel()
	var out, stderr bytes.Buffer
	require.Equal(t, exitOK, run([]string{"catalog", "-o", "json"}, &out, &stderr), "stderr:\n%s", stderr.String())
	require.Contains(t, out.String(), `"provider":"aws"`)
	dir := t.TempDir()
	file := filepath.Join(dir, "catalog.json")
	require.NoError(t, os.WriteFile(file, out.Bytes(), 0o644))

	mixed := filepath.Join(dir, "aws-mixed-1000")
	require.NoError(t, os.MkdirAll(mixed, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mixed, "workload.json"), benchdata.AWSMixed(1000, benchdata.AWSMixedDefaultSeed()), 0o644))
	scenarios := []string{mixed}
	for _, name := range examples(t) {
		scenarios = append(scenarios, filepath.Join(examplesDir, name))
	}
	for _, dir := range scenarios {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			var builtin, fromFile, errs bytes.Buffer
			require.Equal(t, exitOK, run([]string{"solve", "-f", dir, "-o", "json"}, &builtin, &errs), "stderr:\n%s", errs.String())
			require.Equal(t, exitOK, run([]string{"solve", "-f", dir, "-o", "json", "--catalog", file}, &fromFile, &errs), "stderr:\n%s", errs.String())
			if diff := gocmp.Diff(builtin.String(), fromFile.String()); diff != "" {
				t.Errorf("the plan on the written-out catalog differs (-builtin +file):\n%s", diff)
			}
		})
	}
}
