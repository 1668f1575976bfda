package manifest_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

const podYAML = "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec: {containers: [{name: c}]}\n"

func pod(name string) []byte { return []byte(strings.ReplaceAll(podYAML, "%s", name)) }

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// tree writes files (relative name → content) under a temporary folder.
func tree(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	return dir
}

func podNames(in manifest.Input) []string {
	var out []string
	for _, p := range in.Pods {
		out = append(out, p.Name)
	}
	return out
}

func TestReadFiles(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string][]byte{
		"b.yaml":         pod("b"),
		"a.yml":          pod("a"),
		"c.json":         []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c"},"spec":{"containers":[{"name":"c"}]}}`),
		"d.yaml.gz":      gz(t, pod("d")),
		"notes.txt":      []byte("not a manifest"),
		"sub/e.yaml":     pod("e"),
		".hidden/f.yaml": pod("f"),
	})
	tests := []struct {
		name      string
		paths     []string
		recursive bool
		want      []string
	}{
		{name: "folder in name order, gzip decompressed", paths: []string{dir}, want: []string{"a", "b", "c", "d"}},
		{name: "recursive skips hidden folders", paths: []string{dir}, recursive: true, want: []string{"a", "b", "c", "d", "e"}},
		{name: "a file named twice is read once", paths: []string{filepath.Join(dir, "b.yaml"), dir}, want: []string{"b", "a", "c", "d"}},
		{name: "a file is read whatever its name", paths: []string{filepath.Join(dir, "sub", "e.yaml")}, want: []string{"e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files, err := manifest.ReadFiles(tt.paths, tt.recursive)
			require.NoError(t, err)
			in, err := manifest.Decode(files)
			require.NoError(t, err)
			if diff := gocmp.Diff(tt.want, podNames(in)); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFilesErrors(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string][]byte{"ok.yaml": pod("ok"), "bad.yaml.gz": []byte("certainly not gzip"), "empty/x.txt": nil})
	missing := filepath.Join(dir, "missing.yaml")
	files, err := manifest.ReadFiles([]string{missing, filepath.Join(dir, "empty"), dir}, false)
	var lines []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		lines = append(lines, strings.ReplaceAll(e.Error(), dir, "{dir}"))
	}
	want := []string{
		"{dir}/missing.yaml: no such file or directory",
		"{dir}/empty: no .yaml, .yml or .json file in the folder (its sub-folders are read only when recursive)",
		"{dir}/bad.yaml.gz: gzip: invalid header",
	}
	if diff := gocmp.Diff(want, lines); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	var fe *manifest.FileError
	require.True(t, errors.As(err, &fe), "a file that cannot be read is a *FileError")
	if diff := gocmp.Diff([]string{filepath.Join(dir, "ok.yaml")}, []string{files[0].Name}); diff != "" || len(files) != 1 {
		t.Errorf("the readable files are still returned (-want +got):\n%s", diff)
	}
}

func TestLoadJoinsReadAndDecodeErrors(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string][]byte{"bad.yaml": []byte("apiVersion: v1\nkind: Pod\nmetadata: {}\n")})
	_, err := manifest.Load(dir, filepath.Join(dir, "missing"))
	require.Error(t, err)
	var errs manifest.Errors
	require.True(t, errors.As(err, &errs), "decode errors are manifest.Errors")
	var fe *manifest.FileError
	require.True(t, errors.As(err, &fe), "read errors are *FileError")
	if diff := gocmp.Diff("metadata.name: Required value: every object needs a name", errs[0].Err.Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	in, err := manifest.Decode([]manifest.File{{Name: "c.yaml", Data: []byte(`apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
`)}})
	require.NoError(t, err)
	if got := len(in.Options()); got != 4 {
		t.Errorf("len(Options()) = %d, want 4 (nodes, DaemonSets, volumes, namespaces)", got)
	}
	if got := len(manifest.Input{}.Options()); got != 0 {
		t.Errorf("len(Input{}.Options()) = %d, want 0", got)
	}
}
