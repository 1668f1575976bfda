package scheduler

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// pool is a NodePool prepared for placement.
type pool struct {
	idx  int
	tmpl nodepool.Template
	// reqs is the template's requirements narrowed to the zones and
	// capacity types its instance types offer.
	reqs   requirements.Requirements
	reqID  int32
	types  binpack.TypeSet // types compatible with the template whose DaemonSet overhead fits
	usable []binpack.Vec   // per type: allocatable − DaemonSet overhead
	ds     []binpack.Vec   // per type: DaemonSet overhead
	dsSets [][]int         // per type: indexes of the DaemonSets that run there
	zones  []string
	cts    []string
	// limits
	limited   bool
	remaining binpack.Vec // per limited dimension; math.MaxInt64 where unlimited
	limitDims []int
	overLimit bool // over the limit of a resource no type has: nothing fits
	nodesLeft int  // -1: no nodes limit
	// nodesOver counts the claims taken back (undrop) while no node was
	// left, each a node over the limit until a claim is dropped again:
	// nodesLeft stays 0 meanwhile (takeNode, giveNode).
	nodesOver int
	minValues []requirements.Requirement
	claims    int
	buckets   []*bucket
	preferNo  bool // has a PreferNoSchedule taint
	noTypes   string
	noTypesDS bool // noTypes because DaemonSet overhead fits no type
}

// hostPort is one (ip, port, protocol) a pod holds on its node. The rules
// on host ports are package nodepool's, shared with scheduler/verify:
// podHostPorts and portsConflict are the solver's names for them.
type hostPort = nodepool.HostPort

// portsConflict returns the first port of a that clashes with one of b
// (nodepool.HostPortClash).
func portsConflict(a, b []hostPort) (hostPort, bool) {
	if len(a) == 0 || len(b) == 0 {
		return hostPort{}, false // most pods hold none: no call
	}
	x, _, clash := nodepool.HostPortClash(a, b)
	return x, clash
}

// podHostPorts returns the host ports a pod holds (nodepool.PodHostPorts).
func podHostPorts(spec *corev1.PodSpec) []hostPort { return nodepool.PodHostPorts(spec) }

// pending is one pending pod.
type pending struct {
	pod   *corev1.Pod
	name  string // namespace/name
	cls   *class
	order int
	// placement
	claim   *claim
	node    *existingNode
	failure *failure
	relaxed []string
	att     placedAttempt
}

// placedAttempt remembers how a pod was placed (its requirement
// alternative and relaxation level), so it can be moved under the same rules.
type placedAttempt struct {
	alt, level int
	reqID      int32
}

// existingNode is a node of the cluster that can host pending pods, as one
// plan places pods on it: its room, host ports, NodePool and placements
// are the plan's own, the rest (nodeBase) is shared by every plan of the
// solve.
type existingNode struct {
	*nodeBase
	free   binpack.Vec
	ports  []hostPort
	pool   *pool
	placed []*pending
	// doms keeps the node's domains in this plan's tracker (each plan has
	// its own: freshInto clears it).
	doms topology.NodeDomains
}

// nodeBase is what an existing node is for every plan of a solve, and of
// every Solve with the same Memo when the node is initialised (nodeProto;
// never written once prepared).
type nodeBase struct {
	name   string
	node   *corev1.Node
	labels map[string]string // shared (Memo): never written
	reqs   requirements.Requirements
	// reqLabels is reqs as labels (shared: never written).
	reqLabels map[string]string
	// values gives topology the node's label of a key (shared: nodeFacts).
	values   func(key string, _ requirements.Requirements) []string
	taints   []corev1.Taint // taints that apply to new pods
	topo     *topology.Node
	cordoned bool       // spec.unschedulable (taints holds the matching taint)
	proto    *nodeProto // what the node object gives (memo_existing.go)
}

// preparePools builds the DaemonSets and the pools, in the order of pools
// (copies of the solve's first plan's when it shares them: share.go).
func (s *solver) preparePools(pools []nodepool.NodePool) error {
	sh := s.cfg.shared
	if sh == nil {
		return s.buildPools(pools)
	}
	first := false
	sh.poolsOnce.Do(func() {
		first = true
		if sh.poolsErr = s.buildPools(pools); sh.poolsErr == nil {
			for _, p := range s.pools {
				sh.pools = append(sh.pools, p.fresh())
			}
		}
	})
	if first || sh.poolsErr != nil {
		return sh.poolsErr
	}
	if err := s.prepareDaemonSets(); err != nil {
		return err
	}
	for _, sp := range sh.pools {
		p := sp.fresh()
		p.reqID = s.reqs.intern(p.reqs, p)
		s.pools = append(s.pools, p)
	}
	return nil
}

