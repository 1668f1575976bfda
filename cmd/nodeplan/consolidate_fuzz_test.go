package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConsolidate runs `nodeplan consolidate -o json` on a dump the fuzzer
// writes (seeded with each example of testdata/consolidate, its NodePools
// and cluster in one file), under either search: it never panics; it
// exits 0 with one JSON Result on stdout that lists every node once, or 2
// with nothing on stdout and one "error: " line per problem on stderr.
func FuzzConsolidate(f *testing.F) {
	examples, err := filepath.Glob("../../testdata/consolidate/*/cluster.yaml")
	if err != nil || len(examples) == 0 {
		f.Fatalf("no examples: %v", err)
	}
	for _, c := range examples {
		dir := filepath.Dir(c)
		var doc []byte
		for _, name := range []string{"nodepool.yaml", "cluster.yaml"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				f.Fatal(err)
			}
			doc = append(append(doc, b...), "\n---\n"...)
		}
		f.Add(doc, false)
		f.Add(doc, true)
	}
	f.Fuzz(func(t *testing.T, dump []byte, global bool) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "dump.yaml"), dump, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-f", dir, "--now", "2025-06-02T12:00:00Z", "-o", "json"}
		if global {
			args = append(args, "--search", "global")
		}
		var stdout, stderr bytes.Buffer
		code := consolidateWith(args, &stdout, &stderr, noClock(t))
		lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
		switch code {
		case exitOK:
			var res struct {
				Nodes []struct {
					Name string `json:"name"`
				} `json:"nodes"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("exit 0, but stdout is not a Result: %v\n%s", err, stdout.String())
			}
			seen := map[string]bool{}
			for _, n := range res.Nodes {
				if seen[n.Name] {
					t.Fatalf("node %q listed twice", n.Name)
				}
				seen[n.Name] = true
			}
			for _, l := range lines {
				if l != "" && !strings.HasPrefix(l, "warning: ") {
					t.Fatalf("exit 0 with a stderr line that is no warning: %q", l)
				}
			}
		case exitInvalid:
			if stdout.Len() > 0 {
				t.Fatalf("exit 2, but stdout holds %q", stdout.String())
			}
			errors := 0
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "error: "):
					errors++
				case strings.HasPrefix(l, "warning: "):
				default:
					t.Fatalf("exit 2 with a stderr line that is neither an error nor a warning: %q", l)
				}
			}
			if errors == 0 {
				t.Fatalf("exit 2 without an error line:\n%s", stderr.String())
			}
		default:
			t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
		}
	})
}
