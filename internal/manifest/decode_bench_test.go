package manifest

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"
)

// BenchmarkDecode decodes Karpenter's diverse-1000 benchmark workload
// (1000 pods, one YAML document each).
func BenchmarkDecode(b *testing.B) {
	raw, err := os.ReadFile("../../testdata/bench/karpenter/diverse-1000/pods.yaml.gz")
	if err != nil {
		b.Skip(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	files := []File{{Name: "pods.yaml", Data: data}}
	b.ReportAllocs()
	for b.Loop() {
		in, err := Decode(files)
		if err != nil || len(in.Pods) != 1000 {
			b.Fatalf("%d pods, %v", len(in.Pods), err)
		}
	}
}
