package scheduler

import "math/bits"

// slackIndex finds, among the claims of one bucket, those whose current
// instance type still has room for a pod (a "move" target that costs
// nothing). Claims sit in a grid of cells by the magnitude of their free cpu
// and free memory (powers of four), so a query visits only the cells that can
// hold the pod, tightest first, instead of every claim. Updating a claim
// moves it between cells in O(1).
type slackIndex struct {
	cells [slackLevels][slackLevels][]*claim
	// used[c] has bit m set when cells[c][m] is not empty.
	used [slackLevels]uint64
}

const slackLevels = 33

func slackLevel(x int64) int {
	if x <= 0 {
		return 0
	}
	return (bits.Len64(uint64(x)) + 1) / 2
}

// place puts cl in the cell of its current room (or takes it out when it is
// dropped or empty).
func (ix *slackIndex) place(s *solver, cl *claim) {
	if cl.slackIn {
		cell := &ix.cells[cl.slackCPU][cl.slackMem]
		last := len(*cell) - 1
		moved := (*cell)[last]
		(*cell)[cl.slackPos] = moved
		moved.slackPos = cl.slackPos
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
	cl.slackCPU, cl.slackMem = uint8(slackLevel(room[0])), uint8(slackLevel(room[1]))
	cell := &ix.cells[cl.slackCPU][cl.slackMem]
	cl.slackPos = len(*cell)
	*cell = append(*cell, cl)
	cl.slackIn = true
	ix.used[cl.slackCPU] |= 1 << cl.slackMem
}

// each calls f for the claims whose room may hold cpu and mem, tightest
// cells first, until f returns false.
func (ix *slackIndex) each(cpu, mem int64, f func(*claim) bool) {
	lm := uint(slackLevel(mem))
	for c := slackLevel(cpu); c < slackLevels; c++ {
		for bitsLeft := ix.used[c] >> lm << lm; bitsLeft != 0; bitsLeft &= bitsLeft - 1 {
			m := bits.TrailingZeros64(bitsLeft)
			for _, cl := range ix.cells[c][m] {
				if !f(cl) {
					return
				}
			}
		}
	}
}
