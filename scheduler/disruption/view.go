package disruption

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// The view is how a simulation hands the remaining nodes to Solve without
// every pod on them: Solve's cost grows with the bound pods and the node
// labels it reads, while a simulation only needs, of most nodes, the room
// left. It is the same input, reduced (the property tests check each
// command against the full cluster with verify.Plan):
//
//   - a bound pod that no pod of the simulation can see (none of their
//     spread constraints, affinity or anti-affinity terms selects it, and
//     it has no required anti-affinity that selects one of them) is folded
//     into its node: the node's allocatable is lowered by its requests and
//     the pod is left out. DaemonSet pods are folded too, and so are the
//     DaemonSets that should run on a node and have no pod there yet (what
//     Solve would subtract); the DaemonSets Solve gets ask their nodes not
//     to carry viewLabel, which every view node carries, so Solve subtracts
//     nothing more on existing nodes and counts them on new ones as before;
//   - a node keeps only the labels something reads (the keys of every pod's
//     node selector, affinity and topology terms, of the DaemonSets and
//     volumes, and the well-known ones);
//   - when no pod of the simulation has a topology term or a host port and
//     none is repelled by another pod's anti-affinity, a node none of them
//     can land on is left out (unless its NodePool has limits, which count
//     its capacity): no pod of the simulation that it admits (taints,
//     labels: prefilter.go) fits its room.
//
// A simulation with a pod that uses a host port takes the full input.

// viewLabel marks the nodes of a view (see the DaemonSets above).
const viewLabel = "disruption.nodeplan.io/view"

// viewNode is one node as views show it: labels reduced, viewLabel set,
// allocatable lowered by every active pod and missing DaemonSet (room).
type viewNode struct {
	obj, gated *corev1.Node
	room       corev1.ResourceList
	roomVec    vec // room as the checks count it (prefilter.go)
	sig        int // see signature (0: not known yet)
	// with holds the node with some of its pods put back (withPods), by
	// gate and pods, so that simulations share one object (Solve's Memo
	// knows it).
	with []withEntry
	// ghosts holds the ghost nodes made with it first (ghost).
	ghosts []withEntry
	// zone is obj's zone label, once zoneKnown (see zoneLabel).
	zone               string
	hasZone, zoneKnown bool
}

// zoneLabel is the node's zone label (read once: every object of the view
// node, gated or with pods, shares obj's labels).
func (vn *viewNode) zoneLabel() (string, bool) {
	if !vn.zoneKnown {
		vn.zone, vn.hasZone = vn.obj.Labels[requirements.LabelTopologyZone]
		vn.zoneKnown = true
	}
	return vn.zone, vn.hasZone
}

// viewDaemonSets are the cluster's DaemonSets, each asking for nodes
// without viewLabel (made once).
func (m *model) viewDaemonSets() []*appsv1.DaemonSet {
	if m.viewDS != nil || len(m.cluster.DaemonSets) == 0 {
		return m.viewDS
	}
	expr := corev1.NodeSelectorRequirement{Key: viewLabel, Operator: corev1.NodeSelectorOpDoesNotExist}
	for _, ds := range m.cluster.DaemonSets {
		c := ds.DeepCopy()
		spec := &c.Spec.Template.Spec
		if spec.Affinity == nil {
			spec.Affinity = &corev1.Affinity{}
		}
		if spec.Affinity.NodeAffinity == nil {
			spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := spec.Affinity.NodeAffinity
		if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
		}
		terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		for i := range terms {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, expr)
		}
		m.viewDS = append(m.viewDS, c)
	}
	return m.viewDS
}

// viewNode returns n as views show it (made once per node and set of
// pods: bind drops it).
func (m *model) viewNode(n *node) *viewNode {
	if n.view != nil {
		return n.view
	}
	c := *n.obj
	c.Labels = map[string]string{viewLabel: "true"}
	for k, val := range n.obj.Labels {
		if m.readKeys()[k] {
			c.Labels[k] = val
		}
	}
	room := n.room()
	for _, ds := range m.missingDaemonSets(n) {
		for name, q := range ds.Requests() {
			r := room[name]
			r.Sub(q)
			room[name] = r
		}
	}
	c.Status.Allocatable, c.Status.Capacity = room, n.obj.Status.Capacity
	if len(c.Status.Capacity) == 0 {
		c.Status.Capacity = n.obj.Status.Allocatable
	}
	vn := &viewNode{obj: &c, room: room}
	g := c
	g.Spec.Taints = append(slices.Clone(c.Spec.Taints), gateTaint())
	vn.gated = &g
	n.view = vn
	return vn
}

