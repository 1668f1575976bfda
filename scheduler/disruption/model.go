package disruption

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/topology"
)

// model is the cluster as the plan goes: commands are applied to it one by
// one. Nodes and pods are sorted by name, so every walk is deterministic.
type model struct {
	cfg        config
	now        time.Time
	catalog    instancetypes.Catalog
	nodePools  []nodepool.NodePool // the input, for Solve
	pools      []*poolState        // by name
	poolByName map[string]*poolState
	cluster    Cluster // DaemonSets, volumes and namespaces, for Solve
	pdbs       []*pdb
	// vols indexes the cluster's volumes for packable (volumeAlts).
	vols *topology.Volumes
	// daemonSets are the cluster's DaemonSets as templates count them.
	daemonSets []nodepool.DaemonSet
	// fillMixes are the NodePools' pod mixes fillRank weighs room by.
	fillMixes map[string]podMix

	nodes   []*node
	byName  map[string]*node
	pending []*pod
	// gone are the nodes commands removed, with the pods they had.
	gone []*node
	// names holds every node name ever used, so replacements get new ones.
	names map[string]bool
	// version changes whenever a command is applied.
	version int
	// consCands are the consolidation candidates of the version
	// (consolidationCandidates).
	consCands consCands
	stats     Stats
	cache     failCache
	// anti are the cluster's required anti-affinity terms, grouped, as of
	// antiVersion-1.
	anti        []*antiGroup
	antiVersion int
	// viewDS and keys serve the simulation's reduced input (view.go).
	viewDS []*appsv1.DaemonSet
	keys   map[string]bool
	sigs   map[string]int // ghost signatures by number (signature)
	ladder *priceLadder
	// prepared is the catalog indexed for Solve, once (catalogs.go).
	prepared      *scheduler.PreparedCatalog
	prepareFailed bool
	// memo is what Solve derives from the node and pod objects the
	// simulations share (see solveMemo).
	memo *scheduler.Memo
	// baselines are the pools' pending pods' cost (global.go).
	baselines map[string]baseline
	// compiled are the pod selectors the cache matches, by key.
	compiled   map[string]compiled
	compiledBy map[compileKey]string // see compile
	// sels keeps the nodes each selector picks pods on (selindex.go).
	sels selState
	// mu guards what simulations build lazily when they run in parallel
	// (see simulate and parallel.go).
	mu sync.Mutex
	// resNames, resIndex and room serve the checks before a
	// simulation (prefilter.go); admitMemo says whether a node admits
	// pods of a class.
	resNames  []corev1.ResourceName
	resIndex  map[corev1.ResourceName]int
	room      *roomState
	admitMemo map[string]map[*node]bool
	preCache  map[string]preEntry
	useMemo   map[string]bool
	poolFit   map[string][]typeFit
	zonesOf   map[string][]string  // see poolZones
	zoneCount zoneCountState       // see zoneCounts
	units     map[string][]float64 // see unitPrices
	backOffs  map[string]*backOff  // the global search's (global.go)
	// added counts the commands that added nodes (prefilter.go).
	added int
	// cands remembers newCandidate's answers at model version
	// candsVersion.
	cands        map[candKey]candResult
	candsVersion int
}

