package disruption

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler"
)

// roundPrice rounds a price to 1e-9, as plans do.
func roundPrice(p float64) float64 { return math.Round(p*1e9) / 1e9 }

// commit carries a proposal out on the model and returns its command: the
// candidates go, the replacements come up (initialized, at now), every
// placed pod is bound where the simulation put it, and the candidates'
// other reschedulable pods are left pending.
func (m *model) commit(p *proposal, index int) (Command, error) {
	before, zones := m.totalPrice(), m.zones()
	cmd := Command{Method: p.method, Reason: p.reason, Decision: DecisionDelete, Nodes: []CommandNode{}, Replacements: []scheduler.NodeClaim{}, Moves: []Move{}}
	for _, c := range p.cands {
		cmd.Nodes = append(cmd.Nodes, CommandNode{Name: c.n.name, NodePool: c.n.poolName, InstanceType: c.n.obj.Labels["node.kubernetes.io/instance-type"],
			Zone: c.n.zone, CapacityType: c.n.ct, Price: c.n.price})
	}
	dest := map[string]string{} // simulation node name → model node name
	var launched []*node
	for _, r := range p.repls {
		var pods []*corev1.Pod
		if p.sim != nil {
			pods = m.claimPods(p.sim, r.nc.Pods)
		}
		nc := m.finish(r, pods)
		name := m.newName(nc.NodePool)
		dest[nc.Name] = name
		nc.Name = name
		cmd.Replacements = append(cmd.Replacements, nc)
		launched = append(launched, m.launch(nc, index))
	}
	if len(cmd.Replacements) > 0 {
		cmd.Decision = DecisionReplace
	}
	for _, n := range launched {
		m.insert(n)
	}
	if len(launched) > 0 {
		m.added++
	}
	changed := m.changedPods(p, dest)
	for _, c := range p.cands {
		m.remove(c.n, index)
	}
	if p.method == MethodStaticDrift {
		// The kube-scheduler binds the pods where they fit, the
		// replacement included; no NodeClaim is planned for them.
		sim, err := m.simulate(simInput{cands: p.cands, noPools: true})
		if err != nil {
			return Command{}, err
		}
		p.sim = sim
	}
	cmd.Moves = m.bindPlaced(p.sim, dest, index)
	cmd.Pending = m.leavePending(p, cmd.Moves)
	m.version++
	m.invalidate(launched, changed, pendingMoved(p, cmd), limitedGone(p), zones != m.zones())
	after := m.totalPrice()
	cmd.PricePerHourBefore, cmd.PricePerHourAfter = roundPrice(before), roundPrice(after)
	cmd.SavingsPerHour = roundPrice(before - after)
	return cmd, nil
}

// claimPods are the pods a simulated NodeClaim holds, as Solve saw them.
func (m *model) claimPods(s *simulation, keys []string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, key := range keys {
		if sp := s.pods[key]; sp != nil {
			out = append(out, sp.obj)
		}
	}
	return out
}

// newName returns "<pool>-<n>" with the smallest n no node has had.
func (m *model) newName(pool string) string {
	for i := 1; ; i++ {
		name := fmt.Sprintf("%s-%d", pool, i)
		if !m.names[name] {
			m.names[name] = true
			return name
		}
	}
}

// launch makes the model node of a replacement.
func (m *model) launch(nc scheduler.NodeClaim, index int) *node {
	var np = m.poolByName[nc.NodePool]
	obj, claim := Launch(nc, &np.np, m.catalog, m.now)
	n := &node{name: obj.Name, obj: obj, claim: &claim, createdBy: index}
	_ = m.describe(n) // the type comes from the catalog: no error
	n.lastEvent = m.now
	return n
}

func (m *model) remove(n *node, index int) {
	m.noteChange(n)
	n.disruptedBy = index
	for _, p := range n.pods {
		if p.active() {
			n.podsAtRemoval++
		}
	}
	i := slices.Index(m.nodes, n)
	m.nodes = slices.Delete(m.nodes, i, i+1)
	delete(m.byName, n.name)
	m.gone = append(m.gone, n)
}

