package scheduler_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/benchdata"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// workload is one benchmark input, decoded and prepared once (outside the
// timed loop, as an autoscaler prepares its catalog once for many solves).
type workload struct {
	name     string
	in       manifest.Input
	catalog  instancetypes.Catalog
	prepared *scheduler.PreparedCatalog
}

// newWorkload prepares catalog for the workload's solves.
func newWorkload(tb testing.TB, name string, in manifest.Input, catalog instancetypes.Catalog) workload {
	tb.Helper()
	prepared, err := scheduler.Prepare(catalog)
	if err != nil {
		tb.Fatal(err)
	}
	return workload{name: name, in: in, catalog: catalog, prepared: prepared}
}

func benchRoot() string { return filepath.Join("..", "testdata", "bench") }

func loadKarpenter(tb testing.TB, name string) workload {
	tb.Helper()
	dir := filepath.Join(benchRoot(), "karpenter", name)
	gz, err := os.ReadFile(filepath.Join(dir, "pods.yaml.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		tb.Fatal(err)
	}
	pods, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	np, err := os.ReadFile(filepath.Join(dir, "nodepool.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	in, err := manifest.Decode([]manifest.File{{Name: "nodepool.yaml", Data: np}, {Name: "pods.yaml", Data: pods}})
	if err != nil {
		tb.Fatal(err)
	}
	cb, err := os.ReadFile(filepath.Join(benchRoot(), "karpenter", "catalog-fake-400.json"))
	if err != nil {
		tb.Fatal(err)
	}
	cat, err := instancetypes.Decode(cb)
	if err != nil {
		tb.Fatal(err)
	}
	return newWorkload(tb, name, in, cat)
}

func loadAWSMixed(tb testing.TB, pods int) workload {
	tb.Helper()
	in, err := manifest.Decode([]manifest.File{{Name: "workload.json", Data: benchdata.AWSMixed(pods, benchdata.AWSMixedDefaultSeed())}})
	if err != nil {
		tb.Fatal(err)
	}
	cat, err := aws.Catalog()
	if err != nil {
		tb.Fatal(err)
	}
	return newWorkload(tb, fmt.Sprintf("aws-mixed-%d", pods), in, cat)
}

func solveWorkload(tb testing.TB, w workload, extra ...scheduler.Option) scheduler.Result {
	res, err := scheduler.Solve(w.in.Pods, w.in.NodePools, w.catalog, append(append(w.in.Options(), scheduler.WithPrepared(w.prepared)), extra...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func benchWorkload(b *testing.B, w workload) {
	b.ReportAllocs()
	var res scheduler.Result
	start := time.Now()
	for b.Loop() {
		res = solveWorkload(b, w)
	}
	perOp := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(float64(len(w.in.Pods))/perOp, "pods/s")
	b.ReportMetric(float64(res.Summary.NodeClaims), "nodes")
	b.ReportMetric(res.Summary.PricePerHour, "$/h")
	b.ReportMetric(float64(res.Summary.Scheduled), "placed")
	if res.Summary.PriceLowerBound > 0 {
		b.ReportMetric(res.Summary.PricePerHour/res.Summary.PriceLowerBound, "price/bound")
	}
}

func BenchmarkSolve(b *testing.B) {
	for _, name := range []string{"diverse-1000", "diverse-5000", "diverse-20000", "preference-4000"} {
		b.Run("karpenter/"+name, func(b *testing.B) { benchWorkload(b, loadKarpenter(b, name)) })
	}
	for _, n := range []int{1000, 5000, 20000, 100000} {
		b.Run(fmt.Sprintf("aws-mixed/pods=%d", n), func(b *testing.B) {
			if n > 20000 && testing.Short() {
				b.Skip("100,000 pods take seconds and a gigabyte: not in -short runs (CI's smoke run)")
			}
			benchWorkload(b, loadAWSMixed(b, n))
		})
	}
}
