package topology

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
)

// Kind is the kind of a topology group.
type Kind uint8

// The kinds of topology group.
const (
	Spread Kind = iota
	Affinity
	AntiAffinity
)

func (k Kind) String() string {
	switch k {
	case Spread:
		return "topology spread"
	case Affinity:
		return "pod affinity"
	default:
		return "pod anti-affinity"
	}
}

// Source is a place domains come from: a NodePool (its requirements, taints
// and the values its instance types offer) or an existing node (its labels).
type Source struct {
	Name         string
	Requirements requirements.Requirements
	Taints       []corev1.Taint
	// Values returns the domain values the source offers for a key to a
	// node that must also satisfy reqs (nil when it offers none): a pool
	// that offers spot only in two zones offers a spot-only pod those two.
	Values func(key string, reqs requirements.Requirements) []string
	// KeyValues, under SoftSpreadPoolDomains, returns the values Karpenter
	// counts as a soft spread's domains for a key: those the source's
	// instance types offer on that key alone, whatever its requirements on
	// the other offering keys (a spot-only pool whose types are offered on
	// demand in a zone gives that zone). Nil: Values.
	KeyValues func(key string, reqs requirements.Requirements) []string
	// Existing marks an existing node: its requirements are its labels and
	// are matched strictly; its Values do not depend on reqs (the tracker
	// asks once per key).
	Existing bool
	// Labels, for an existing node, is Requirements.Labels() when the
	// caller has it at hand (nil: the tracker computes it once). Read
	// only.
	Labels map[string]string
}

// Node is an existing node as topology sees it.
type Node struct {
	Name   string
	Labels map[string]string
	Taints []corev1.Taint
	// Late marks a node whose pods bind only once it is ready: the node a
	// NodeClaim launches as, or an existing node still initialising that
	// kube-scheduler cannot bind to yet (a startup or ephemeral taint, or
	// not Ready: nodepool.BindsNow) (two-phase binding, early.go).
	Late bool
}

// Hostname returns the node's hostname domain (its hostname label, else its name).
func (n Node) Hostname() string {
	if h, ok := n.Labels[requirements.LabelHostname]; ok && h != "" {
		return h
	}
	return n.Name
}

// ExistingPod is a pod already bound to an existing node.
type ExistingPod struct {
	Namespace string
	Labels    map[string]string
	Node      *Node
	// AntiAffinity holds the pod's required anti-affinity terms: they keep
	// matching pods out of the pod's domains (the inverse rule).
	AntiAffinity []corev1.PodAffinityTerm
}

// PodSpec describes a pending pod (or a class of identical pods) to Register.
type PodSpec struct {
	Namespace   string
	Labels      map[string]string
	Tolerations []corev1.Toleration
	// Requirements are the pod's strict node requirements, one entry per
	// required node-affinity term (nodeSelector included in each); empty
	// when the pod has none. They feed nodeAffinityPolicy: Honor.
	Requirements []requirements.Requirements
	Spread       []corev1.TopologySpreadConstraint
	Affinity     *corev1.Affinity
	// Count is how many pods the spec stands for (a class of identical
	// pods); 0 when not known, taken as more than one.
	Count int
}

