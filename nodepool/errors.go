package nodepool

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// InvalidError is a NodePool that Karpenter would reject: a document that
// does not decode (Decode) or a NodePool that fails validation (NewTemplate,
// Templates). Errs lists every problem found, each with its field path; every
// Field starts with the pool, `nodepool "gpu": spec.weight`, so each message
// can be read alone. The sentence is built only when Error is called.
type InvalidError struct {
	// Name is metadata.name, or "" when it is missing or could not be read.
	Name string
	Errs field.ErrorList
}

func (e *InvalidError) Error() string {
	msgs := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		msgs[i] = fe.Error()
	}
	return strings.Join(msgs, "; ")
}

// StaticError is returned by NewTemplate for a static NodePool (spec.replicas
// set): Karpenter keeps its node count fixed and never provisions from it for
// pending pods (B-163).
type StaticError struct {
	Name string
}

func (e *StaticError) Error() string {
	return fmt.Sprintf("nodepool %q: static NodePool (spec.replicas is set) does not provision for pending pods", e.Name)
}

// poolPrefix names a pool at the head of a message.
func poolPrefix(name string) string {
	if name == "" {
		return "nodepool"
	}
	return fmt.Sprintf("nodepool %q", name)
}

// named returns copies of errs whose Field starts with the pool's name:
// `nodepool "gpu": spec.weight`, or `nodepool "gpu"` for an error on the
// whole document.
func named(name string, errs field.ErrorList) field.ErrorList {
	if len(errs) == 0 {
		return nil
	}
	prefix := poolPrefix(name)
	out := make(field.ErrorList, len(errs))
	for i, e := range errs {
		c := *e
		if c.Field == "" || c.Field == "<nil>" { // "<nil>": a nil *field.Path
			c.Field = prefix
		} else {
			c.Field = prefix + ": " + c.Field
		}
		out[i] = &c
	}
	return out
}

// invalid wraps field errors of one pool into an *InvalidError.
func invalid(name string, errs field.ErrorList) *InvalidError {
	return &InvalidError{Name: name, Errs: named(name, errs)}
}
