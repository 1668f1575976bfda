package disruption_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryCitedRuleIsExplained: every rule or behaviour ID (D-001..D-251)
// the package, its command and its examples cite is explained in
// docs/DISRUPTION.md.
func TestEveryCitedRuleIsExplained(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "DISRUPTION.md"))
	if err != nil {
		t.Fatal(err)
	}
	explained := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^- \*\*(D-\d{3})\*\*`).FindAllStringSubmatch(string(page), -1) {
		explained[m[1]] = true
	}
	cited := regexp.MustCompile(`\bD-\d{3}\b`)
	var files []string
	for _, glob := range []string{"*.go", filepath.Join("..", "..", "cmd", "nodeplan", "consolidate*.go"),
		filepath.Join("..", "..", "testdata", "consolidate", "*", "README.md")} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range cited.FindAllString(string(data), -1) {
			if !explained[id] && !strings.HasSuffix(f, "docs_test.go") {
				t.Errorf("%s cites %s, which docs/DISRUPTION.md does not explain", f, id)
			}
		}
	}
}