// Tracker holds the groups and counts of one solve. It is not safe for
// concurrent use.
type Tracker struct {
	schema  requirements.Schema
	sources []Source
	labels  []map[string]string // sourceLabels' (by source)
	// existingValues are the existing sources' Values, by key and source
	// (sourceValues).
	existingValues map[string][][]string
	defaultSchema  *requirements.Schema // made once (group)
	matches        *Matches             // see NewSharing
	namespaces     map[string]map[string]string
	existing       []ExistingPod
	keys           map[string]*keyState
	groups         []*group
	groupIdx       map[string]*group
	scratch        []int32
	before         []int32
	initial        []int32 // filterTerms' candidates on entry (Pod.affinityAfter)
	replay         []int32 // ruledOut's candidates
	viol           Violation
	// looseGroups are the groups markLoose marked, in creation order
	// (anti-affinity ones only under leaveOpen: LeaveSoftTargetsOpen).
	looseGroups []*group
	leaveOpen   bool
	// openRelaxed: see OpenRelaxed.
	openRelaxed bool
	// staleLoose keeps each pod's loose counts where they were made
	// (KeepLooseCounts).
	staleLoose bool
	// inverseOpen and anyInverseOnly: inverse.go.
	inverseOpen    bool
	anyInverseOnly bool
	// domains sums a hash of (group, domain) over every recorded count
	// and owner outside hostname domains (DomainSum).
	domains uint64
	// balanceAhead: see BalanceAhead.
	balanceAhead bool
	// enterCheaper: see EnterFilterWhenCheaper; enterSeen: see
	// EnterWasCheaper.
	enterCheaper, enterSeen bool
	// poolDomains: see SoftSpreadPoolDomains; pickRequired: see
	// PickRequiredDomains; softFiltersOpen: see LeaveSoftFiltersOpen.
	poolDomains, pickRequired, softFiltersOpen bool
	// softAlt: see SoftDomainsFrom; softScratch holds the domains a soft
	// spread's minimum runs over under it.
	softAlt     *requirements.Requirements
	softScratch []int32
	// eligibleMemo holds, per eligibleKey, the domains the existing
	// sources give (eligible).
	eligibleMemo map[string][]int32
	// closing is what CloseDomainsFrom keeps of the nodes no plan changes.
	closing *closing
	// earlyRecs counts, per pod class and existing node, the placements
	// recorded as binding in the first phase (early.go).
	earlyRecs map[earlyRec]int32
	// existingFirst: see ExistingNodesFirst; earlyMattered: see
	// EarlyMattered.
	existingFirst, earlyMattered bool
}

// BalanceAhead makes the tracker, when it pins a host to a domain, break a
// tie in price by the counts of the spreads that count the pod but have no
// carrier placed yet (by default only the value breaks it): a pod queued
// before the carriers is then not stacked in the first domain of equal
// price, which would leave them no room beside it. The plan that packs as
// Karpenter does asks for it: Karpenter leaves such a NodeClaim's domain
// open, so the carriers can join it in any domain.
func (t *Tracker) BalanceAhead() { t.balanceAhead = true }

// EnterFilterWhenCheaper makes a check keep a NodeClaim out of the node
// filter of a spread that merely counts its pod only where that costs no
// more than entering the filter (by the check's ranker): kube-scheduler
// lets such a pod land anywhere, counted where it lands, and the types
// left out of the filter may all be far larger than the pod. By default
// the claim is kept out wherever it can be, which leaves the spread's own
// pods their balance; a plan made with this is one to compare.
func (t *Tracker) EnterFilterWhenCheaper() { t.enterCheaper = true }

// EnterWasCheaper reports whether a check found a NodeClaim that entering
// such a filter would have made cheaper than keeping it out (whether or not
// EnterFilterWhenCheaper let it enter).
func (t *Tracker) EnterWasCheaper() bool { return t.enterSeen }

// DomainSum changes whenever a pod is counted in, or left out of, a
// domain other than a hostname, or a key other than hostname gets a new
// domain: it sums a hash of (group, domain, count or owner) over every
// count, and a constant per domain, so a move that takes a pod out of a
// zone and back into it, or from one host to another of the same zones,
// leaves it as it was. A caller keys what it learnt about placements on it
// (a search that found no room stays fruitless while the zones count the
// same pods).
func (t *Tracker) DomainSum() uint64 { return t.domains }

