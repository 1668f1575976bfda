package manifest

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// nodePool decodes a NodePool strictly with nodepool.Decode (an unknown
// field is an error: a misspelled requirement would silently widen the
// pool) and checks it.
func (d *decoder) nodePool(a at, h head, data []byte) {
	np, err := nodepool.Decode(data)
	if err != nil {
		d.failAll(a, poolErrors(err, h.name))
		return
	}
	if np.Name == "" {
		d.fail(a, field.Required(field.NewPath("metadata", "name"), "every object needs a name"))
		return
	}
	if errs := validateNodePool(np); len(errs) > 0 {
		d.failAll(a, errs)
		return
	}
	if d.claim(a, "NodePool", "", np.Name) {
		d.in.NodePools = append(d.in.NodePools, np)
	}
}

// poolErrors returns the field errors of a nodepool error without the pool
// name it puts in front of each field (the location already names the pool).
func poolErrors(err error, name string) field.ErrorList {
	var ie *nodepool.InvalidError
	if !errors.As(err, &ie) {
		return field.ErrorList{field.Invalid(nil, field.OmitValueType{}, err.Error())}
	}
	prefixes := []string{fmt.Sprintf("nodepool %q", ie.Name), fmt.Sprintf("nodepool %q", name), "nodepool"}
	out := make(field.ErrorList, 0, len(ie.Errs))
	for _, fe := range ie.Errs {
		c := *fe
		for _, p := range prefixes {
			if c.Field == p {
				c.Field = ""
				break
			}
			if rest, ok := strings.CutPrefix(c.Field, p+": "); ok {
				c.Field = rest
				break
			}
		}
		out = append(out, &c)
	}
	return out
}

// validateNodePool checks the NodePool as Karpenter's admission would
// (nodepool.Validate), against the core label vocabulary: what it rejects is
// invalid under any catalog. Solve validates again against the catalog's
// vocabulary (a provider's restricted label domains).
func validateNodePool(np nodepool.NodePool) field.ErrorList {
	errs := nodepool.Validate(np, requirements.DefaultSchema())
	if len(errs) == 0 {
		return nil
	}
	return poolErrors(&nodepool.InvalidError{Name: np.Name, Errs: errs}, np.Name)
}
