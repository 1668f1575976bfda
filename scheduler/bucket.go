package scheduler

import "math/bits"

// bucket holds the claims that share one requirement set, in the order they
// joined it (a claim that comes back joins again, at the end). Entries of
// claims that moved on (their requirements changed) or were dropped stay
// behind, since the positions order the searches, and the searches skip them.
type bucket struct {
	idx    int
	reqID  int32
	pool   *pool
	claims []*claim
	// live has bit i set unless entry i was found dead: searches jump over
	// the cleared bits instead of visiting again the dead entries, which
	// pile up as claims are dropped and change requirements. Only a dropped
	// claim taken back revives its entry (undrop).
	live []uint64
	// slack indexes the room of the bucket's claims during the improvement
	// phase (nil before).
	slack *slackIndex
}

func (s *solver) bucketFor(id int32) *bucket {
	info := s.reqs.info(id)
	if info.bucket == nil {
		b := &bucket{idx: len(s.buckets), reqID: id, pool: info.pool}
		info.bucket = b
		s.buckets = append(s.buckets, b)
		info.pool.buckets = append(info.pool.buckets, b)
	}
	return info.bucket
}

// rebucket gives cl the requirements id, and an entry at the end of their
// bucket; its entry in the bucket it leaves is dead from then on.
func (s *solver) rebucket(cl *claim, id int32) {
	s.unindex(cl)
	cl.reqID = id
	s.bucketFor(id).join(cl)
}

// join puts cl at the end of b (cl's bucket from then on).
func (b *bucket) join(cl *claim) {
	cl.bucket, cl.bucketPos = b, len(b.claims)
	b.claims = append(b.claims, cl)
	if cl.bucketPos%64 == 0 {
		b.live = append(b.live, 0)
	}
	b.revive(cl.bucketPos)
}

// revive sets the bit of entry i.
func (b *bucket) revive(i int) {
	b.live[i>>6] |= 1 << (i & 63)
}

// undrop takes back a claim that was dropped (a move out of it is undone).
func (s *solver) undrop(cl *claim) {
	if !cl.dropped {
		return
	}
	cl.dropped = false
	if cl.pool.nodesLeft > 0 {
		cl.pool.nodesLeft--
	}
	cl.bucket.revive(cl.bucketPos)
}

// entry returns the claim of entry i and whether it is the claim's own
// entry there (else the claim has moved on, and the entry is dead).
func (b *bucket) entry(i int) (*claim, bool) {
	cl := b.claims[i]
	return cl, cl.bucket == b && cl.bucketPos == i
}

// deadEntry reports whether entry i is dead (its claim has moved on or was
// dropped), and if so clears its bit so that prevLive skips it from now on.
func (b *bucket) deadEntry(i int) bool {
	if cl, own := b.entry(i); own && !cl.dropped {
		return false
	}
	b.live[i>>6] &^= 1 << (i & 63)
	return true
}

// prevLive returns the highest index at most i whose bit is set, or -1:
// every entry between the two is dead.
func (b *bucket) prevLive(i int) int {
	if i < 0 {
		return -1
	}
	w := i >> 6
	word := b.live[w] & (^uint64(0) >> (63 - uint(i&63)))
	for word == 0 {
		if w--; w < 0 {
			return -1
		}
		word = b.live[w]
	}
	return w<<6 + bits.Len64(word) - 1
}
