package aws_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/requirements"
)

// BenchmarkCatalog measures loading the embedded catalog, as the command
// line does on every run.
func BenchmarkCatalog(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []aws.Option
	}{
		{name: "default"},
		{name: "region=us-gov-west-1", opts: []aws.Option{aws.WithRegion("us-gov-west-1")}},
		{name: "maxPods=110", opts: []aws.Option{aws.WithMaxPods(110)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var c instancetypes.Catalog
			for b.Loop() {
				var err error
				if c, err = aws.Catalog(bc.opts...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Len()), "types")
		})
	}
}

// BenchmarkFilter filters the catalog by a typical pod's requirements.
func BenchmarkFilter(b *testing.B) {
	c, err := aws.Catalog()
	if err != nil {
		b.Fatal(err)
	}
	gen, err := requirements.New(aws.LabelInstanceGeneration, requirements.OpGt, "4")
	if err != nil {
		b.Fatal(err)
	}
	reqs := requirements.NewRequirements(
		requirements.In(requirements.LabelArch, "amd64"),
		requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot, requirements.CapacityTypeOnDemand),
		requirements.In(aws.LabelInstanceCategory, "c", "m", "r"),
		gen,
	)
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(c.Filter(reqs))
	}
	b.ReportMetric(float64(n), "types")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.Len()), "ns/type")
}