// readKeys are the label keys something may read on a node (made once).
func (m *model) readKeys() map[string]bool {
	if m.keys != nil {
		return m.keys
	}
	schema := m.catalog.Schema()
	keys := map[string]bool{}
	for _, k := range []string{requirements.LabelHostname, requirements.LabelNodePool, requirements.LabelNodeInitialized,
		requirements.LabelNodeRegistered, requirements.LabelTopologyZone, requirements.LabelTopologyRegion, requirements.LabelCapacityType,
		requirements.LabelInstanceType, requirements.LabelArch, requirements.LabelOS} {
		keys[k] = true
	}
	add := func(k string) { keys[k], keys[schema.Normalize(k)] = true, true }
	for _, n := range m.nodes {
		for _, p := range n.pods {
			specKeys(&p.obj.Spec, add)
		}
	}
	for _, p := range m.pending {
		specKeys(&p.obj.Spec, add)
	}
	for _, ds := range m.cluster.DaemonSets {
		specKeys(&ds.Spec.Template.Spec, add)
	}
	for _, pv := range m.cluster.PVs {
		if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
			termKeys(na.Required.NodeSelectorTerms, add)
		}
	}
	for _, sc := range m.cluster.StorageClasses {
		for _, t := range sc.AllowedTopologies {
			for _, e := range t.MatchLabelExpressions {
				add(e.Key)
			}
		}
	}
	m.keys = keys
	return keys
}

// specKeys calls add with every label key a pod spec reads on nodes.
func specKeys(s *corev1.PodSpec, add func(string)) {
	for k := range s.NodeSelector {
		add(k)
	}
	for _, c := range s.TopologySpreadConstraints {
		add(c.TopologyKey)
	}
	a := s.Affinity
	if a == nil {
		return
	}
	if na := a.NodeAffinity; na != nil {
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			termKeys(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, add)
		}
		for _, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			termKeys([]corev1.NodeSelectorTerm{t.Preference}, add)
		}
	}
	for _, t := range podTerms(a) {
		add(t.TopologyKey)
	}
}

func termKeys(ts []corev1.NodeSelectorTerm, add func(string)) {
	for _, t := range ts {
		for _, e := range t.MatchExpressions {
			add(e.Key)
		}
		for _, e := range t.MatchFields {
			add(e.Key)
		}
	}
}

// podTerms lists a pod's affinity and anti-affinity terms, required and
// preferred.
func podTerms(a *corev1.Affinity) []corev1.PodAffinityTerm {
	var out []corev1.PodAffinityTerm
	if pa := a.PodAffinity; pa != nil {
		out = append(out, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, w.PodAffinityTerm)
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		out = append(out, pa.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			out = append(out, w.PodAffinityTerm)
		}
	}
	return out
}

// missingDaemonSets are the DaemonSets that run on n (they tolerate its
// taints and some alternative matches its labels) without a pod there:
// Solve counts them on the node.
func (m *model) missingDaemonSets(n *node) []*nodepool.DaemonSet {
	have := map[string]bool{}
	for _, p := range n.pods {
		for _, o := range p.obj.OwnerReferences {
			if o.Kind == "DaemonSet" {
				have[p.ns+"/"+o.Name] = true
			}
		}
	}
	schema := m.catalog.Schema()
	labels := map[string]string{}
	for k, v := range n.obj.Labels {
		labels[schema.Normalize(k)] = v
	}
	if _, ok := labels[requirements.LabelHostname]; !ok {
		labels[requirements.LabelHostname] = n.name
	}
	var out []*nodepool.DaemonSet
	for i := range m.daemonSets {
		ds := &m.daemonSets[i]
		if have[ds.Namespace()+"/"+ds.Name()] {
			continue
		}
		if _, bad := requirements.UntoleratedTaint(n.obj.Spec.Taints, ds.Tolerations()); bad {
			continue
		}
		if slices.ContainsFunc(ds.Alternatives(), func(alt requirements.Requirements) bool { return alt.Matches(labels) }) {
			out = append(out, ds)
		}
	}
	return out
}

