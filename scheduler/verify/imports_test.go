package verify_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestIndependentOfTheSolver keeps the checker apart from the solver: it
// may read scheduler's public API and the lower packages, but not the
// packing layer the solver is built on (binpack), so a bug there cannot
// hide in both.
func TestIndependentOfTheSolver(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/nodeplan/nodeplan/binpack" || strings.HasPrefix(path, "github.com/nodeplan/nodeplan/binpack/") {
				t.Errorf("%s imports %s, the solver's packing layer", name, path)
			}
		}
	}
}
