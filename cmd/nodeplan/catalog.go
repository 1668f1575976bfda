package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// catalogSource says where the instance types come from.
type catalogSource struct {
	// file is a catalog in the docs/CATALOG.md format; "" means the built-in
	// AWS catalog.
	file string
	// region and zones select the built-in catalog's region and zones
	// (default us-east-1, every zone). With a file, zones restrict its
	// offerings and region, when set, must be the file's.
	region    string
	regionSet bool
	zones     []string
}

// load returns the catalog. Errors are one line each.
func (s catalogSource) load() (instancetypes.Catalog, []string) {
	if s.file == "" {
		cat, err := builtinCatalog(s.region, s.zones)
		if err != nil {
			// The errors name the options of instancetypes/aws; say the flags.
			flags := strings.NewReplacer("WithZones", "--zones", "WithRegion", "--region")
			lines := errorLines(err)
			for i, l := range lines {
				lines[i] = flags.Replace(l)
			}
			return instancetypes.Catalog{}, prefixed("built-in catalog: ", lines)
		}
		return cat, nil
	}
	cat, err := manifest.LoadCatalog(s.file)
	if fe := (*manifest.FileError)(nil); errors.As(err, &fe) {
		return instancetypes.Catalog{}, prefixed(fe.File+": ", errorLines(fe.Err))
	} else if err != nil {
		return instancetypes.Catalog{}, errorLines(err)
	}
	if s.regionSet && cat.Region() != "" && cat.Region() != s.region {
		return instancetypes.Catalog{}, []string{fmt.Sprintf("%s: the catalog is of region %s, not %s", s.file, cat.Region(), s.region)}
	}
	if len(s.zones) == 0 {
		return cat, nil
	}
	cat, err = restrictZones(cat, s.zones)
	if err != nil {
		return instancetypes.Catalog{}, prefixed(s.file+": ", errorLines(err))
	}
	return cat, nil
}

// restrictZones returns the catalog with only the offerings in zones. A zone
// no instance type is offered in is an error (most likely a typo).
func restrictZones(cat instancetypes.Catalog, zones []string) (instancetypes.Catalog, error) {
	known := map[string]bool{}
	types := make([]instancetypes.InstanceType, 0, cat.Len())
	for _, it := range cat.Types() {
		c := instancetypes.InstanceType{Name: it.Name, Labels: it.Labels, Capacity: it.Capacity, Overhead: it.Overhead}
		for _, o := range it.Offerings {
			known[o.Zone] = true
			if slices.Contains(zones, o.Zone) {
				c.Offerings = append(c.Offerings, o)
			}
		}
		if len(c.Offerings) > 0 { // a type not offered in the zones goes
			types = append(types, c)
		}
	}
	for _, z := range zones {
		if !known[z] {
			all := make([]string, 0, len(known))
			for k := range known {
				all = append(all, k)
			}
			slices.Sort(all)
			return instancetypes.Catalog{}, fmt.Errorf("zone %q: no instance type is offered there (zones: %s)", z, strings.Join(all, ", "))
		}
	}
	// NewCatalog copies the types, so sharing the maps of cat is safe. The
	// catalog's schema carries its provider's vocabulary.
	return instancetypes.NewCatalog(types, instancetypes.WithRegion(cat.Region()), instancetypes.WithSource(cat.Source()),
		instancetypes.WithProvider(cat.Provider()), instancetypes.WithBaseSchema(cat.Schema()))
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