// selectorsOf lists the terms of a simulation's pods that select other
// pods: spread constraints and pod (anti-)affinity, required and preferred.
func selectorsOf(pods []*simPod) []podSelector {
	var out []podSelector
	for _, sp := range pods {
		out = append(out, termsOf(sp.p.ns, &sp.obj.Spec)...)
	}
	return out
}

// termsOf lists the pod-selecting terms of a pod spec with their topology
// keys: spread constraints and anti-affinity terms repel, affinity terms
// attract.
func termsOf(ns string, s *corev1.PodSpec) []podSelector {
	var out []podSelector
	for _, c := range s.TopologySpreadConstraints {
		out = append(out, podSelector{namespaces: []string{ns}, sel: c.LabelSelector, topologyKey: c.TopologyKey, spread: true})
	}
	if s.Affinity == nil {
		return out
	}
	add := func(t corev1.PodAffinityTerm, attract bool) {
		ps := podSelector{namespaces: t.Namespaces, sel: t.LabelSelector, all: t.NamespaceSelector != nil, topologyKey: t.TopologyKey, attract: attract}
		if len(ps.namespaces) == 0 && !ps.all {
			ps.namespaces = []string{ns}
		}
		out = append(out, ps)
	}
	if pa := s.Affinity.PodAffinity; pa != nil {
		for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			add(t, true)
		}
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			add(w.PodAffinityTerm, true)
		}
	}
	if pa := s.Affinity.PodAntiAffinity; pa != nil {
		for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			add(t, false)
		}
		for _, w := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			add(w.PodAffinityTerm, false)
		}
	}
	return out
}

// podSelector is a label selector over some namespaces (all: any).
type podSelector struct {
	namespaces []string
	all        bool
	sel        *metav1.LabelSelector
	// topologyKey and attract say what the term does with the pods it
	// selects (the failure cache reads them).
	topologyKey string
	attract     bool
	spread      bool
}

func boolKey(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// reduced builds the view a simulation gives Solve (see the top of this
// file); ok is false when the simulation needs the full input.
func (m *model) reduced(pods []*simPod, in simInput, leaving map[string]bool, pools []nodepool.NodePool) (nodes []*corev1.Node, bound []*corev1.Pod, ok bool) {
	gate := in.gate
	entangled, ghosts := false, true
	for _, sp := range pods {
		if hostPorts(sp.obj) {
			return nil, nil, false
		}
		entangled = entangled || entangledPod(sp.obj) || m.repelled(sp.p)
		ghosts = ghosts && !minDomains(sp.obj)
	}
	rel := m.relevant(pods)
	limit := 0
	if in.method == MethodGlobal {
		limit = m.cfg.destinations
	}
	byName := false
	if in.capped {
		limit, byName = m.cfg.destinations, true
	}
	lands := m.landable(pods, limit, leaving, byName)
	var gs ghostSet
	var vns []*viewNode // the view nodes of nodes
	for _, n := range m.nodes {
		if leaving[n.name] || n.deleting {
			continue
		}
		vn := m.viewNode(n)
		mine := rel.pods(n)
		limited := n.pool != nil && len(n.pool.np.Spec.Limits) > 0
		if !limited && !lands(n) {
			if !entangled && len(mine) == 0 {
				continue // no room, nothing anyone counts
			}
			if entangled && ghosts {
				gs.add(m, n, vn, mine)
				continue
			}
		}
		obj := vn.obj
		if gate && m.underConsolidateAfter(n) {
			obj = vn.gated
		}
		if len(mine) > 0 {
			obj = vn.withPods(obj, mine)
			for _, p := range mine {
				bound = append(bound, p.slim())
			}
		}
		nodes, vns = append(nodes, obj), append(vns, vn)
	}
	if m.zoneOnly(pods, rel) {
		gs.thin(m, zoneDomains(m, pools, vns, &gs))
	}
	gn, gp := gs.build(m)
	return append(nodes, gn...), append(bound, gp...), true
}

// slim is the pod as a view gives Solve a bound pod: what Solve reads of
// one (scheduler's prepareExisting: its name, namespace, labels, owners,
// phase, node, required anti-affinity, host ports and requests) and no
// more, its requests in one container (podrequests.OfPod of the copy is
// that of the pod, which Solve computes on every simulation). Made once per
// pod and shared (never written).
func (p *pod) slim() *corev1.Pod {
	if p.slimObj != nil {
		return p.slimObj
	}
	o := p.obj
	req := corev1.ResourceList{}
	for name, q := range p.requests() {
		if name != corev1.ResourcePods {
			req[name] = q
		}
	}
	c := corev1.Container{Name: "requests", Resources: corev1.ResourceRequirements{Requests: req}}
	for _, cs := range [][]corev1.Container{o.Spec.InitContainers, o.Spec.Containers} {
		for _, ct := range cs {
			for _, port := range ct.Ports {
				if port.HostPort != 0 {
					c.Ports = append(c.Ports, port)
				}
			}
		}
	}
	p.slimObj = &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: o.Labels, OwnerReferences: o.OwnerReferences,
			DeletionTimestamp: o.DeletionTimestamp},
		Spec:   corev1.PodSpec{NodeName: o.Spec.NodeName, Affinity: o.Spec.Affinity, Containers: []corev1.Container{c}},
		Status: corev1.PodStatus{Phase: o.Status.Phase},
	}
	return p.slimObj
}

