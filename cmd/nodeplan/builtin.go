package main

import (
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
)

// builtinCatalog returns the built-in AWS catalog of a region, restricted to
// zones when any are given.
func builtinCatalog(region string, zones []string) (instancetypes.Catalog, error) {
	opts := []aws.Option{aws.WithRegion(region)}
	if len(zones) > 0 {
		opts = append(opts, aws.WithZones(zones...))
	}
	return aws.Catalog(opts...)
}