// buildPools builds the DaemonSets and the pools, in the order of pools.
func (s *solver) buildPools(pools []nodepool.NodePool) error {
	tmpls, err := nodepool.Templates(pools, s.schema)
	if err != nil {
		return err
	}
	if err := s.prepareDaemonSets(); err != nil {
		return err
	}
	for i, t := range tmpls {
		p := s.newPool(i, t)
		p.reqID = s.reqs.intern(p.reqs, p)
		s.pools = append(s.pools, p)
	}
	return nil
}

// prepareDaemonSets parses the DaemonSets and their request vectors.
func (s *solver) prepareDaemonSets() error {
	var dss []nodepool.DaemonSet
	for _, d := range s.cfg.daemonSets {
		ds, err := nodepool.NewDaemonSet(d, s.schema)
		if err != nil {
			return err
		}
		dss = append(dss, ds)
	}
	s.daemonSets = dss
	s.dsVecs = make([]binpack.Vec, len(dss))
	for i, ds := range dss {
		v, unknown := s.dims.Vector(ds.Requests())
		if len(unknown) > 0 {
			// A DaemonSet asking for a resource no instance type has cannot
			// fit anywhere it would run: it makes those types unusable.
			v[0] = math.MaxInt32
		}
		s.dsVecs[i] = v
	}
	return nil
}

// newPool prepares one NodePool's template for placement: its usable
// types and their DaemonSet overhead, its preferences, minValues and
// limits, and its requirements narrowed to what its types offer.
func (s *solver) newPool(i int, t nodepool.Template) *pool {
	p := &pool{idx: i, tmpl: t, nodesLeft: -1}
	pt := s.poolTypesOf(t)
	p.types, p.usable, p.ds, p.dsSets = pt.types, pt.usable, pt.ds, pt.dsSets
	p.noTypes, p.noTypesDS = pt.noTypes, pt.noTypesDS
	p.zones, p.cts, p.reqs = pt.zones, pt.cts, pt.reqs
	p.preferNo = t.HasTaint(corev1.TaintEffectPreferNoSchedule)
	for r := range t.Requirements.All() {
		if r.MinValues() > 0 {
			p.minValues = append(p.minValues, r)
		}
	}
	s.poolLimits(p)
	if p.types.IsEmpty() && p.noTypes == "" {
		p.noTypes = "no instance type satisfies the NodePool's requirements"
	}
	return p
}

// newPoolTypes derives what newPool takes from the template, the catalog
// and the DaemonSets alone (memo_pools.go).
func (s *solver) newPoolTypes(t nodepool.Template) *poolTypes {
	n := s.idx.Len()
	p := &pool{tmpl: t}
	p.types = s.idx.Filter(t.Requirements)
	if key, empty := t.Requirements.Empty(); empty {
		p.types = binpack.NewTypeSet(n)
		p.noTypes = fmt.Sprintf("requirement on %s cannot be met", key)
	}
	p.usable = make([]binpack.Vec, n)
	p.ds = make([]binpack.Vec, n)
	p.dsSets = make([][]int, n)
	before := p.types.Count()
	s.daemonOverhead(p)
	if before > 0 && p.types.IsEmpty() {
		p.noTypes = fmt.Sprintf("the DaemonSets that would run on its nodes need more than any of its %d instance types can give them", before)
		p.noTypesDS = true
	}
	s.poolOfferings(p)
	return &poolTypes{types: p.types, usable: p.usable, ds: p.ds, dsSets: p.dsSets, noTypes: p.noTypes, noTypesDS: p.noTypesDS,
		zones: p.zones, cts: p.cts, reqs: p.reqs}
}

// poolOfferings sets the zones and capacity types the pool's types offer
// under its requirements, and narrows its requirements to them.
func (s *solver) poolOfferings(p *pool) {
	reqs := p.tmpl.Requirements
	zones, cts := map[string]bool{}, map[string]bool{}
	zone, ct, zoneID := reqs.Get(requirements.LabelTopologyZone), reqs.Get(requirements.LabelCapacityType), reqs.Get(instancetypes.LabelZoneID)
	for _, o := range s.cfg.prepared.offers {
		if zone.Has(o.zone) && ct.Has(o.capacityType) && zoneID.Matches(o.zoneID, o.zoneID != "") && o.types.Intersects(p.types) {
			zones[o.zone] = true
			cts[o.capacityType] = true
		}
	}
	p.zones = slices.Sorted(maps.Keys(zones))
	p.cts = slices.Sorted(maps.Keys(cts))
	p.reqs = reqs
	if len(p.zones) > 0 {
		p.reqs = p.reqs.Add(requirements.In(requirements.LabelTopologyZone, p.zones...),
			requirements.In(requirements.LabelCapacityType, p.cts...))
	}
}