// landable returns whether some pod of the simulation can land on a node:
// the node admits it (taints, labels) and its requests fit the node's
// room. Pods of a class (prefilter.go) are alike but in requests: the
// smallest of each resource stands for them. A resource the checks do not
// count makes every node landable.
//
// With a bound (the global search's simulations), each class may land only
// on the bound + 2 × its pods nodes of each zone with the most room (cpu,
// then memory, then name) that admit it and are not leaving: the other
// nodes are left out or folded into ghosts as if they had no room, so that
// a simulation costs what its pods need, not what the cluster holds. The
// plan stays valid (the pods land on real nodes with real room, and ghosts
// keep the topology counts); a move that needed another node is not found.
//
// byName takes, instead, the first such nodes by name: where Solve's
// first fit looks first (it takes initialised nodes before the others; a
// drift simulation capped so: methods.go, driftSim).
func (m *model) landable(pods []*simPod, bound int, leaving map[string]bool, byName bool) func(*node) bool {
	rs := m.rooms()
	type class struct {
		cr    *classRoom
		least vec
		n     int
	}
	var order []string
	classes := map[string]*class{}
	for _, sp := range pods {
		v, ok := m.placeVec(sp.p)
		if !ok {
			return func(*node) bool { return true }
		}
		k := sp.p.classKey()
		c := classes[k]
		if c == nil {
			c = &class{cr: m.classRoom(rs, sp.p), least: slices.Clone(v)}
			classes[k] = c
			order = append(order, k)
		}
		for i, x := range v {
			c.least[i] = min(c.least[i], x)
		}
		c.n++
	}
	ok := make([]bool, len(rs.nodes)) // by index into rs.nodes
	for _, k := range order {
		c := classes[k]
		fits := func(i int) bool { return c.least.within(rs.rooms[i]) && !leaving[rs.nodes[i].name] }
		if bound > 0 {
			order := c.cr.admitted
			if !byName {
				order = m.byRoom(rs, c.cr)
			}
			firstPerZone(rs, c.cr, order, fits, bound+2*c.n, ok)
			continue
		}
		for _, i := range c.cr.admitted {
			if fits(i) {
				ok[i] = true
			}
		}
	}
	return func(n *node) bool {
		i, in := rs.index(n)
		return in && ok[i]
	}
}

// byRoom is the class's nodes in mostRoom's order (once per room
// version).
func (m *model) byRoom(rs *roomState, cr *classRoom) []int {
	if cr.byRoom == nil {
		cr.byRoom = slices.Clone(cr.admitted)
		m.mostRoom(rs, cr.byRoom)
	}
	return cr.byRoom
}

// firstPerZone marks in ok, of the class's nodes that fit in each zone
// (a pod spread over zones may have to stay in its own), the first keep
// in order (byRoom's, or by name), and stops once every zone has its
// keep.
func firstPerZone(rs *roomState, cr *classRoom, order []int, fits func(int) bool, keep int, ok []bool) {
	if cr.zones == 0 {
		zones := map[string]bool{}
		for _, i := range cr.admitted {
			zones[rs.nodes[i].zone] = true
		}
		cr.zones = len(zones)
	}
	taken, full := map[string]int{}, 0
	for _, i := range order {
		if full == cr.zones {
			return
		}
		z := rs.nodes[i].zone
		if taken[z] == keep || !fits(i) {
			continue
		}
		taken[z]++
		if taken[z] == keep {
			full++
		}
		ok[i] = true
	}
}

