package disruption

import (
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/scheduler"
)

// Where a simulation's pods land decides what the next commands can do.
// Solve tries existing nodes by name, so the pods of a deleted node fill
// whichever nodes come first: often nodes dear for their room (a family
// whose memory the pods do not use, small nodes whose DaemonSets eat their
// room) that a later command could have deleted, had their room stayed
// free. With fillCheap (one of the global search's convergences:
// planGlobal) every simulation has Solve try the nodes cheapest per unit of
// useful room first (scheduler.WithExistingNodeRank), so moved pods fill
// the room the search means to keep and the dear nodes stay empty enough to
// go. Only the destinations change; every check is Solve's as before.
//
// A node's rank is its price over its useful room (surplus.go: cpu, or
// memory at the cpu its pool's pods ask per unit of memory, whichever is
// less) less its DaemonSet pods; a node of unknown price or without room
// comes last.

// fillRankOption returns the option that ranks the simulation's existing
// nodes (m.mu held: ranks are made once per node and kept).
func (m *model) fillRankOption(nodes []*corev1.Node) scheduler.Option {
	ranks := make(map[string]float64, len(nodes))
	for _, o := range nodes {
		r := math.Inf(1)
		if n := m.byName[o.Name]; n != nil {
			r = m.fillRank(n)
		}
		ranks[o.Name] = r
	}
	return scheduler.WithExistingNodeRank(func(o *corev1.Node) float64 {
		if r, ok := ranks[o.Name]; ok {
			return r
		}
		return math.Inf(1)
	})
}

// fillRank is n's price per unit of useful room, made once.
func (m *model) fillRank(n *node) float64 {
	if n.fillRanked {
		return n.fillRank
	}
	n.fillRanked, n.fillRank = true, math.Inf(1)
	if !n.priceKnown {
		return n.fillRank
	}
	alloc := n.obj.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.obj.Status.Capacity
	}
	room := cpuMem(alloc)
	for _, p := range n.pods {
		if p.daemon && p.active() {
			v := cpuMem(p.requests())
			room[0], room[1] = room[0]-v[0], room[1]-v[1]
		}
	}
	if u := m.poolMix(n.poolName).useful(room); u > 0 {
		n.fillRank = n.price / u
	}
	return n.fillRank
}

// poolMix is the cpu and memory the active pods of a NodePool's nodes ask
// (DaemonSet pods aside), as the model began: what fillRank weighs memory
// by.
func (m *model) poolMix(pool string) podMix {
	if m.fillMixes == nil {
		m.fillMixes = map[string]podMix{}
		for _, n := range m.nodes {
			x := m.fillMixes[n.poolName]
			for _, p := range n.pods {
				if !p.daemon && p.active() {
					v := cpuMem(p.requests())
					x.cpu, x.mem = x.cpu+v[0], x.mem+v[1]
				}
			}
			m.fillMixes[n.poolName] = x
		}
	}
	return m.fillMixes[pool]
}
