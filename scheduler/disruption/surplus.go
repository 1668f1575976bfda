package disruption

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// Which of a pool's nodes to delete is a covering problem: keep the nodes
// that give the most room per dollar until they hold the pods, delete the
// rest. Its linear relaxation is solved by a walk: take the nodes cheapest
// per unit of useful room first until they hold the pods; the nodes the
// walk does not need are the surplus. The global search tries them first
// (bySurplus). Trying the dearest nodes first instead (what saves most per
// command) fills the room of the nodes cheap per unit with their pods, and
// keeps the nodes dear per unit (of a family dear for what the pods use,
// or small, their DaemonSets eating their room) that could have gone: on
// pools of spot nodes, which can only be deleted (spot-to-spot off), the
// search converged dearer than Karpenter's single-node path, which takes
// the nodes of most price per pod first (surplus_test.go).
//
// Useful room counts cpu and memory as the pods use them together: a
// node's cpu, or its memory times the cpu the pods ask per unit of memory,
// whichever is less (a node of much memory holds no more cpu-bound pods
// than its cpu allows). A candidate's room is its allocatable less the pods
// that stay on it (DaemonSet pods); that of the pool's other nodes, what
// their pods leave.

// bySurplus orders a pool's candidates: the surplus first, then the
// others, each dearest first (a command that deletes them saves most),
// keeping the order they come in for equal prices. Without cpu to move it
// is byPrice.
//
// With PreferLowerPrice (unitOrder) each part is ordered dearest per unit
// of useful room first instead, then dearest. Dearest first keeps the
// search's early commands large, but once the surplus is gone (or cannot
// go: its pods do not fit what is left) the next dearest nodes of a pool
// are its largest, cheap for their room, and their pods fill the room of
// nodes dear for theirs, which can then no longer go; on the generated
// clusters' spot pools the kept nodes end as the small ones (DaemonSets
// eating their room) and a family dear for what the pods use.
func (m *model) bySurplus(pool string, cs []*candidate) []*candidate {
	mix := mixOf(cs)
	if mix.cpu == 0 {
		return byPrice(cs)
	}
	room := make(map[*candidate]float64, len(cs))
	for _, c := range cs {
		room[c] = mix.useful(c.sizes().capacity)
	}
	surplus := m.surplus(pool, cs, room, mix)
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b *candidate) int {
		if sa, sb := surplus[a], surplus[b]; sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		if m.cfg.unitOrder {
			if x := cmp.Compare(perUnit(b, room), perUnit(a, room)); x != 0 {
				return x
			}
		}
		return cmp.Compare(b.n.price, a.n.price)
	})
	return out
}

// perUnit is a candidate's price per unit of useful room (+Inf without
// room).
func perUnit(c *candidate, room map[*candidate]float64) float64 {
	if room[c] <= 0 {
		return math.Inf(1)
	}
	return c.n.price / room[c]
}

// podMix is the cpu and memory the pods of a pool's candidates ask in all.
type podMix struct{ cpu, mem float64 }

func mixOf(cs []*candidate) podMix {
	var x podMix
	for _, c := range cs {
		v := c.sizes().pods
		x.cpu, x.mem = x.cpu+v[0], x.mem+v[1]
	}
	return x
}

// candidateSizes are the cpu and memory of a candidate's movable pods and
// its capacity for them (capacityOf), made once: a candidate is kept while
// its node does not change (newCandidate).
type candidateSizes struct{ pods, capacity [2]float64 }

func (c *candidate) sizes() *candidateSizes {
	if c.sized != nil {
		return c.sized
	}
	var s candidateSizes
	for _, p := range c.movable {
		v := cpuMem(p.requests())
		s.pods[0], s.pods[1] = s.pods[0]+v[0], s.pods[1]+v[1]
	}
	s.capacity = capacityOf(c)
	c.sized = &s
	return c.sized
}

// useful is the useful room of a cpu and memory room (see above).
func (x podMix) useful(v [2]float64) float64 {
	u := v[0]
	if x.mem > 0 {
		u = min(u, v[1]*x.cpu/x.mem)
	}
	return max(u, 0)
}

// surplus walks the candidates cheapest per unit of useful room first
// (of equal price per unit, the fullest first: cs comes most wasteful
// first) and keeps them until, with what the pool's other nodes have left,
// they hold the cpu of the candidates' pods: the candidates after are the
// surplus (every one with room, when the others hold the pods alone).
func (m *model) surplus(pool string, cs []*candidate, room map[*candidate]float64, mix podMix) map[*candidate]bool {
	held := m.poolRoom(pool, cs, mix)
	order := slices.Clone(cs)
	slices.Reverse(order)
	slices.SortStableFunc(order, func(a, b *candidate) int { return cmp.Compare(perUnit(a, room), perUnit(b, room)) })
	out := map[*candidate]bool{}
	for _, c := range order {
		if held >= mix.cpu || math.IsInf(perUnit(c, room), 1) {
			out[c] = true
			continue
		}
		held += room[c]
	}
	return out
}

// poolRoom sums the useful room the pods of a pool's nodes leave, but
// those of the candidates.
func (m *model) poolRoom(pool string, cs []*candidate, mix podMix) float64 {
	in := make(map[*node]bool, len(cs))
	for _, c := range cs {
		in[c.n] = true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cpu, hasCPU := m.resIndex[corev1.ResourceCPU]
	mem, hasMem := m.resIndex[corev1.ResourceMemory]
	rs := m.rooms()
	held := 0.0
	for i, n := range rs.nodes {
		if n.poolName != pool || in[n] {
			continue
		}
		var v [2]float64
		if hasCPU {
			v[0] = float64(rs.rooms[i][cpu])
		}
		if hasMem {
			v[1] = float64(rs.rooms[i][mem])
		}
		held += mix.useful(v)
	}
	return held
}

// capacityOf is a candidate's allocatable cpu and memory less the
// requests of the active pods that stay on it.
func capacityOf(c *candidate) [2]float64 {
	alloc := c.n.obj.Status.Allocatable
	if len(alloc) == 0 {
		alloc = c.n.obj.Status.Capacity
	}
	out := cpuMem(alloc)
	movable := make(map[*pod]bool, len(c.movable))
	for _, p := range c.movable {
		movable[p] = true
	}
	for _, p := range c.n.pods {
		if p.active() && !movable[p] {
			v := cpuMem(p.requests())
			out[0], out[1] = out[0]-v[0], out[1]-v[1]
		}
	}
	return out
}

// cpuMem is the cpu and memory of a resource list, in thousandths (as
// the checks' vectors count them).
func cpuMem(r corev1.ResourceList) [2]float64 {
	cpu, mem := r[corev1.ResourceCPU], r[corev1.ResourceMemory]
	return [2]float64{float64(cpu.MilliValue()), float64(mem.MilliValue())}
}