// mostRoom orders node indexes by room, most first: cpu, then memory,
// then name.
func (m *model) mostRoom(rs *roomState, idx []int) {
	cpu, hasCPU := m.resIndex[corev1.ResourceCPU]
	mem, hasMem := m.resIndex[corev1.ResourceMemory]
	at := func(i, d int, has bool) int64 {
		if !has {
			return 0
		}
		return rs.rooms[i][d]
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(at(b, cpu, hasCPU), at(a, cpu, hasCPU)), cmp.Compare(at(b, mem, hasMem), at(a, mem, hasMem)),
			strings.Compare(rs.nodes[a].name, rs.nodes[b].name))
	})
}

// withPods returns obj (vn's, gated or not) with its allocatable raised by
// the pods' requests (they are given to Solve again, bound to it), made
// once per gate and pods (the node's pods stay the same objects while its
// view lives: bind drops the view).
func (vn *viewNode) withPods(obj *corev1.Node, pods []*pod) *corev1.Node {
	gated := obj == vn.gated
	for _, e := range vn.with {
		if e.gated == gated && slices.Equal(e.pods, pods) {
			return e.obj
		}
	}
	c := withPods(obj, vn.room, pods)
	vn.with = append(vn.with, withEntry{gated: gated, pods: slices.Clone(pods), obj: c})
	return c
}

// withEntry is one node object withPods made.
type withEntry struct {
	gated bool
	pods  []*pod
	obj   *corev1.Node
}

func withPods(obj *corev1.Node, room corev1.ResourceList, pods []*pod) *corev1.Node {
	c := *obj
	c.Status.Allocatable = copyResources(room)
	for _, p := range pods {
		for name, q := range p.requests() {
			r := c.Status.Allocatable[name]
			r.Add(q)
			c.Status.Allocatable[name] = r
		}
	}
	return &c
}

// A ghost stands for the nodes of one label signature (the labels the view
// keeps, but the hostname; taints; cordon) that have no room for any pod
// of an entangled simulation: it carries their labels, no room, and the
// pods the simulation's terms count that ran on them. Counts per zone (or
// any key but the hostname) stay the same, and no pod could land on those
// nodes anyway; per hostname, the counts only matter on nodes with room,
// which stay themselves. A simulation with a minDomains term keeps every
// node (the number of hostname domains would change).
type ghostSet struct {
	order []int
	bySig map[int]*ghost // by signature number (signature)
}

type ghost struct {
	first *viewNode
	name  string
	pods  []*pod
}

func (gs *ghostSet) add(m *model, n *node, vn *viewNode, pods []*pod) {
	sig := m.signature(n, vn)
	if gs.bySig == nil {
		gs.bySig = map[int]*ghost{}
	}
	g := gs.bySig[sig]
	if g == nil {
		g = &ghost{first: vn, name: n.name}
		gs.bySig[sig] = g
		gs.order = append(gs.order, sig)
	}
	g.pods = append(g.pods, pods...)
}

// build returns the ghost nodes and their pods (copies bound to them).
func (gs *ghostSet) build(m *model) ([]*corev1.Node, []*corev1.Pod) {
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for _, sig := range gs.order {
		g := gs.bySig[sig]
		for _, p := range g.pods {
			pods = append(pods, m.boundTo(p, g.name))
		}
		nodes = append(nodes, g.first.ghost(g.pods))
	}
	return nodes, pods
}

// ghost returns the ghost node that stands, with vn first, for the nodes
// of vn's signature holding pods: vn's labels and taints, the pods'
// requests as its room. Made once per view node and pods (the last
// ghostEntries of them kept), so that simulations share one object
// (Solve's Memo knows it).
func (vn *viewNode) ghost(pods []*pod) *corev1.Node {
	for _, e := range vn.ghosts {
		if slices.Equal(e.pods, pods) {
			return e.obj
		}
	}
	c := *vn.obj
	c.Status.Allocatable = corev1.ResourceList{}
	for _, p := range pods {
		for name, q := range p.requests() {
			r := c.Status.Allocatable[name]
			r.Add(q)
			c.Status.Allocatable[name] = r
		}
	}
	c.Status.Capacity = c.Status.Allocatable
	if len(vn.ghosts) == ghostEntries {
		vn.ghosts = slices.Delete(vn.ghosts, 0, 1)
	}
	vn.ghosts = append(vn.ghosts, withEntry{pods: slices.Clone(pods), obj: &c})
	return &c
}