// daemonOverhead computes, per instance type, the DaemonSets of the pool that
// run there and what they take. A DaemonSet whose constraints mention no
// instance-type label is evaluated once for the whole pool.
func (s *solver) daemonOverhead(p *pool) {
	perType := make([]bool, len(s.daemonSets))
	poolWide := make([]bool, len(s.daemonSets))
	for i, ds := range s.daemonSets {
		typed := false
		for _, alt := range ds.Alternatives() {
			for _, k := range alt.Keys() {
				if s.idx.IsLabelKey(k) || k == requirements.LabelTopologyZone || k == requirements.LabelCapacityType || k == instancetypes.LabelZoneID {
					typed = true
				}
			}
		}
		perType[i] = typed
		if !typed {
			poolWide[i] = p.tmpl.RunsDaemonSet(ds, requirements.Requirements{})
		}
	}
	runs := p.tmpl.DaemonSetRunner()
	var sets []int // every type's DaemonSets one after the other: dsSets slices it
	p.types.Each(func(t int) bool {
		var v binpack.Vec
		start := len(sets)
		for i, ds := range s.daemonSets {
			on := poolWide[i]
			if perType[i] {
				on = runs(ds, s.idx.Type(t).Requirements())
			}
			if on {
				v = v.Add(s.dsVecs[i])
				sets = append(sets, i)
			}
		}
		p.ds[t] = v
		if len(sets) > start {
			p.dsSets[t] = sets[start:len(sets):len(sets)]
		}
		u := s.idx.Allocatable(t).Sub(v)
		if u.AnyNegative() {
			p.types.Clear(t)
			return true
		}
		p.usable[t] = u
		return true
	})
}

// poolLimits derives the pool's per-dimension form of the limits rule
// (nodepool.Exceeded): remaining is the template's Remaining after its
// existing nodes' Usage, in the catalog's integer units, and withinLimits
// and charge test and spend it on capacity vectors. A limited resource no
// instance type has is 0 on every type, so it is exceeded only when the
// pool is already over it, and then by every type (overLimit).
func (s *solver) poolLimits(p *pool) {
	if len(p.tmpl.Limits) == 0 {
		return
	}
	rem := p.tmpl.Remaining(p.tmpl.Usage(s.cfg.nodes))
	for i := range p.remaining {
		p.remaining[i] = math.MaxInt64
	}
	for name, q := range rem {
		if name == nodepool.ResourceNodes {
			p.nodesLeft = max(int(q.Value()), 0)
			continue
		}
		d, ok := s.dims.Index(name)
		if !ok {
			if q.Sign() < 0 {
				p.limited, p.overLimit = true, true
			}
			continue
		}
		p.limited = true
		p.limitDims = append(p.limitDims, d)
		if name == corev1.ResourceCPU {
			p.remaining[d] = q.MilliValue()
		} else {
			p.remaining[d] = q.Value()
		}
	}
	slices.Sort(p.limitDims)
}

// spendsNoMore reports whether a node of capacity capNew spends no more of
// the pool's limits than one of capacity capOld.
func (p *pool) spendsNoMore(capNew, capOld binpack.Vec) bool {
	for _, d := range p.limitDims {
		if capNew[d] > capOld[d] {
			return false
		}
	}
	return true
}

// takeNode spends one of the NodePool's nodes on a claim opened or taken
// back; giveNode returns one from a claim dropped.
func (p *pool) takeNode() {
	switch {
	case p.nodesLeft > 0:
		p.nodesLeft--
	case p.nodesLeft == 0:
		p.nodesOver++
	}
}

func (p *pool) giveNode() {
	switch {
	case p.nodesOver > 0:
		p.nodesOver--
	case p.nodesLeft >= 0:
		p.nodesLeft++
	}
}

// bounded reports whether the pool has limits (resources or nodes).
func (p *pool) bounded() bool { return p.limited || p.nodesLeft >= 0 }

