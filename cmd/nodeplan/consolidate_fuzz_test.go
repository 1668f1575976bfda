package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
)

// FuzzConsolidate runs `nodeplan consolidate -o json` on a dump the fuzzer
// writes (seeded with each example of testdata/consolidate, its NodePools
// and cluster in one file), with the built-in catalog's types of the
// examples' families (fuzzCatalog), under either search (the global one
// preferring the lower price for inputs of odd length; spot-to-spot on for
// lengths divisible by three): it never panics; it
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
	catalog := fuzzCatalog(f, examples)
	f.Fuzz(func(t *testing.T, dump []byte, global bool) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "dump.yaml"), dump, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-f", dir, "--catalog", catalog, "--now", "2025-06-02T12:00:00Z", "-o", "json"}
		if global {
			args = append(args, "--search", "global")
			if len(dump)%2 == 1 {
				args = append(args, "--prefer", "lower-price")
			}
		}
		if len(dump)%3 == 0 {
			args = append(args, "--spot-to-spot")
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

// fuzzCatalog writes the built-in catalog's instance types of the families
// the examples' nodes run (m5, c5, t3 ...) to a file and returns its path:
// each run decodes and plans with some tens of types instead of the whole
// catalog, so that the fuzzer runs many more inputs.
func fuzzCatalog(f *testing.F, examples []string) string {
	f.Helper()
	families := map[string]bool{}
	typeLabel := regexp.MustCompile(`node\.kubernetes\.io/instance-type:\s*"?([a-z0-9-]+)\.`)
	for _, c := range examples {
		b, err := os.ReadFile(c)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range typeLabel.FindAllSubmatch(b, -1) {
			families[string(m[1])] = true
		}
	}
	cat, err := aws.Catalog()
	if err != nil {
		f.Fatal(err)
	}
	var kept []instancetypes.InstanceType
	for _, it := range cat.Types() {
		if family, _, _ := strings.Cut(it.Name, "."); families[family] {
			kept = append(kept, *it)
		}
	}
	small, err := instancetypes.NewCatalog(kept, instancetypes.WithRegion(cat.Region()), instancetypes.WithSource(cat.Source()),
		instancetypes.WithProvider(cat.Provider()), aws.Vocabulary())
	if err != nil {
		f.Fatal(err)
	}
	raw, err := instancetypes.Encode(small)
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), "catalog.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		f.Fatal(err)
	}
	return path
}
