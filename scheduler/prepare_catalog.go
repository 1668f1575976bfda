package scheduler

import (
	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// PrepareCatalog builds what Solve derives from a catalog alone: its index
// of instance types (labels as bitsets, offerings, allocatable as vectors)
// and the price order of every type. Solve builds them on first use and
// keeps them with the catalog for later solves, so calling PrepareCatalog
// is optional: a controller calls it when it loads a catalog, so that the
// first plan is as fast as the next ones.
func PrepareCatalog(catalog instancetypes.Catalog) error {
	dims, err := binpack.NewDims(binpack.ResourceNames(catalog)...)
	if err != nil {
		return err
	}
	idx := binpack.NewIndex(catalog, dims)
	idx.PriceOrder(binpack.NewOfferFilter(idx, requirements.Requirements{}))
	return nil
}