// ghostEntries bounds the ghost nodes a view node keeps.
const ghostEntries = 4

// signature numbers what a ghost keeps of a node: nodes alike in it share
// the number (made once per view node; the string once per signature).
func (m *model) signature(n *node, vn *viewNode) int {
	if vn.sig != 0 {
		return vn.sig
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(vn.obj.Labels)) {
		if k != requirements.LabelHostname {
			b.WriteString(k + "=" + vn.obj.Labels[k] + "\x00")
		}
	}
	for _, t := range vn.obj.Spec.Taints {
		b.WriteString("taint:" + t.Key + "=" + t.Value + ":" + string(t.Effect) + "\x00")
	}
	if vn.obj.Spec.Unschedulable {
		b.WriteString("cordoned")
	}
	id, ok := m.sigs[b.String()]
	if !ok {
		if m.sigs == nil {
			m.sigs = map[string]int{}
		}
		id = len(m.sigs) + 1
		m.sigs[b.String()] = id
	}
	vn.sig = id
	return id
}

// boundTo returns a copy of the pod bound to another node (made once per
// pod and node, and shared: Solve's Memo knows it).
func (m *model) boundTo(p *pod, nodeName string) *corev1.Pod {
	if c, ok := p.boundCopies[nodeName]; ok {
		return c
	}
	c := *p.slim()
	c.Spec.NodeName = nodeName
	if p.boundCopies == nil {
		p.boundCopies = map[string]*corev1.Pod{}
	}
	p.boundCopies[nodeName] = &c
	return &c
}

// minDomains: the pod has a spread constraint with minDomains.
func minDomains(p *corev1.Pod) bool {
	for _, c := range p.Spec.TopologySpreadConstraints {
		if c.MinDomains != nil {
			return true
		}
	}
	return false
}

// relSet is relevant's answer: the nodes holding a pod the simulation's
// pods can see, and those pods on each node (pods), until the next call.
type relSet struct {
	mark  int
	nodes []*node
}

// pods are the relevant pods of n, in n's order (nil: none).
func (r relSet) pods(n *node) []*pod {
	if n.relMark != r.mark {
		return nil
	}
	return n.relPods
}

// relevant are the bound pods a simulation's pods can see, by node: those
// their terms select, and those whose required anti-affinity selects them
// (m.mu held: the pods and nodes seen carry relevant's mark, and the
// nodes their relevant pods until the next call).
func (m *model) relevant(pods []*simPod) relSet {
	m.sels.mark++
	mark := m.sels.mark
	var touched []*node
	seen := 0
	see := func(n *node, p *pod) {
		p.relMark = mark
		seen++
		if n.relMark != mark {
			n.relMark = mark
			touched = append(touched, n)
		}
	}
	done := map[string]bool{} // selectors by key: pods alike share them
	for _, ps := range selectorsOf(pods) {
		key, ok := m.compile(ps)
		if !ok || done[key] {
			continue
		}
		done[key] = true
		for _, e := range m.selNodesOf(key) {
			for _, p := range e.pods {
				see(e.n, p)
			}
		}
	}
	for _, g := range m.antiAffinity() {
		for _, sp := range pods {
			if g.term.selects(sp.p) {
				for _, o := range g.owners {
					if n := m.byName[o.node]; n != nil {
						see(n, o)
					}
				}
				break
			}
		}
	}
	// The pods of each node that holds one, in the node's order, in one
	// allocation (no more than were seen).
	out := relSet{mark: mark}
	buf := make([]*pod, 0, seen)
	for _, n := range touched {
		start := len(buf)
		for _, q := range n.pods {
			if q.relMark == mark && q.active() {
				buf = append(buf, q)
			}
		}
		n.relPods = nil
		if len(buf) > start {
			n.relPods = buf[start:len(buf):len(buf)]
			out.nodes = append(out.nodes, n)
		}
	}
	return out
}

// hostPorts: some container of the pod takes a host port.
func hostPorts(p *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			for _, port := range c.Ports {
				if port.HostPort != 0 {
					return true
				}
			}
		}
	}
	return false
}

// entangledPod: the pod has a topology spread constraint or pod affinity
// or anti-affinity, required or preferred.
func entangledPod(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	return len(p.Spec.TopologySpreadConstraints) > 0 || (a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil))
}
