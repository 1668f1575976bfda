// Package benchdata generates the benchmark workloads that are not stored in
// testdata/bench, so that the module builds and benchmarks on its own.
//
// It owns AWSMixed, a byte-exact Go port of testdata/bench/gen-aws-mixed.py: the
// same objects in the same order, drawn from a port of CPython's
// random.Random (MT19937, see pyRandom) and rendered the way Python's
// json.dump(obj, f, indent=1, sort_keys=True) writes them (see appendPyJSON).
// The Karpenter workloads are files (testdata/bench/karpenter/*/pods.yaml.gz)
// and are read by the benchmarks directly, not through this package.
//
// It does not decode, schedule or touch files: every function is pure and
// returns fresh bytes. It is only imported by tests and benchmarks.
package benchdata