func (m *model) insert(n *node) {
	m.noteChange(n)
	i, _ := slices.BinarySearchFunc(m.nodes, n.name, func(a *node, name string) int { return strings.Compare(a.name, name) })
	m.nodes = slices.Insert(m.nodes, i, n)
	m.byName[n.name] = n
}

// bindPlaced binds every pod the simulation placed (pods of nodes already
// being deleted too: the replacements were sized for them) and returns the
// moves, sorted by pod.
func (m *model) bindPlaced(s *simulation, dest map[string]string, index int) []Move {
	moves := []Move{}
	if s == nil {
		return moves
	}
	place := func(to string, keys []string) {
		n := m.byName[to]
		for _, key := range keys {
			sp := s.pods[key]
			if sp == nil || n == nil {
				continue
			}
			m.bind(sp, n, index)
			moves = append(moves, Move{Pod: key, From: sp.from, To: to})
		}
	}
	for _, en := range s.res.ExistingNodes {
		place(en.Name, en.Pods)
	}
	for _, nc := range s.res.NodeClaims {
		place(dest[nc.Name], nc.Pods) // the simulation's name is not the node's
	}
	slices.SortFunc(moves, func(a, b Move) int { return strings.Compare(a.Pod, b.Pod) })
	return moves
}

// bind puts a moved or pending pod on a node: a pod event there at now.
func (m *model) bind(sp *simPod, n *node, index int) {
	if sp.from == "" {
		m.pending = slices.DeleteFunc(m.pending, func(p *pod) bool { return p == sp.p })
	} else if src := m.byName[sp.from]; src != nil {
		src.pods = slices.DeleteFunc(src.pods, func(p *pod) bool { return p == sp.p })
		src.view, src.sel = nil, nil
		m.noteChange(src)
	}
	obj := sp.p.obj.DeepCopy()
	obj.Spec.NodeName = n.name
	obj.DeletionTimestamp = nil // a new incarnation of a terminating StatefulSet pod
	obj.Status.Phase = corev1.PodRunning
	started := metav1.NewTime(m.now)
	obj.Status.StartTime = &started
	np := newPod(obj)
	i, _ := slices.BinarySearchFunc(n.pods, np.key, func(a *pod, key string) int { return strings.Compare(a.key, key) })
	n.pods = slices.Insert(n.pods, i, np)
	n.lastEvent, n.touchedBy = m.now, index
	n.gatedObj, n.view, n.sel = nil, nil, nil
	m.noteChange(n)
}

// leavePending makes pending the reschedulable pods of the candidates that
// no move placed (the pods of an expired node that fit nowhere, pods an
// empty node still had): their controllers re-create them.
func (m *model) leavePending(p *proposal, moves []Move) []string {
	moved := map[string]bool{}
	for _, mv := range moves {
		moved[mv.Pod] = true
	}
	var out []string
	for _, c := range p.cands {
		for _, x := range c.n.pods {
			if !x.reschedulable() || moved[x.key] {
				continue
			}
			obj := x.obj.DeepCopy()
			obj.Spec.NodeName = ""
			obj.DeletionTimestamp = nil
			obj.Status = corev1.PodStatus{Phase: corev1.PodPending}
			m.pending = append(m.pending, newPod(obj))
			out = append(out, x.key)
		}
	}
	slices.SortFunc(m.pending, comparePods)
	slices.Sort(out)
	return out
}