// withinLimits reports whether growing the pool's charged capacity by
// capacity(t) − charged stays within its remaining limits.
func (p *pool) withinLimits(capNew, capOld *binpack.Vec) bool {
	if !p.limited {
		return true
	}
	if p.overLimit {
		return false
	}
	for _, d := range p.limitDims {
		if capNew[d]-capOld[d] > p.remaining[d] {
			return false
		}
	}
	return true
}

func (p *pool) charge(capNew, capOld *binpack.Vec) {
	if !p.limited {
		return
	}
	for _, d := range p.limitDims {
		p.remaining[d] -= capNew[d] - capOld[d]
	}
}

// seedOf derives the default seed from the input: pod and NodePool names.
func seedOf(pods []*corev1.Pod, pools []nodepool.NodePool) uint64 {
	// Hash sorted names, so the seed does not depend on input order.
	names := make([]string, 0, len(pods)+len(pools))
	for _, p := range pods {
		if p != nil {
			names = append(names, "pod\x00"+podName(p))
		}
	}
	for _, p := range pools {
		names = append(names, "pool\x00"+p.Name)
	}
	slices.Sort(names)
	h := fnv.New64a()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func podName(p *corev1.Pod) string { return kube.Key(p.Namespace, p.Name) }

// prepareExisting builds the existing nodes and the topology view of the
// pods bound to them. It returns the pods of nodes being deleted, which
// need a new home, as pending pods.
func (s *solver) prepareExisting() ([]topology.ExistingPod, []*corev1.Pod, error) {
	deleting := map[string]bool{}
	protos := s.cfg.memo.nodeProtos(s.cfg.nodes, s.schema, s.dims, s.cfg.prepared)
	slab := make([]existingNode, len(s.cfg.nodes)) // one allocation for the nodes
	initialised := 0                               // the first nodes of s.existing (initialisedFirst)
	for i, e := range initialisedFirst(s.cfg.nodes, protos, s.cfg.existingRank) {
		n := e.n
		if n.DeletionTimestamp != nil {
			deleting[n.Name] = true
			continue
		}
		en := s.newExistingNode(&slab[i], n, e.proto)
		s.existing = append(s.existing, en)
		if e.proto.initialized {
			initialised++
		}
	}
	byName := existingByName(s.existing, initialised, s.cfg.existingRank != nil)
	eps := make([]topology.ExistingPod, 0, len(s.cfg.boundPods))
	var resched []*corev1.Pod
	dsRunning := map[string]map[string]bool{} // node → DaemonSet ns/name
	vecs := s.cfg.memo.podVectors(s.cfg.boundPods, s.dims)
	for i, bp := range s.cfg.boundPods {
		if kube.IsGone(bp) {
			continue
		}
		if deleting[bp.Spec.NodeName] {
			// A pod of a node being deleted needs a new home, unless its
			// DaemonSet goes with the node.
			if len(kube.DaemonSetOwners(bp)) == 0 {
				p := bp.DeepCopy()
				p.Spec.NodeName = ""
				resched = append(resched, p)
			}
			continue
		}
		if en := byName(bp.Spec.NodeName); en != nil {
			eps = append(eps, s.holdBoundPod(en, bp, vecs[i], dsRunning))
		}
	}
	s.expectDaemonSets(dsRunning)
	return eps, resched, nil
}

// existingByName returns a lookup of the nodes by name: nodes are in
// initialisedFirst's order (the first initialised ones, then the others,
// each part by name unless ranked), so a binary search in each part finds
// a node, and the bound pods of one node, which come together, find it at
// once. Ranked nodes are looked up in a copy sorted by name.
func existingByName(nodes []*existingNode, initialised int, ranked bool) func(string) *existingNode {
	if ranked {
		sorted := slices.Clone(nodes)
		slices.SortFunc(sorted, func(a, b *existingNode) int { return strings.Compare(a.name, b.name) })
		nodes, initialised = sorted, len(sorted)
	}
	var last *existingNode
	cmpName := func(en *existingNode, name string) int { return strings.Compare(en.name, name) }
	return func(name string) *existingNode {
		if last != nil && last.name == name {
			return last
		}
		for _, part := range [2][]*existingNode{nodes[:initialised], nodes[initialised:]} {
			if i, ok := slices.BinarySearchFunc(part, name, cmpName); ok {
				last = part[i]
				return last
			}
		}
		return nil
	}
}

// protoNode is a node with its proto (memo_existing.go).
type protoNode struct {
	n     *corev1.Node
	proto *nodeProto
	rank  float64 // WithExistingNodeRank's (0 without)
}

// initialisedFirst returns the nodes with their protos, initialised ones
// first (nodepool.IsInitialized), each part by name, or by rank then name
// when rank is given (WithExistingNodeRank).
func initialisedFirst(nodes []*corev1.Node, protos []*nodeProto, rank func(*corev1.Node) float64) []protoNode {
	es := make([]protoNode, len(nodes))
	for i, n := range nodes {
		es[i] = protoNode{n: n, proto: protos[i]}
		if rank != nil {
			es[i].rank = rank(n)
		}
	}
	order := func(a, b protoNode) int {
		if a.proto.initialized != b.proto.initialized {
			if a.proto.initialized {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.n.Name, b.n.Name))
	}
	// Callers that solve again and again mostly pass nodes in this
	// order already: a check is cheaper than a sort.
	if !slices.IsSortedFunc(es, order) {
		slices.SortStableFunc(es, order)
	}
	return es
}

// newExistingNode prepares, in en, one existing node that is not being
// deleted: its NodePool and its allocatable (capacity when none is
// reported), from its proto, and what the plans share (nodeBase: its
// labels and effective taints as nodepool reads them), the proto's when
// the node is initialised.
func (s *solver) newExistingNode(en *existingNode, n *corev1.Node, proto *nodeProto) *existingNode {
	var startup []corev1.Taint
	*en = existingNode{nodeBase: proto.base, free: proto.alloc}
	for _, p := range s.pools {
		if p.tmpl.Name == proto.poolName {
			en.pool, startup = p, p.tmpl.StartupTaints
		}
	}
	if en.nodeBase != nil {
		return en
	}
	// Topology counts the node with the taints that keep pods off it, as
	// placement does (startup and ephemeral taints of a node still
	// initialising are not among them; see effectiveTaints).
	en.nodeBase = newNodeBase(n, proto, effectiveTaints(n, startup))
	en.nodeBase.topo.Late = !nodepool.BindsNow(n, startup)
	return en
}

// newNodeBase is what the plans share of a node with proto whose
// effective taints are taints; a node still initialising binds its pods
// late until the caller, which knows its startup taints, says otherwise.
func newNodeBase(n *corev1.Node, proto *nodeProto, taints []corev1.Taint) *nodeBase {
	f := proto.facts
	return &nodeBase{name: n.Name, node: n, labels: f.labels, reqs: f.reqs, reqLabels: f.reqLabels, values: f.values, proto: proto,
		cordoned: n.Spec.Unschedulable, taints: taints, topo: &topology.Node{Name: n.Name, Labels: f.labels, Taints: taints, Late: !proto.initialized}}
}

// holdBoundPod takes a bound pod's requests and host ports off its node,
// notes which DaemonSets already run there, and returns the pod as
// topology sees it.
func (s *solver) holdBoundPod(en *existingNode, bp *corev1.Pod, v *binpack.Vec, dsRunning map[string]map[string]bool) topology.ExistingPod {
	en.free = en.free.Sub(*v)
	en.ports = append(en.ports, podHostPorts(&bp.Spec)...)
	for _, name := range kube.DaemonSetOwners(bp) {
		if dsRunning[en.name] == nil {
			dsRunning[en.name] = map[string]bool{}
		}
		dsRunning[en.name][kube.Key(bp.Namespace, name)] = true
	}
	ep := topology.ExistingPod{Namespace: kube.Namespace(bp.Namespace), Labels: bp.Labels, Node: en.topo}
	if a := bp.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		ep.AntiAffinity = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return ep
}

// expectDaemonSets takes off every existing node the requests and host
// ports of the DaemonSets that run there (nodepool.DaemonSet.RunsOn, on
// the node's effective taints: a startup taint delays the pod, it does not
// keep it away) but have no pod there yet.
func (s *solver) expectDaemonSets(dsRunning map[string]map[string]bool) {
	keys := make([]string, len(s.daemonSets))
	for i, ds := range s.daemonSets {
		keys[i] = kube.Key(ds.Namespace(), ds.Name())
	}
	for _, en := range s.existing {
		running := dsRunning[en.name]
		runs := s.daemonRuns(en)
		for i, ds := range s.daemonSets {
			if running[keys[i]] {
				continue
			}
			var on bool
			if runs != nil {
				on = runs[i]
			} else {
				on = ds.RunsOn(en.labels, en.taints)
			}
			if on {
				en.free = en.free.Sub(s.dsVecs[i])
				en.ports = append(en.ports, ds.HostPorts()...)
			}
		}
	}
}
