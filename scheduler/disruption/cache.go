package disruption

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/requirements"
)

// failCache remembers the consolidation simulations that failed, so that a
// later round does not run them again while nothing they depend on has
// changed. Karpenter re-simulates every candidate every round; the answer
// is the same as long as a failure stays a failure, which holds when the
// commands since took capacity away rather than adding it:
//
//   - the candidates are the same nodes with the same pods (the key holds
//     each node's name and the command that last changed its pods);
//   - no pending pod was placed and no pod of a node being deleted moved
//     (those pods are in every simulation);
//   - no node was added with room for one of the simulation's pods (room:
//     its allocatable minus its pods covers the pod's requests in every
//     resource; the smallest request of each resource bounds them all);
//   - no node went of a NodePool with limits that a pod of the simulation
//     may use (mayUse: its taints and requirements let the pod on; the
//     limits would free up for it);
//   - no pod of the simulation uses a host port;
//   - when a pod of the simulation has topology terms (spread, affinity,
//     anti-affinity) or another pod's anti-affinity selects it: no pod that
//     a command moved or took away is selected by one of its affinity terms,
//     or by one of its spread or anti-affinity terms whose domain (the
//     value of its topology key) the pod changed; no such pod has an
//     anti-affinity term selecting one of the simulation's pods whose
//     domain it changed; and the zones of the nodes are the same. A command
//     moves pods only off nodes that go (or were pending): on the hostname,
//     that only ever takes room away, so a hostname term is never
//     invalidated by a move.
//
// Only failures are kept: a success is acted on or re-simulated.
type failCache struct {
	entries map[string]*failEntry
	// pendingVersion changes when a pending pod or a pod of a deleting
	// node is placed, or pods become pending.
	pendingVersion int
}

type failEntry struct {
	why     *why
	min     corev1.ResourceList
	pending int
	// entangled entries also keep their pods and their terms, for
	// invalidate.
	entangled bool
	pods      []*pod
	terms     []termRef
	// limited are the NodePools with limits some pod of the simulation
	// may use.
	limited map[string]bool
}

// termRef is a compiled term: its selector's key (see compile), topology
// key and kind.
type termRef struct {
	sel, key string
	attract  bool
}

// key names a simulation: the method's kind and the candidates with the
// command that last changed each.
func (m *model) cacheKey(kind string, cands []*candidate) string {
	size := len(kind)
	for _, c := range cands {
		size += len(c.n.name) + 8
	}
	b := make([]byte, 0, size)
	b = append(b, kind...)
	for _, c := range cands {
		b = append(b, 0)
		b = append(b, c.n.name...)
		b = append(b, '@')
		b = strconv.AppendInt(b, int64(c.n.touchedBy), 10)
	}
	return string(b)
}

