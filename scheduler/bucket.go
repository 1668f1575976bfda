package scheduler

// bucket holds the claims that share one requirement set, in the order they
// joined it. Entries of claims that moved on (their requirements narrowed)
// stay behind and are skipped.
type bucket struct {
	idx    int
	reqID  int32
	pool   *pool
	claims []*claim
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

// rebucket gives cl the requirements id and puts it at the end of their
// bucket.
func (s *solver) rebucket(cl *claim, id int32) {
	s.unindex(cl)
	cl.reqID = id
	b := s.bucketFor(id)
	cl.bucket = b
	b.claims = append(b.claims, cl)
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
}