// domainHash mixes a group's index, a domain and whether it counts an
// owner (splitmix64's finaliser).
func domainHash(g *group, d int32, owner bool) uint64 {
	x := uint64(g.seq)<<33 ^ uint64(uint32(d))<<1
	if owner {
		x |= 1
	}
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// tally adds (or takes away) one count of g in d to DomainSum, unless d is
// a hostname.
func (t *Tracker) tally(g *group, d int32, owner, add bool) {
	if g.ks.key == requirements.LabelHostname {
		return
	}
	if h := domainHash(g, d, owner); add {
		t.domains += h
	} else {
		t.domains -= h
	}
}

type keyState struct {
	key    string
	values []string
	idx    map[string]int32
	// sum is the tracker's DomainSum, which a new value of a key other
	// than hostname changes (the domains a check may choose among grow).
	sum *uint64
	// anyValue, once anyValueSet, is anyValueDomains' answer for a key
	// spread groups count on.
	anyValue    []int32
	anyValueSet bool
}

func (k *keyState) intern(v string) int32 {
	if i, ok := k.idx[v]; ok {
		return i
	}
	i := int32(len(k.values))
	k.idx[v] = i
	k.values = append(k.values, v)
	if k.key != requirements.LabelHostname {
		*k.sum += 0x9e3779b97f4a7c15 // an odd constant: the sum never comes back
	}
	return i
}

// New builds a tracker. namespaces maps a namespace name to its labels (for
// namespaceSelectors); existing lists the pods already bound to nodes.
func New(schema requirements.Schema, sources []Source, namespaces map[string]map[string]string, existing []ExistingPod) *Tracker {
	return NewSharing(schema, sources, namespaces, existing, nil)
}

// NewSharing is New for trackers that share the same namespaces and
// existing pods (the same slice): matches, when not nil, remembers which
// existing pods each selector picks, for all of them.
func NewSharing(schema requirements.Schema, sources []Source, namespaces map[string]map[string]string, existing []ExistingPod, matches *Matches) *Tracker {
	t := &Tracker{
		schema: schema, sources: sources, namespaces: namespaces, existing: existing,
		keys: map[string]*keyState{}, groupIdx: map[string]*group{}, matches: matches,
	}
	// Inverse anti-affinity of existing pods.
	for i := range existing {
		ep := &existing[i]
		for _, term := range ep.AntiAffinity {
			g, err := t.group(AntiAffinity, term, ep.Namespace, nil, termOpts{})
			if err != nil {
				continue
			}
			g.required = true
			if d, ok := t.nodeDomain(g.ks, ep.Node); ok {
				g.addOwner(d)
				t.tally(g, d, true, true)
			}
		}
	}
	return t
}

// Values returns the domains of key seen so far (on existing nodes, in the
// values NodePools offer, on placed claims), sorted; nil when no group
// counts on key.
func (t *Tracker) Values(key string) []string {
	ks, ok := t.keys[key]
	if !ok {
		return nil
	}
	return slices.Sorted(slices.Values(ks.values))
}

// FilterKeys returns the keys the node filters of spread groups read
// (nodeAffinityPolicy Honor), sorted: a NodeClaim's values on them decide
// whether its pods are counted.
func (t *Tracker) FilterKeys() []string {
	set := map[string]bool{}
	for _, g := range t.groups {
		for _, r := range g.filterReqs {
			for _, k := range r.Keys() {
				set[k] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// CountsOn reports whether some group counts on key.
func (t *Tracker) CountsOn(key string) bool {
	_, ok := t.keys[key]
	return ok
}

// Keys returns the topology keys some group counts on, sorted.
func (t *Tracker) Keys() []string {
	return slices.Sorted(maps.Keys(t.keys))
}

func (t *Tracker) key(k string) *keyState {
	ks, ok := t.keys[k]
	if !ok {
		ks = &keyState{key: k, idx: map[string]int32{}, sum: &t.domains}
		t.keys[k] = ks
	}
	return ks
}

// nodeDomain returns the node's domain on ks, when it has the key.
func (t *Tracker) nodeDomain(ks *keyState, n *Node) (int32, bool) {
	if ks.key == requirements.LabelHostname {
		return ks.intern(n.Hostname()), true
	}
	v, ok := n.Labels[ks.key]
	if !ok {
		return 0, false
	}
	return ks.intern(v), true
}

// group is one topology group: a kind, a key, a selector over pods in some
// namespaces, and per-domain counts of matching pods and of owners.
type group struct {
	id       string
	seq      int // index in Tracker.groups
	kind     Kind
	ks       *keyState
	selector labels.Selector
	selDesc  string
	ns       nsMatcher
	maxSkew  int32
	minDoms  int32
	// filter: nodes a spread group counts (nodeAffinityPolicy /
	// nodeTaintsPolicy Honor); nil / false when the policy is Ignore.
	filterReqs  []requirements.Requirements
	honorTaints bool
	tolerations []corev1.Toleration
	// needKeys are the keys, other than its own, a node must have a label
	// for to be counted (the owner's other spread keys: otherSpreadKeys).
	needKeys []string
	// eligible domains for min (spread, non-hostname), from the first
	// owner; earlyEligible, those of the existing nodes (early.go).
	eligible      []int32
	earlyEligible []int32
	eligibleSet   bool
	// closed, when isClosed, holds the domains of the plan's nodes that
	// pass the filter (CloseDomains): the global minimum runs over them.
	closed   []int32
	isClosed bool
	// fixedClosed are the closed domains of the tracker's fixed nodes
	// (CloseDomainsFrom), made at the closing's version fixedVer.
	fixedClosed []int32
	fixedVer    uint64

	count       []int32
	owners      []int32
	nonzero     int
	ownersTotal int
	// late and lateOwners split count and owners for two-phase binding
	// (early.go, kept only under ExistingNodesFirst): the counted pods
	// placed on NodeClaims, and the owners that bind after the existing
	// nodes' pods.
	late       []int32
	lateOwners []int32
	// ver changes with every count and with CloseDomains; minMemo holds
	// minOver's last answer for a domain list at a version.
	ver     uint64
	minMemo minMemo

	// required is set when a required term owns the group; loose marks an
	// anti-affinity group only preferred terms own, and entries holds what
	// it counts of each NodeClaim (loose.go).
	required bool
	loose    bool
	entries  map[string]*looseEntry
	// inverseOnly marks, under LeaveInverseOpen, a required anti-affinity
	// group that only existing pods own and pending pods are counted by
	// (inverse.go).
	inverseOnly bool
}

func (g *group) grow(d int32) {
	for int(d) >= len(g.count) {
		g.count = append(g.count, 0)
		g.owners = append(g.owners, 0)
	}
}

func (g *group) get(d int32) int32 {
	if int(d) < len(g.count) {
		return g.count[d]
	}
	return 0
}

func (g *group) ownersIn(d int32) int32 {
	if int(d) < len(g.owners) {
		return g.owners[d]
	}
	return 0
}

func (g *group) add(d int32) {
	g.grow(d)
	if g.count[d] == 0 {
		g.nonzero++
	}
	g.count[d]++
	g.countChanged(d, g.count[d]-1, g.count[d])
}

func (g *group) addOwner(d int32) {
	g.grow(d)
	g.owners[d]++
	g.ownersTotal++
}

type nsMatcher struct {
	all      bool
	names    []string
	selector labels.Selector
}

func (m nsMatcher) matches(ns string, nsLabels map[string]map[string]string) bool {
	if m.all {
		return true
	}
	if slices.Contains(m.names, ns) {
		return true
	}
	if m.selector != nil && m.selector.Matches(labels.Set(nsLabels[ns])) {
		return true
	}
	return false
}

func (m nsMatcher) String() string {
	if m.all {
		return "*"
	}
	s := strings.Join(m.names, ",")
	if m.selector != nil {
		s += "|" + m.selector.String()
	}
	return s
}

// Matches remembers, for trackers over the same existing pods and
// namespaces (NewSharing), which existing pods a group's namespaces and
// selector pick. Safe for concurrent use.
type Matches struct {
	mu sync.Mutex
	m  map[string][]int32
	// selectors, when not nil, parses the trackers' label selectors.
	selectors *Selectors
	// index is the existing pods by label, made once scans selectors
	// were checked against all of them (matchindex.go).
	index labelIndex
	scans int
}

// NewMatches returns an empty Matches.
func NewMatches() *Matches { return &Matches{m: map[string][]int32{}} }

// NewMatchesWith returns an empty Matches whose trackers parse label
// selectors through sel (nil: each tracker parses its own).
func NewMatchesWith(sel *Selectors) *Matches {
	return &Matches{m: map[string][]int32{}, selectors: sel}
}

// Selectors remembers label selectors as parsed, by the address of the
// selector object, for trackers that read the same pod objects again and
// again (a solve's plans, a caller's solves over mostly the same pods). The
// caller promises never to modify a selector object once a tracker has read
// it. Safe for concurrent use.
type Selectors struct {
	mu sync.Mutex
	m  map[*metav1.LabelSelector]parsedSelector
}

// NewSelectors returns an empty Selectors.
func NewSelectors() *Selectors {
	return &Selectors{m: map[*metav1.LabelSelector]parsedSelector{}}
}

// Len is the number of selectors s holds.
func (s *Selectors) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// parsedSelector is a label selector parsed, with its String (or the
// error parsing it gave).
type parsedSelector struct {
	sel  labels.Selector
	desc string
	err  error
}

// parse returns ls parsed (selectorOf), from s when s is not nil.
func (s *Selectors) parse(ls *metav1.LabelSelector) parsedSelector {
	if s == nil || ls == nil {
		return newParsedSelector(ls)
	}
	s.mu.Lock()
	p, ok := s.m[ls]
	s.mu.Unlock()
	if ok {
		return p
	}
	p = newParsedSelector(ls)
	s.mu.Lock()
	s.m[ls] = p
	s.mu.Unlock()
	return p
}

func newParsedSelector(ls *metav1.LabelSelector) parsedSelector {
	sel, err := selectorOf(ls)
	if err != nil {
		return parsedSelector{err: err}
	}
	desc := sel.String()
	if ls == nil {
		desc = nothingDesc
	}
	return parsedSelector{sel: sel, desc: desc}
}

// nothingDesc describes the selector of a nil label selector, which selects
// nothing: labels.Nothing() renders as "", as labels.Everything() does, and a
// group keyed by that would count, for a term that selects no pod, every pod
// an empty selector ({}) selects. No selector renders as this text (a label
// key has no spaces).
const nothingDesc = "no labelSelector, selects nothing"

// selected returns the indexes of the existing pods g's namespaces and
// selector pick (shared: read only).
func (t *Tracker) selected(g *group) []int32 {
	var key string
	if t.matches != nil {
		key = g.ns.String() + "\x00" + g.selDesc
		t.matches.mu.Lock()
		out, ok := t.matches.m[key]
		t.matches.mu.Unlock()
		if ok {
			return out
		}
	}
	var out []int32
	pick := func(i int) {
		ep := &t.existing[i]
		if g.ns.matches(ep.Namespace, t.namespaces) && g.selector.Matches(labels.Set(ep.Labels)) {
			out = append(out, int32(i))
		}
	}
	if cands, ok := t.matches.candidatesOf(t.existing, g.selector); ok {
		for _, i := range cands {
			pick(int(i))
		}
	} else {
		for i := range t.existing {
			pick(i)
		}
	}
	if t.matches != nil {
		t.matches.mu.Lock()
		t.matches.m[key] = out
		t.matches.mu.Unlock()
	}
	return out
}

type termOpts struct {
	maxSkew, minDomains int32
	filterReqs          []requirements.Requirements
	honorTaints         bool
	tolerations         []corev1.Toleration
	needKeys            []string
}

// group returns the group for an affinity term or spread constraint,
// creating and counting it on first use.
func (t *Tracker) group(kind Kind, term corev1.PodAffinityTerm, ownerNS string, extraSelector labels.Selector, o termOpts) (*group, error) {
	var cache *Selectors
	if t.matches != nil {
		cache = t.matches.selectors
	}
	parsed := cache.parse(term.LabelSelector)
	if parsed.err != nil {
		return nil, parsed.err
	}
	sel, selDesc := parsed.sel, parsed.desc
	if extraSelector != nil && selDesc != nothingDesc {
		reqs, _ := extraSelector.Requirements()
		sel = sel.Add(reqs...)
		selDesc = sel.String()
	}
	ns, err := termNamespaces(term, ownerNS)
	if err != nil {
		return nil, err
	}
	if t.defaultSchema == nil {
		d := requirements.DefaultSchema()
		t.defaultSchema = &d
	}
	key := t.schema.Normalize(t.defaultSchema.Normalize(term.TopologyKey))
	id := groupID(kind, key, selDesc, ns, o)
	if g, ok := t.groupIdx[id]; ok {
		return g, nil
	}
	g := &group{
		id: id, kind: kind, ks: t.key(key), selector: sel, selDesc: selDesc, ns: ns,
		maxSkew: o.maxSkew, minDoms: o.minDomains, filterReqs: o.filterReqs,
		honorTaints: o.honorTaints, tolerations: o.tolerations, needKeys: o.needKeys, seq: len(t.groups),
	}
	t.groupIdx[g.id] = g
	t.groups = append(t.groups, g)
	t.countExisting(g)
	return g, nil
}

// termNamespaces is the namespaces a term's selector looks in: all of them
// for an empty namespace selector, else the listed ones and those the
// selector picks, else the owner's.
func termNamespaces(term corev1.PodAffinityTerm, ownerNS string) (nsMatcher, error) {
	ns := nsMatcher{}
	if sel := term.NamespaceSelector; sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		ns.all = true
		return ns, nil
	}
	ns.names = slices.Clone(term.Namespaces)
	if term.NamespaceSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
		if err != nil {
			return ns, err
		}
		ns.selector = s
	}
	if len(ns.names) == 0 && ns.selector == nil {
		ns.names = []string{ownerNS}
	}
	slices.Sort(ns.names)
	return ns, nil
}

// groupID is what makes two terms one group:
// kind|key|selector|namespaces|maxSkew|minDomains|honorTaints, then the
// node filter's requirements and, when taints are honoured, the
// tolerations.
func groupID(kind Kind, key, selDesc string, ns nsMatcher, o termOpts) string {
	var id strings.Builder
	for _, part := range []string{strconv.Itoa(int(kind)), key, selDesc, ns.String(), strconv.Itoa(int(o.maxSkew)), strconv.Itoa(int(o.minDomains))} {
		id.WriteString(part)
		id.WriteByte('|')
	}
	id.WriteString(strconv.FormatBool(o.honorTaints))
	for _, r := range o.filterReqs {
		id.WriteString("|" + r.Fingerprint())
	}
	if o.honorTaints {
		for _, tol := range o.tolerations {
			fmt.Fprintf(&id, "|%s/%s/%s/%s", tol.Key, tol.Operator, tol.Value, tol.Effect)
		}
	}
	if len(o.needKeys) > 0 {
		id.WriteString("|keys=" + strings.Join(o.needKeys, ","))
	}
	return id.String()
}

// countExisting counts in a new group the existing pods it selects, on
// the nodes that pass its filter.
func (t *Tracker) countExisting(g *group) {
	// The pods of one node usually come together: the node's filter and
	// domain are read once for them.
	var (
		last   *Node
		d      int32
		counts bool
	)
	for _, i := range t.selected(g) {
		ep := &t.existing[i]
		if ep.Node != last || last == nil {
			last = ep.Node
			counts = g.nodePasses(ep.Node)
			if counts {
				d, counts = t.nodeDomain(g.ks, ep.Node)
			}
		}
		if counts {
			g.add(d)
			t.tally(g, d, false, true)
		}
	}
}

func selectorOf(ls *metav1.LabelSelector) (labels.Selector, error) {
	if ls == nil {
		// A nil selector selects nothing (kube-scheduler).
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(ls)
}

// nodePasses applies a spread group's node filter to an existing node.
func (g *group) nodePasses(n *Node) bool {
	for _, k := range g.needKeys {
		if _, ok := n.Labels[k]; !ok {
			return false
		}
	}
	if len(g.filterReqs) > 0 && !slices.ContainsFunc(g.filterReqs, func(r requirements.Requirements) bool { return r.Matches(n.Labels) }) {
		return false
	}
	if g.honorTaints {
		if _, bad := requirements.UntoleratedTaint(n.Taints, g.tolerations); bad {
			return false
		}
	}
	return true
}

// hostPasses applies the node filter to a candidate host.
func (g *group) hostPasses(h *Host, wk requirements.WellKnown) bool {
	if h.Node != nil {
		return g.nodePasses(h.Node)
	}
	for _, k := range g.needKeys {
		if !claimHasKey(h.Requirements, k, wk) {
			return false
		}
	}
	if len(g.filterReqs) > 0 && !slices.ContainsFunc(g.filterReqs, func(r requirements.Requirements) bool { return h.Requirements.Compatible(r, wk) == nil }) {
		return false
	}
	if g.honorTaints {
		if _, bad := requirements.UntoleratedTaint(h.Taints, g.tolerations); bad {
			return false
		}
	}
	return true
}

// claimHasKey reports whether a NodeClaim with these requirements will
// carry a label for key: the hostname always; a well-known key unless the
// requirements keep it absent (DoesNotExist); a custom key only when they
// require it to be present (a NodePool's label, In, Exists).
func claimHasKey(reqs requirements.Requirements, key string, wk requirements.WellKnown) bool {
	if key == requirements.LabelHostname {
		return true
	}
	r := reqs.Get(key)
	if r.RequiresPresent() {
		return true
	}
	if wk == nil || !wk.IsWellKnown(key) {
		return false
	}
	return !(r.IsFinite() && r.Len() == 0)
}

func (g *group) describe() string {
	return fmt.Sprintf("%s on %s (%s)", g.kind, g.ks.key, g.selDesc)
}

// counts renders the group's counts over the given domains, e.g. "z1=2 z2=0".
func (g *group) counts(domains []int32) string {
	var parts []string
	for _, d := range domains {
		parts = append(parts, fmt.Sprintf("%s=%d", g.ks.values[d], g.get(d)))
	}
	return strings.Join(parts, " ")
}

// ownerCounts renders the owners of g in each domain, e.g. "z1=1 z2=0".
func (g *group) ownerCounts(domains []int32) string {
	var parts []string
	for _, d := range domains {
		parts = append(parts, fmt.Sprintf("%s=%d", g.ks.values[d], g.ownersIn(d)))
	}
	return strings.Join(parts, " ")
}

// sortedDomains returns domain indexes ordered by value.
func sortedDomains(ks *keyState, ds []int32) []int32 {
	out := slices.Clone(ds)
	sort.Slice(out, func(i, j int) bool { return ks.values[out[i]] < ks.values[out[j]] })
	return out
}

// remove takes one pod out of d's count and reports whether there was one.
func (g *group) remove(d int32) bool {
	if int(d) >= len(g.count) || g.count[d] == 0 {
		return false
	}
	g.count[d]--
	if g.count[d] == 0 {
		g.nonzero--
	}
	g.countChanged(d, g.count[d]+1, g.count[d])
	return true
}

// removeOwner takes one owner out of d and reports whether there was one.
func (g *group) removeOwner(d int32) bool {
	if int(d) >= len(g.owners) || g.owners[d] == 0 {
		return false
	}
	g.owners[d]--
	g.ownersTotal--
	return true
}
