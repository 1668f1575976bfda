// Package docs holds the repository's documentation; its test keeps the
// documentation and the rest of the repository in step.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sources walks the repository's Go, YAML and Markdown files (not this
// folder, not fuzz corpora or generated benchmark data) and calls f with
// each path and its content.
func sources(t *testing.T, f func(path, text string)) {
	t.Helper()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "docs" || name == "fuzz") {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains([]string{".go", ".yaml", ".yml", ".md"}, filepath.Ext(path)) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f(path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every behaviour ID a comment, test or scenario cites is explained in
// BEHAVIOURS.md.
func TestEveryCitedBehaviourIsExplained(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("BEHAVIOURS.md")
	if err != nil {
		t.Fatal(err)
	}
	explained := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^- \*\*((?:B-\d{3})|(?:A\d{1,2}))\*\*`).FindAllStringSubmatch(string(page), -1) {
		explained[m[1]] = true
	}
	cited := regexp.MustCompile(`\b(B-\d{3}|A\d{1,2})\b`)
	sources(t, func(path, text string) {
		for _, id := range cited.FindAllString(text, -1) {
			if !explained[id] {
				t.Errorf("%s cites %s, which BEHAVIOURS.md does not explain", path, id)
			}
		}
	})
}

// No file points at files outside the repository.
func TestNoReferenceOutsideTheRepository(t *testing.T) {
	t.Parallel()
	outside := regexp.MustCompile(`\.\./shared|\bshared/(formats|research|bench|catalog|seeds|repros)`)
	sources(t, func(path, text string) {
		if m := outside.FindString(text); m != "" {
			t.Errorf("%s refers to %q, outside the repository", path, m)
		}
	})
}