// node is one node of the model.
type node struct {
	name  string
	obj   *corev1.Node
	claim *NodeClaim // nil: unmanaged (no NodeClaim, no NodePool label)
	// claimMade: the NodeClaim was made from the node's labels.
	claimMade bool
	// claimUninitialized: the input NodeClaim's Initialized condition is
	// there and not True (D-250: never Consolidatable then).
	claimUninitialized bool
	poolName           string
	pool               *poolState // nil when the label is missing or names no pool

	it       *instancetypes.InstanceType
	zone, ct string
	// labels are the node's labels as requirements read them, once made
	// (labelsOf).
	labels      map[string]string
	price       float64
	priceKnown  bool // type, zone and capacity type known and an offering found
	managed     bool
	initialized bool
	deleting    bool // being deleted (node or NodeClaim), or InstanceTerminating
	terminated  bool // NodeClaim InstanceTerminating: not counted by budgets
	ready       bool
	created     time.Time
	// lastEvent is when consolidateAfter starts counting: the NodeClaim's
	// lastPodEventTime, else its initialization, else its creation.
	lastEvent time.Time

	pods []*pod
	// createdBy and touchedBy are the 1-based commands that launched the
	// node and last moved pods onto it (0: none).
	createdBy, touchedBy int
	disruptedBy          int
	podsAtRemoval        int
	drift                *driftState
	// fillRank is the node's price per unit of useful room, once
	// fillRanked (fillorder.go).
	fillRank   float64
	fillRanked bool
	// gatedObj is obj with the consolidateAfter gate taint (see gated);
	// view the node as views show it (see viewNode). bind drops both when
	// the node's pods change.
	gatedObj *corev1.Node
	view     *viewNode
	// sel holds the pods each selector picks, by compiled key (see
	// nodeSel); bind drops it too.
	sel map[string][]*pod
	// relMark is relevant's mark (selindex.go), relPods the node's pods
	// relevant picked at that mark.
	relMark int
	relPods []*pod
	// roomAt is the node's index in the nodes of the roomState of
	// version roomVersion-1 (rooms; 0: none).
	roomAt, roomVersion int
}

