package nodepool_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/nodepool"
)

// FuzzDecode: Decode never panics, whatever the bytes; and whatever it
// accepts, Validate and NewTemplate handle without panicking. Seeds: the
// corpus under testdata/fuzz/FuzzDecode and every testdata NodePool.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(seedDir, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(minimalV1))
	f.Fuzz(func(t *testing.T, data []byte) {
		np, err := nodepool.Decode(data)
		if err != nil {
			if err.Error() == "" {
				t.Errorf("empty error message for %q", data)
			}
			return
		}
		if errs := nodepool.Validate(np, testSchema()); len(errs) > 0 {
			return
		}
		tmpl, err := nodepool.NewTemplate(np, testSchema())
		if err != nil {
			return
		}
		if tmpl.Name != np.Name {
			t.Errorf("template name %q, NodePool name %q", tmpl.Name, np.Name)
		}
	})
}
