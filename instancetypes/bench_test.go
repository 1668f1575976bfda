package instancetypes_test

import (
	"os"
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// awsData is the built-in catalog's file: a realistic 3 MB input.
func awsData(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("aws/data/us-east-1.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecode(b *testing.B) {
	data := awsData(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := instancetypes.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	c, err := instancetypes.Decode(awsData(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := instancetypes.Encode(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheapestOffering(b *testing.B) {
	c, err := instancetypes.Decode(awsData(b))
	if err != nil {
		b.Fatal(err)
	}
	it, _ := c.Get("m5.large")
	reqs := requirements.NewRequirements(
		requirements.In(requirements.LabelTopologyZone, "us-east-1c", "us-east-1d"),
		requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeOnDemand))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := it.CheapestOffering(reqs); !ok {
			b.Fatal("no offering")
		}
	}
}
