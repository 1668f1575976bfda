package main

import (
	"os"
	"runtime"
	"runtime/metrics"
)

// collectAfterLoad collects, once the input is decoded and before it is
// solved, the garbage decoding left (about 150 MB of 520 MB at 100,000
// pods), when the heap holds more than collectAfterLoadMin and the command
// sets the collector's policy (memoryLimit): only the input is live then
// (370 MB), so the collection is as cheap as one gets, and the solve has
// the room it freed.
func collectAfterLoad() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > collectAfterLoadMin {
		runtime.GC()
	}
}

// collectAfterLoadMin is the heap below which collecting after loading is
// not worth its time (inputs of up to some 20,000 pods).
const collectAfterLoadMin = 256 << 20
