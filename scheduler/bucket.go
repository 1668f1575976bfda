package scheduler

import (
	"math/bits"

	"github.com/nodeplan/nodeplan/topology"
)

// bucket holds the claims that share one requirement set, in the order they
// joined it. A claim that comes back to a bucket joins it again, at the end,
// and its earlier entries there count again too (the searches' order and
// their limits were tuned on that, so it stays). Entries of claims that moved
// on (their requirements changed) or were dropped stay behind, and the
// searches skip them.
type bucket struct {
	idx    int
	reqID  int32
	pool   *pool
	claims []*claim
	// live has bit i clear only when entry i is dead: a search that finds
	// an entry dead clears its bit, and jumps over the cleared bits from
	// then on instead of reading the dead entries again (they pile up, tens
	// of millions read a round at 100,000 pods). A claim that becomes live
	// again in the bucket (it comes back, or a dropped claim is taken back)
	// sets the bits of all its entries there again (claim.dormant).
	live []uint64
	// slack indexes the room of the bucket's claims during the improvement
	// phase (nil before).
	slack *slackIndex
}

// bucketEntry is entry pos of bucket b.
type bucketEntry struct {
	b   *bucket
	pos int
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

// rebucket gives cl the requirements id and puts it at the end of their
// bucket.
func (s *solver) rebucket(cl *claim, id int32) {
	s.unindex(cl)
	cl.reqID = id
	s.bucketFor(id).join(cl)
	if len(cl.pods) > 0 && s.topo != nil {
		// Pods that only soft anti-affinity counts are counted in every
		// domain the claim can take: those may have changed.
		s.topo.Rehost(&topology.Host{Hostname: cl.host, Requirements: s.reqs.info(id).reqs})
	}
}

// join puts cl at the end of b (cl's bucket from then on); its earlier
// entries in b are live again.
func (b *bucket) join(cl *claim) {
	cl.bucket = b
	b.reviveAll(cl)
	pos := len(b.claims)
	b.claims = append(b.claims, cl)
	if pos%64 == 0 {
		b.live = append(b.live, 0)
	}
	b.live[pos>>6] |= 1 << (pos & 63)
}

// reviveAll sets the bits a search cleared of cl's entries in b.
func (b *bucket) reviveAll(cl *claim) {
	kept := cl.dormant[:0]
	for _, e := range cl.dormant {
		if e.b == b {
			b.live[e.pos>>6] |= 1 << (e.pos & 63)
		} else {
			kept = append(kept, e)
		}
	}
	clear(cl.dormant[len(kept):])
	cl.dormant = kept
}

// undrop takes back a claim that was dropped (a move out of it is undone).
func (s *solver) undrop(cl *claim) {
	if !cl.dropped {
		return
	}
	cl.dropped = false
	cl.pool.takeNode()
	if cl.bucket != nil {
		cl.bucket.reviveAll(cl)
	}
}

// deadEntry reports whether entry i is dead (its claim is in another bucket
// now, or dropped), and if so clears its bit so that prevLive skips it until
// the claim is live in b again (the claim keeps the entry in its dormant
// list for that).
func (b *bucket) deadEntry(i int) bool {
	cl := b.claims[i]
	if cl.bucket == b && !cl.dropped {
		return false
	}
	b.live[i>>6] &^= 1 << (i & 63)
	cl.dormant = append(cl.dormant, bucketEntry{b: b, pos: i})
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
