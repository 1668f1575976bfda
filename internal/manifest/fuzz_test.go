package manifest

import (
	"errors"
	"strings"
	"testing"
)

// FuzzDecode checks that Decode never panics, that every error is one line
// naming its file, and that everything decoded has the names the solver
// relies on. The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(nodePoolYAML), false)
	f.Add([]byte(`{"kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "f.yaml"
		if asJSON {
			name = "f.json"
		}
		// A small pod bound keeps each run fast; MaxPods is only a bigger number.
		in, err := decode([]File{{Name: name, Data: data}}, 1000)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty Errors", err, err)
			}
			for _, e := range errs {
				msg := e.Error()
				if !strings.HasPrefix(msg, name+": ") || strings.Contains(msg, "\n") {
					t.Errorf("error %q: want one line starting with %q", msg, name+": ")
				}
			}
		}
		for _, w := range in.Warnings {
			if strings.Contains(w, "\n") {
				t.Errorf("warning %q spans lines", w)
			}
		}
		if len(in.Pods) > 1000 {
			t.Errorf("%d pods, more than the bound 1000", len(in.Pods))
		}
		for _, p := range append(in.Pods, in.BoundPods...) {
			if p.Name == "" || p.Namespace == "" {
				t.Errorf("pod %q in namespace %q: want both set", p.Name, p.Namespace)
			}
		}
		for _, p := range in.BoundPods {
			if p.Spec.NodeName == "" {
				t.Errorf("bound pod %s has no node", p.Name)
			}
		}
		for _, np := range in.NodePools {
			if np.Name == "" {
				t.Error("NodePool without a name")
			}
		}
	})
}