func (m *model) cached(key string) *why {
	if m.cfg.noCache {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.cache.entries[key]
	if e == nil || e.pending != m.cache.pendingVersion {
		return nil
	}
	m.stats.CacheHits++
	return e.why
}

// failCached reports whether a multi-node probe of the prefix has a
// failure cached (as tryProbe asks, without counting a hit).
func (m *model) failCached(prefix []*candidate) bool {
	if m.cfg.noCache {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, kind := range []string{"same-type", "consolidate"} {
		if e := m.cache.entries[m.cacheKey(kind, prefix)]; e != nil && e.pending == m.cache.pendingVersion {
			return true
		}
	}
	return false
}

// remember stores a failure when the simulation is one the cache may keep.
func (m *model) remember(key string, sim *simulation, w *why) {
	if sim == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e := &failEntry{why: w, min: minRequests(sim), pending: m.cache.pendingVersion}
	for _, sp := range sim.pods {
		if hostPorts(sp.obj) {
			return
		}
		for _, p := range m.pools {
			if len(p.np.Spec.Limits) > 0 && !e.limited[p.name] && m.mayUse(sp.obj, p) {
				if e.limited == nil {
					e.limited = map[string]bool{}
				}
				e.limited[p.name] = true
			}
		}
		e.entangled = e.entangled || entangledPod(sp.obj) || m.repelled(sp.p)
	}
	if e.entangled {
		pods := make([]*simPod, 0, len(sim.pods))
		for _, sp := range sim.pods {
			pods = append(pods, sp)
			e.pods = append(e.pods, sp.p)
		}
		for _, ps := range selectorsOf(pods) {
			if k, ok := m.compile(ps); ok {
				e.terms = append(e.terms, termRef{sel: k, key: ps.topologyKey, attract: ps.attract})
			}
		}
	}
	if m.cache.entries == nil {
		m.cache.entries = map[string]*failEntry{}
	}
	m.cache.entries[key] = e
}

// repelled: some pod of the cluster has a required anti-affinity term that
// selects p (once per pod and model version; m.mu held).
func (m *model) repelled(p *pod) bool {
	if p.repelledAt == m.version+1 {
		return p.repelled
	}
	p.repelledAt, p.repelled = m.version+1, slices.ContainsFunc(m.antiAffinity(), func(g *antiGroup) bool { return g.term.selects(p) })
	return p.repelled
}

// antiTerm is one required anti-affinity term of a bound pod.
type antiTerm struct {
	owner         *pod
	namespaces    []string
	allNamespaces bool
	sel           labels.Selector
	// key is the same for terms that select the same pods: the selector,
	// and the namespaces (the owner's when none is named).
	key string
}

func (t antiTerm) selects(p *pod) bool {
	inNS := t.allNamespaces || slices.Contains(t.namespaces, p.ns) || (len(t.namespaces) == 0 && t.owner.ns == p.ns)
	return inNS && t.sel.Matches(labels.Set(p.obj.Labels))
}

// antiGroup is the required anti-affinity terms of the cluster's pods that
// select the same pods (one key), with their owners.
type antiGroup struct {
	term   antiTerm // the first of them
	owners []*pod
}

// antiAffinity groups the required anti-affinity terms of the cluster's
// pods by what they select (gathered once per model version, each pod's
// terms compiled once), in the order of their first owner.
func (m *model) antiAffinity() []*antiGroup {
	if m.antiVersion == m.version+1 {
		return m.anti
	}
	m.anti, m.antiVersion = nil, m.version+1
	byKey := map[string]*antiGroup{}
	for _, n := range m.nodes {
		for _, p := range n.pods {
			for _, t := range p.antiTerms() {
				g := byKey[t.key]
				if g == nil {
					g = &antiGroup{term: t}
					byKey[t.key] = g
					m.anti = append(m.anti, g)
				}
				if len(g.owners) == 0 || g.owners[len(g.owners)-1] != p {
					g.owners = append(g.owners, p)
				}
			}
		}
	}
	return m.anti
}

// antiTerms are the pod's required anti-affinity terms (compiled once: a
// pod's spec is never written).
func (p *pod) antiTerms() []antiTerm {
	if p.antiKnown {
		return p.anti
	}
	p.antiKnown = true
	a := p.obj.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil || t.LabelSelector == nil {
			continue
		}
		at := antiTerm{owner: p, namespaces: t.Namespaces, allNamespaces: t.NamespaceSelector != nil, sel: sel}
		ns := strings.Join(t.Namespaces, ",")
		if len(t.Namespaces) == 0 {
			ns = "owner:" + p.ns
		}
		at.key = sel.String() + "\x00" + boolKey(at.allNamespaces) + "\x00" + ns
		p.anti = append(p.anti, at)
	}
	return p.anti
}

// minRequests is, per resource, the smallest request of the simulation's
// pods (a resource some pod does not ask for is left out: any room fits).
func minRequests(sim *simulation) corev1.ResourceList {
	var out corev1.ResourceList
	first := true
	for _, sp := range sim.pods {
		req := sp.p.requests()
		if first {
			out, first = req.DeepCopy(), false
			continue
		}
		for n, q := range out {
			r, ok := req[n]
			if !ok {
				delete(out, n)
			} else if r.Cmp(q) < 0 {
				out[n] = r
			}
		}
	}
	return out
}

// invalidate drops what a command made stale: everything when pending pods
// moved; the entries whose pods may use a pool with limits that lost a node
// (limitedGone names them); the entries whose smallest requests fit the
// room of a new node.
func (m *model) invalidate(added []*node, changed []podMove, pendingMoved bool, limitedGone map[string]bool, zonesChanged bool) {
	if pendingMoved {
		m.cache.pendingVersion++
	}
	for k, e := range m.cache.entries {
		for pool := range limitedGone {
			if e.limited[pool] {
				delete(m.cache.entries, k)
				break
			}
		}
	}
	m.invalidateEntangled(changed, zonesChanged)
	for _, n := range added {
		room := n.room()
		for k, e := range m.cache.entries {
			if fits(e.min, room) {
				delete(m.cache.entries, k)
			}
		}
	}
}

// fits: every request is within room.
func fits(req, room corev1.ResourceList) bool {
	for n, q := range req {
		r, ok := room[n]
		if !ok || r.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

// room is the node's allocatable (capacity when none) minus its active
// pods' requests (a node with neither has no room: its pods' requests
// count below zero).
func (n *node) room() corev1.ResourceList {
	alloc := n.obj.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.obj.Status.Capacity
	}
	out := copyResources(alloc)
	for _, p := range n.pods {
		if !p.active() {
			continue
		}
		for name, q := range p.requests() {
			r := out[name]
			r.Sub(q)
			out[name] = r
		}
	}
	return out
}

// copyResources is a deep copy of rl that is never nil (DeepCopy of a nil
// list is nil, and a list written to must not be).
func copyResources(rl corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(rl))
	for name, q := range rl {
		out[name] = q.DeepCopy()
	}
	return out
}

// requests are the pod's requests as the kubelet counts them (once).
func (p *pod) requests() corev1.ResourceList {
	if p.req == nil {
		p.req = podrequests.OfPod(p.obj)
	}
	return p.req
}

// compiled is a pod selector ready to match: its namespaces (all: any) and
// label selector.
type compiled struct {
	namespaces []string
	all        bool
	sel        labels.Selector
}

func (c compiled) selects(p *pod) bool {
	return (c.all || slices.Contains(c.namespaces, p.ns)) && c.sel.Matches(labels.Set(p.obj.Labels))
}

// compile returns the key of a pod selector, compiling it once per plan
// (and once per selector object: a pod's spec is never written).
func (m *model) compile(ps podSelector) (string, bool) {
	if ps.sel == nil {
		return "", false
	}
	ck := compileKey{sel: ps.sel, all: ps.all, namespaces: strings.Join(ps.namespaces, ",")}
	if key, ok := m.compiledBy[ck]; ok {
		return key, key != ""
	}
	if m.compiledBy == nil {
		m.compiledBy = map[compileKey]string{}
	}
	sel, err := metav1.LabelSelectorAsSelector(ps.sel)
	if err != nil {
		m.compiledBy[ck] = ""
		return "", false
	}
	key := sel.String() + "\x00" + boolKey(ps.all) + "\x00" + ck.namespaces
	if m.compiled == nil {
		m.compiled = map[string]compiled{}
	}
	if _, ok := m.compiled[key]; !ok {
		m.compiled[key] = compiled{namespaces: ps.namespaces, all: ps.all, sel: sel}
	}
	m.compiledBy[ck] = key
	return key, true
}

// compileKey is a pod selector as compile memoises it.
type compileKey struct {
	sel        *metav1.LabelSelector
	all        bool
	namespaces string
}

// podMove is a pod a command moved or took away, with the labels of the
// node it left (nil: it was pending) and of the node it went to (nil: it
// is pending or gone).
type podMove struct {
	p        *pod
	from, to map[string]string
}

// changes reports whether the move changed the pod's domain for a key.
func (mv podMove) changes(key string) bool {
	if key == requirements.LabelHostname {
		return false // see failCache
	}
	a, okA := mv.from[key]
	b, okB := mv.to[key]
	return a != b || okA != okB || (mv.from == nil) != (mv.to == nil)
}

// invalidateEntangled drops the entangled entries a command may have
// changed (see failCache), all of them when the nodes' zones changed.
func (m *model) invalidateEntangled(changed []podMove, zonesChanged bool) {
	if len(changed) == 0 && !zonesChanged {
		return
	}
	var repels []podMoveTerm // the moved pods' anti-affinity terms whose domain they changed
	for _, mv := range changed {
		for _, ps := range termsOf(mv.p.ns, &mv.p.obj.Spec) {
			if ps.attract || ps.spread || !mv.changes(ps.topologyKey) {
				continue
			}
			if k, ok := m.compile(ps); ok {
				repels = append(repels, podMoveTerm{sel: k})
			}
		}
	}
	for k, e := range m.cache.entries {
		if !e.entangled {
			continue
		}
		if zonesChanged || m.touches(e, changed) || m.pickedByAny(repels, e.pods) {
			delete(m.cache.entries, k)
		}
	}
}

type podMoveTerm struct{ sel string }

// touches reports whether an entry's terms see one of the moves.
func (m *model) touches(e *failEntry, changed []podMove) bool {
	for _, t := range e.terms {
		c := m.compiled[t.sel]
		for _, mv := range changed {
			if (t.attract || mv.changes(t.key)) && c.selects(mv.p) {
				return true
			}
		}
	}
	return false
}

func (m *model) pickedByAny(terms []podMoveTerm, pods []*pod) bool {
	for _, t := range terms {
		if slices.ContainsFunc(pods, m.compiled[t.sel].selects) {
			return true
		}
	}
	return false
}
