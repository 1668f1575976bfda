package scheduler

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/topology"
)

// existingShare is the NodePools and existing nodes as buildPools and
// prepareExisting make them, made once per solve by the first plan
// prepared and copied by every other plan of the solve (they have the
// same NodePools, nodes, bound pods, catalog and DaemonSets): the pools
// and nodes as they are before any placement, the nodes' pods as topology
// counts them, and the pods of nodes being deleted. Shared by goroutines,
// never written once made.
type existingShare struct {
	poolsOnce sync.Once
	pools     []*pool
	poolsErr  error

	volsOnce sync.Once
	vols     *topology.Volumes // read only once made

	// matches are the existing pods topology's selectors pick.
	matches *topology.Matches

	once    sync.Once
	nodes   []*existingNode
	eps     []topology.ExistingPod
	resched []*corev1.Pod
	err     error
}

// newExistingShare makes a solve's share; with a Memo, its trackers parse
// label selectors through the Memo's.
func newExistingShare(memo *Memo) *existingShare {
	if memo != nil {
		return &existingShare{matches: topology.NewMatchesWith(memo.selectors)}
	}
	return &existingShare{matches: topology.NewMatches()}
}

// sharedExisting sets s.existing and returns the existing pods and the
// pods to reschedule: from the solve's share (prepared now, by s, if it
// is the first plan), else prepared.
func (s *solver) sharedExisting() ([]topology.ExistingPod, []*corev1.Pod, error) {
	sh := s.cfg.shared
	if sh == nil {
		return s.prepareExisting()
	}
	first := false
	sh.once.Do(func() {
		first = true
		sh.eps, sh.resched, sh.err = s.prepareExisting()
		sh.nodes = make([]*existingNode, len(s.existing))
		slab := make([]existingNode, len(s.existing)) // one allocation for the copies
		for i, en := range s.existing {
			sh.nodes[i] = en.freshInto(&slab[i], nil)
		}
	})
	if first || sh.err != nil {
		return sh.eps, sh.resched, sh.err
	}
	s.existing = make([]*existingNode, len(sh.nodes))
	slab := make([]existingNode, len(sh.nodes)) // one allocation for the plan's copies
	for i, en := range sh.nodes {
		s.existing[i] = en.freshInto(&slab[i], s.pools)
	}
	return sh.eps, sh.resched, nil
}

// volumes returns the solve's volumes indexed (once per solve when it
// shares them).
func (s *solver) volumes() *topology.Volumes {
	sh := s.cfg.shared
	if sh == nil {
		return s.cfg.memo.volumes(s.schema, s.cfg.pvcs, s.cfg.pvs, s.cfg.storageClasses)
	}
	sh.volsOnce.Do(func() { sh.vols = s.cfg.memo.volumes(s.schema, s.cfg.pvcs, s.cfg.pvs, s.cfg.storageClasses) })
	return sh.vols
}

// freshInto makes in c a copy of en as prepared, before any placement:
// what plans write (room, host ports, placements) is its own; the rest
// (nodeBase: labels, requirements, taints, the topology node) is shared. With pools, its
// pool is the one of pools at its index (another plan's pools).
func (en *existingNode) freshInto(c *existingNode, pools []*pool) *existingNode {
	*c = *en
	c.ports = slices.Clone(en.ports)
	c.placed, c.doms = nil, topology.NodeDomains{}
	if pools != nil && en.pool != nil {
		c.pool = pools[en.pool.idx]
	}
	return c
}

// fresh returns a copy of p as prepared, before any placement: its claims
// and buckets are its own; its types and their vectors are shared (never
// written once prepared).
func (p *pool) fresh() *pool {
	c := *p
	c.claims, c.buckets = 0, nil
	return &c
}
