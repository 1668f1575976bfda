package scheduler

import "github.com/nodeplan/nodeplan/binpack"

// cheapestFit scans a requirement set's types in price order for the first
// that holds a claim, 64 types on average at 100,000 aws-mixed pods (most
// are too small). The scan is cut in blocks of scanBlock types, each with
// the largest usable cpu and memory and the highest price among its types,
// so that a block none of whose types has the cpu or the memory is passed
// over in one step. Passing over a block is exact: every type in it fails
// the cpu or memory test, and the scan stops there with nothing found
// exactly when one of them costs more than the scan's price limit.

// scanBlock is how many types one block covers.
const scanBlock = 8

// scanBlockMax is what the types of one block reach at most.
type scanBlockMax struct {
	cpu, mem int64
	price    float64
}

// scanBlocks returns the blocks of scan.
func scanBlocks(scan []typeScan) []scanBlockMax {
	out := make([]scanBlockMax, (len(scan)+scanBlock-1)/scanBlock)
	for i := range scan {
		b, m := &out[i/scanBlock], &scan[i]
		if i%scanBlock == 0 {
			*b = scanBlockMax{cpu: m.cpu, mem: m.mem, price: m.price}
			continue
		}
		b.cpu, b.mem, b.price = max(b.cpu, m.cpu), max(b.mem, m.mem), max(b.price, m.price)
	}
	return out
}

// nextFit returns the first position from i on whose type has need's cpu
// and memory, as cheapestFit's scan meets them (cpu and memory first, from
// the scan: most types that do not fit fail there); ok is false when the
// scan ends before one: at a type dearer than maxPrice (the rest cost more
// still) or at the end.
func nextFit(scan []typeScan, blocks []scanBlockMax, i int, need *binpack.Vec, maxPrice float64) (int, bool) {
	for ; i < len(scan); i++ {
		if i%scanBlock == 0 {
			var stop bool
			if i, stop = skipBlocks(blocks, i, len(scan), need, maxPrice); stop || i == len(scan) {
				return 0, false
			}
		}
		m := &scan[i]
		if m.price > maxPrice {
			return 0, false
		}
		if need[0] <= m.cpu && need[1] <= m.mem {
			return i, true
		}
	}
	return 0, false
}

// skipBlocks returns, from position i (the start of a block), the start of
// the first block some type of which may hold need's cpu and memory
// (n, the scan's length, when none), or stop when a block passed over
// holds a type dearer than maxPrice.
func skipBlocks(blocks []scanBlockMax, i, n int, need *binpack.Vec, maxPrice float64) (next int, stop bool) {
	for b := i / scanBlock; b < len(blocks); b++ {
		bl := &blocks[b]
		if need[0] <= bl.cpu && need[1] <= bl.mem {
			return b * scanBlock, false
		}
		if bl.price > maxPrice {
			return 0, true
		}
	}
	return n, false
}