// Apply carries a command out on a cluster and returns the cluster it
// leaves (the input is not modified): the command's nodes and their
// NodeClaims go, each replacement comes up as a Node and a NodeClaim
// (Launch, at now), every moved pod is bound to its new node, and the
// other reschedulable pods of the removed nodes become pending (their
// DaemonSet and mirror pods go with them). Applying a plan's commands in
// order gives the cluster the plan ends with.
func Apply(c Cluster, cmd Command, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time) (Cluster, error) {
	removed := map[string]bool{}
	for _, n := range cmd.Nodes {
		removed[n.Name] = true
	}
	out := c
	out.Nodes, out.NodeClaims, out.Pods = nil, nil, nil
	have := map[string]bool{}
	for _, n := range c.Nodes {
		have[n.Name] = true
		if !removed[n.Name] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, n := range cmd.Nodes {
		if !have[n.Name] {
			return Cluster{}, fmt.Errorf("command removes node %s, which the cluster does not have", n.Name)
		}
	}
	for _, nc := range c.NodeClaims {
		if !removed[nc.Name] && !removed[nc.Status.NodeName] {
			out.NodeClaims = append(out.NodeClaims, nc)
		}
	}
	pools := map[string]*nodepool.NodePool{}
	for i := range nodePools {
		pools[nodePools[i].Name] = &nodePools[i]
	}
	for _, r := range cmd.Replacements {
		n, claim := Launch(r, pools[r.NodePool], catalog, now)
		out.Nodes = append(out.Nodes, n)
		out.NodeClaims = append(out.NodeClaims, claim)
	}
	out.Pods = applyMoves(c.Pods, cmd, removed)
	return out, nil
}

// applyMoves rebinds the moved pods and makes the other pods of removed
// nodes pending (reschedulable ones) or gone.
func applyMoves(pods []*corev1.Pod, cmd Command, removed map[string]bool) []*corev1.Pod {
	to := map[string]string{}
	for _, mv := range cmd.Moves {
		to[mv.Pod] = mv.To
	}
	var out []*corev1.Pod
	for _, p := range pods {
		dst, moved := to[podKey(p)]
		switch {
		case moved:
			c := p.DeepCopy()
			c.Spec.NodeName, c.DeletionTimestamp = dst, nil
			c.Status.Phase = corev1.PodRunning
			out = append(out, c)
		case removed[p.Spec.NodeName]:
			if x := newPod(p); x.reschedulable() {
				c := p.DeepCopy()
				c.Spec.NodeName, c.DeletionTimestamp = "", nil
				c.Status = corev1.PodStatus{Phase: corev1.PodPending}
				out = append(out, c)
			}
		default:
			out = append(out, p)
		}
	}
	return out
}

// pendingMoved: the command placed a pending pod or a pod of a node being
// deleted, or left pods pending.
func pendingMoved(p *proposal, cmd Command) bool {
	if len(cmd.Pending) > 0 {
		return true
	}
	for _, mv := range cmd.Moves {
		if sp := p.sim.pods[mv.Pod]; sp != nil && (sp.from == "" || sp.deleting) {
			return true
		}
	}
	return false
}

// limitedGone are the NodePools with limits a node of the proposal
// belonged to.
func limitedGone(p *proposal) map[string]bool {
	var out map[string]bool
	for _, c := range p.cands {
		if c.n.pool != nil && len(c.n.pool.np.Spec.Limits) > 0 {
			if out == nil {
				out = map[string]bool{}
			}
			out[c.n.poolName] = true
		}
	}
	return out
}

// changedPods are the pods a proposal moves or takes away: every pod of
// its candidates and every pod its simulation places, with the labels of
// the nodes they leave and reach (dest maps the simulation's NodeClaims to
// the launched nodes). Call it after the launched nodes are in the model
// and before the candidates go.
func (m *model) changedPods(p *proposal, dest map[string]string) []podMove {
	to := map[string]map[string]string{}
	if p.sim != nil {
		for _, en := range p.sim.res.ExistingNodes {
			for _, key := range en.Pods {
				if n := m.byName[en.Name]; n != nil {
					to[key] = n.obj.Labels
				}
			}
		}
		for _, nc := range p.sim.res.NodeClaims {
			for _, key := range nc.Pods {
				if n := m.byName[dest[nc.Name]]; n != nil {
					to[key] = n.obj.Labels
				}
			}
		}
	}
	var out []podMove
	for _, c := range p.cands {
		for _, x := range c.n.pods {
			out = append(out, podMove{p: x, from: c.n.obj.Labels, to: to[x.key]})
		}
	}
	if p.sim != nil {
		for _, sp := range p.sim.pods {
			if sp.from == "" {
				out = append(out, podMove{p: sp.p, to: to[sp.p.key]})
			} else if sp.deleting {
				if n := m.byName[sp.from]; n != nil {
					out = append(out, podMove{p: sp.p, from: n.obj.Labels, to: to[sp.p.key]})
				}
			}
		}
	}
	return out
}

// zones lists the zones of the model's nodes, as one string.
func (m *model) zones() string {
	set := map[string]bool{}
	for _, n := range m.nodes {
		set[n.zone] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(set)), ",")
}
