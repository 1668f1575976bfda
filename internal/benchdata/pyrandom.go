package benchdata

import "math/bits"

// MT19937 parameters, as in CPython's Modules/_randommodule.c.
const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// pyRandom is a port of CPython's random.Random restricted to what the
// generators need: seeding from an integer, getrandbits, _randbelow and
// choice. For every seed it yields exactly the numbers CPython yields, e.g.
// random.Random(7).getrandbits(32) == 1390851128.
type pyRandom struct {
	mt    [mtN]uint32
	index int
}

// newPyRandom is random.Random(seed). CPython seeds from |seed|, split into
// 32-bit words from the least significant one (at least one word, so 0 is the
// key [0]), through init_by_array; hence seeds s and -s give the same stream.
func newPyRandom(seed int64) *pyRandom {
	u := uint64(seed)
	if seed < 0 {
		u = -u // two's complement negation: |math.MinInt64| = 1<<63 fits in a uint64.
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.index = mtN
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	mt := &r.mt
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		mt[i] = (mt[i] ^ ((mt[i-1] ^ (mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		mt[i] = (mt[i] ^ ((mt[i-1] ^ (mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
	}
	mt[0] = 0x80000000 // MSB is 1, so the initial state is not all zero.
}

// twist regenerates the whole state, as genrand_uint32 does every 624 words.
func (r *pyRandom) twist() {
	mt := &r.mt
	mag := func(y uint32) uint32 { return (y >> 1) ^ (mtMatrixA * (y & 1)) }
	for kk := range mtN - 1 {
		y := (mt[kk] & mtUpperMask) | (mt[kk+1] & mtLowerMask)
		mt[kk] = mt[(kk+mtM)%mtN] ^ mag(y)
	}
	y := (mt[mtN-1] & mtUpperMask) | (mt[0] & mtLowerMask)
	mt[mtN-1] = mt[mtM-1] ^ mag(y)
	r.index = 0
}

// uint32 is genrand_uint32: the next tempered 32-bit word.
func (r *pyRandom) uint32() uint32 {
	if r.index >= mtN {
		r.twist()
	}
	y := r.mt[r.index]
	r.index++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// getrandbits is Random.getrandbits(k) for 0 <= k <= 64. Like CPython it
// consumes one word per started 32 bits, fills the result from the least
// significant word up, and keeps the top k%32 bits of the last word.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k < 0 || k > 64 {
		panic("benchdata: getrandbits needs 0 <= k <= 64")
	}
	var out uint64
	for shift := 0; k > 0; shift, k = shift+32, k-32 {
		w := r.uint32()
		if k < 32 {
			w >>= 32 - k
		}
		out |= uint64(w) << shift
	}
	return out
}

// randbelow is Random._randbelow_with_getrandbits(n) for n > 0: draw
// k = n.bit_length() bits and reject values >= n.
func (r *pyRandom) randbelow(n int) int {
	if n <= 0 {
		panic("benchdata: randbelow needs n > 0")
	}
	k := bits.Len(uint(n))
	v := r.getrandbits(k)
	for v >= uint64(n) {
		v = r.getrandbits(k)
	}
	return int(v)
}

// choice is Random.choice(seq) = seq[_randbelow(len(seq))]; seq must not be
// empty.
func choice[T any](r *pyRandom, seq []T) T {
	return seq[r.randbelow(len(seq))]
}
