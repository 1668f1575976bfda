package scheduler

import "math/bits"

// slackIndex finds, among the claims of one bucket, those whose current
// instance type still has room for a pod (a "move" target that costs
// nothing). Claims sit in a grid of cells by the magnitude of their free cpu
// and free memory (powers of four), so a query visits only the cells that can
// hold the pod, tightest first, instead of every claim. Updating a claim
// moves it between cells in O(1).
type slackIndex struct {
	// gen counts the changes to the index (a claim's room, or a claim
	// joining or leaving): what a search learnt holds while it stays.
	gen uint64
	// used[c] has bit m set when cells[c][m] is not empty. (gen and used
	// come first: every search reads them, in one cache line or two.)
	used  [slackLevels]uint64
	cells [slackLevels][slackLevels][]slackEntry
}

const slackLevels = 33

// slackEntry is a claim in a cell, with its free cpu and memory when it
// was placed there (reindex places a claim again whenever its room
// changes), so that a search rejects the claims too small for a pod
// without reading them.
type slackEntry struct {
	cl       *claim
	cpu, mem int64
}

// podsDim is the dimension of the "pods" resource (binpack.NewDims puts
// cpu, memory and pods first).
const podsDim = 2

func slackLevel(x int64) int {
	if x <= 0 {
		return 0
	}
	return (bits.Len64(uint64(x)) + 1) / 2
}

// place puts cl in the cell of its current room (or takes it out when it is
// dropped or empty).
func (ix *slackIndex) place(s *solver, cl *claim) {
	ix.gen++
	if cl.slackIn {
		cell := &ix.cells[cl.slackCPU][cl.slackMem]
		last := len(*cell) - 1
		moved := (*cell)[last]
		(*cell)[cl.slackPos] = moved
		moved.cl.slackPos = cl.slackPos
		*cell = (*cell)[:last]
		cl.slackIn = false
		if last == 0 {
			ix.used[cl.slackCPU] &^= 1 << cl.slackMem
		}
	}
	if cl.dropped || len(cl.pods) == 0 {
		return
	}
	room := cl.pool.usable[cl.typ].Sub(cl.used)
	if room[podsDim] < 1 {
		return // no pod fits: not a target
	}
	cl.slackCPU, cl.slackMem = uint8(slackLevel(room[0])), uint8(slackLevel(room[1]))
	cell := &ix.cells[cl.slackCPU][cl.slackMem]
	cl.slackPos = len(*cell)
	*cell = append(*cell, slackEntry{cl: cl, cpu: room[0], mem: room[1]})
	cl.slackIn = true
	ix.used[cl.slackCPU] |= 1 << cl.slackMem
}

// edgeCells calls f with the cells at the magnitude of cpu or mem (whose
// room may or may not hold them), until f returns false.
func (ix *slackIndex) edgeCells(cpu, mem int64, f func([]slackEntry) bool) {
	lc, lm := slackLevel(cpu), uint(slackLevel(mem))
	for c := lc; c < slackLevels; c++ {
		mask := ix.used[c] >> lm << lm
		if c > lc {
			mask &= 1 << lm // only the boundary cell of this row
		}
		for ; mask != 0; mask &= mask - 1 {
			if !f(ix.cells[c][bits.TrailingZeros64(mask)]) {
				return
			}
		}
	}
}

// firmCells calls f with the cells whose room surely holds cpu and mem,
// tightest first, until f returns false.
func (ix *slackIndex) firmCells(cpu, mem int64, f func([]slackEntry) bool) {
	lm := uint(slackLevel(mem)) + 1
	for c := slackLevel(cpu) + 1; c < slackLevels; c++ {
		if lm >= slackLevels {
			return
		}
		for mask := ix.used[c] >> lm << lm; mask != 0; mask &= mask - 1 {
			if !f(ix.cells[c][bits.TrailingZeros64(mask)]) {
				return
			}
		}
	}
}