// newModel checks the input and builds the model.
func newModel(c Cluster, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, now time.Time, cfg config) (*model, error) {
	c.DaemonSets = scheduler.LiveDaemonSets(c.DaemonSets, c.Pods) // charged as their live pods ask, as Solve does (B-151)
	m := &model{cfg: cfg, now: now, catalog: catalog, nodePools: nodePools, cluster: c,
		poolByName: map[string]*poolState{}, byName: map[string]*node{}, names: map[string]bool{}}
	var errs []error
	errs = append(errs, m.addPools(nodePools)...)
	errs = append(errs, m.addNodes(c.Nodes, c.NodeClaims)...)
	pods, perr := m.addPods(c.Pods)
	errs = append(errs, perr...)
	var pdbErrs []error
	m.pdbs, pdbErrs = newPDBs(c.PodDisruptionBudgets, pods)
	errs = append(errs, pdbErrs...)
	for _, ds := range c.DaemonSets {
		d, err := nodepool.NewDaemonSet(ds, catalog.Schema())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m.daemonSets = append(m.daemonSets, d)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, n := range m.nodes {
		n.drift = m.detectDrift(n)
	}
	return m, nil
}

func (m *model) addPools(nodePools []nodepool.NodePool) []error {
	var errs []error
	for _, np := range nodePools {
		if _, dup := m.poolByName[np.Name]; dup {
			errs = append(errs, &InputError{Kind: "NodePool", Name: np.Name, Message: "is given twice"})
			continue
		}
		p, err := newPoolState(np, m.catalog)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m.poolByName[np.Name] = p
		m.pools = append(m.pools, p)
	}
	slices.SortFunc(m.pools, func(a, b *poolState) int { return strings.Compare(a.name, b.name) })
	return errs
}

func (m *model) addNodes(nodes []*corev1.Node, claims []NodeClaim) []error {
	var errs []error
	for i, n := range nodes {
		if n == nil {
			errs = append(errs, &InputError{Kind: "Node", Message: fmt.Sprintf("nodes[%d] is nil", i)})
			continue
		}
		if m.byName[n.Name] != nil {
			errs = append(errs, &InputError{Kind: "Node", Name: n.Name, Message: "is given twice"})
			continue
		}
		nd := &node{name: n.Name, obj: n}
		m.byName[n.Name] = nd
		m.nodes = append(m.nodes, nd)
		m.names[n.Name] = true
	}
	slices.SortFunc(m.nodes, func(a, b *node) int { return strings.Compare(a.name, b.name) })
	errs = append(errs, m.matchClaims(claims)...)
	for _, nd := range m.nodes {
		if err := m.describe(nd); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// matchClaims pairs each NodeClaim with its Node: by provider ID, else by
// status.nodeName, else by name. A NodeClaim without a Node is capacity in
// flight; the plan leaves it alone.
func (m *model) matchClaims(claims []NodeClaim) []error {
	var errs []error
	byProvider := map[string]*node{}
	for _, nd := range m.nodes {
		if id := nd.obj.Spec.ProviderID; id != "" {
			byProvider[id] = nd
		}
	}
	seen := map[string]bool{}
	sorted := slices.Clone(claims)
	slices.SortFunc(sorted, func(a, b NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	for i := range sorted {
		nc := &sorted[i]
		if seen[nc.Name] {
			errs = append(errs, &InputError{Kind: "NodeClaim", Name: nc.Name, Message: "is given twice"})
			continue
		}
		seen[nc.Name] = true
		nd := byProvider[nc.Status.ProviderID]
		if nd == nil || nc.Status.ProviderID == "" {
			nd = m.byName[cmp.Or(nc.Status.NodeName, nc.Name)]
		}
		if nd == nil {
			continue
		}
		if nd.claim != nil {
			errs = append(errs, &InputError{Kind: "NodeClaim", Name: nc.Name, Field: "status.nodeName",
				Message: fmt.Sprintf("node %s already has NodeClaim %s", nd.name, nd.claim.Name)})
			continue
		}
		nd.claim = nc
	}
	return errs
}

// describe derives a node's facts; a managed node whose instance type the
// catalog does not know is an error (its price and size would be guesses).
func (m *model) describe(nd *node) error {
	n := nd.obj
	nd.poolName = n.Labels[requirements.LabelNodePool]
	nd.pool = m.poolByName[nd.poolName]
	if nd.claim == nil && nd.poolName != "" {
		nd.claim, nd.claimMade = madeClaim(n), true
	}
	nd.managed = nd.claim != nil
	nd.zone, nd.ct = n.Labels[requirements.LabelTopologyZone], n.Labels[requirements.LabelCapacityType]
	nd.initialized = !nd.managed || n.Labels[requirements.LabelNodeInitialized] == "true"
	nd.created = n.CreationTimestamp.Time
	if nd.managed {
		nd.terminated = nd.claim.isTrue(ConditionInstanceTerminating)
		nd.deleting = nd.claim.DeletionTimestamp != nil || nd.terminated || n.DeletionTimestamp != nil
		if c := nd.claim.condition(ConditionInitialized); !nd.claimMade && c != nil && c.Status != metav1.ConditionTrue {
			nd.claimUninitialized = true
		}
		if !nd.claim.CreationTimestamp.IsZero() {
			nd.created = nd.claim.CreationTimestamp.Time
		}
	} else {
		nd.deleting = n.DeletionTimestamp != nil
	}
	nd.ready = nodeReady(n)
	nd.lastEvent = lastPodEvent(nd)
	if name, ok := n.Labels[requirements.LabelInstanceType]; ok {
		it, known := m.catalog.Get(name)
		if !known && nd.managed {
			return &InputError{Kind: "Node", Name: nd.name, Field: "metadata.labels[" + requirements.LabelInstanceType + "]",
				Message: fmt.Sprintf("instance type %q is not in the catalog", name)}
		}
		nd.it = it
	}
	nd.price, nd.priceKnown = offeringPrice(nd)
	if nd.it != nil {
		nd.obj = completed(n, nd.it)
	}
	return nil
}

// completed returns the node with what a dump may leave out filled in from
// its instance type: the type's labels the node lacks (every node of the
// type carries them) and, when the status has neither, its capacity and
// allocatable. The input is not modified; a node needing nothing is
// returned as it is.
func completed(n *corev1.Node, it *instancetypes.InstanceType) *corev1.Node {
	missing := len(n.Status.Capacity) == 0 && len(n.Status.Allocatable) == 0
	for k := range it.Labels {
		if _, ok := n.Labels[k]; !ok {
			missing = true
			break
		}
	}
	if !missing {
		return n
	}
	c := n.DeepCopy()
	for k, v := range it.Labels {
		if _, ok := c.Labels[k]; !ok {
			c.Labels[k] = v
		}
	}
	if len(c.Status.Capacity) == 0 && len(c.Status.Allocatable) == 0 {
		c.Status.Capacity, c.Status.Allocatable = it.Capacity.DeepCopy(), it.Allocatable().DeepCopy()
	}
	return c
}

// madeClaim is the NodeClaim of a managed Node given without one:
// initialized, created with the node, no pod event.
func madeClaim(n *corev1.Node) *NodeClaim {
	nc := &NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: n.CreationTimestamp,
		Annotations: n.Annotations}}
	nc.Status.NodeName = n.Name
	nc.Status.Conditions = []metav1.Condition{{Type: ConditionInitialized, Status: metav1.ConditionTrue,
		LastTransitionTime: n.CreationTimestamp}}
	return nc
}

// nodeReady: the Ready condition is True, or the node has none (hand-written
// input); Karpenter counts a node whose Ready is False or Unknown as
// disrupting.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}

func lastPodEvent(nd *node) time.Time {
	if nd.claim == nil {
		return nd.created
	}
	if t := nd.claim.Status.LastPodEventTime; !t.IsZero() {
		return t.Time
	}
	if c := nd.claim.condition(ConditionInitialized); c != nil && c.Status == metav1.ConditionTrue && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	return nd.created
}

// offeringPrice is the price of the first offering of the node's type in
// its zone and capacity type (and reservation, when labelled), available or
// not: a running node keeps costing what it cost.
func offeringPrice(nd *node) (float64, bool) {
	if nd.it == nil || nd.zone == "" || nd.ct == "" {
		return 0, false
	}
	res := nd.obj.Labels[instancetypes.LabelReservationID]
	for _, o := range nd.it.Offerings {
		if o.Zone == nd.zone && o.CapacityType == nd.ct && (res == "" || o.ReservationID == res) {
			if o.Price != o.Price { // NaN
				return 0, false
			}
			return o.Price, true
		}
	}
	return 0, false
}

// addPods indexes the pods: bound ones on their nodes (pods of nodes not
// in the input are ignored), pending ones aside; terminal pods are gone.
func (m *model) addPods(in []*corev1.Pod) ([]*pod, []error) {
	var errs []error
	var all []*pod
	seen := map[string]bool{}
	for i, p := range in {
		if p == nil {
			errs = append(errs, &InputError{Kind: "Pod", Message: fmt.Sprintf("pods[%d] is nil", i)})
			continue
		}
		x := newPod(p)
		if seen[x.key] {
			errs = append(errs, &InputError{Kind: "Pod", Namespace: x.ns, Name: p.Name, Message: "is given twice"})
			continue
		}
		seen[x.key] = true
		all = append(all, x)
		m.place(x)
	}
	for _, nd := range m.nodes {
		slices.SortFunc(nd.pods, comparePods)
	}
	slices.SortFunc(m.pending, comparePods)
	return all, errs
}

// place puts a pod of the input where it belongs.
func (m *model) place(x *pod) {
	switch {
	case x.terminal:
	case x.node != "":
		if nd := m.byName[x.node]; nd != nil {
			nd.pods = append(nd.pods, x)
		}
	case !x.daemon && !x.mirror && !x.terminating:
		m.pending = append(m.pending, x)
	}
}

func comparePods(a, b *pod) int { return strings.Compare(a.key, b.key) }

// totalPrice sums the price of the model's nodes, in name order.
func (m *model) totalPrice() float64 {
	sum := 0.0
	for _, n := range m.nodes {
		sum += n.price
	}
	return sum
}
