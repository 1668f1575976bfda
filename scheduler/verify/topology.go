package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// vworld is the final plan as topology sees it: every node and every pod
// on one, with caches of what topology terms select.
type vworld struct {
	nodes  []*vnode // existing (sorted by name), then NodeClaims (plan order)
	pods   []*vpod  // bound and placed, in node order
	spread map[string]*vspread
	picked map[string][]*vpod
	// byHost is, per term signature, the pods the term selects by their
	// node's hostname label (made when a hostname term first asks).
	byHost map[string]map[string][]*vpod
	// relevant records, per NodeClaim and key, why its domain on the key
	// matters (the first reason found).
	relevant map[*vclaim]map[string]string
	// waits holds the pods a pod's required affinity makes it bind after,
	// after per pod those that bind only after it (affinityWaits).
	waits, after map[*vpod][]*vpod
}

// vterm is one pod-affinity or anti-affinity term, resolved.
type vterm struct {
	key string
	sel labels.Selector
	ns  func(string) bool
	sig string // identifies what the term selects
}

// vspread is what one spread group counts: per domain, the matching pods
// on eligible nodes; and the eligible domains.
type vspread struct {
	counts   map[string]int
	domains  map[string]bool
	eligible map[*vnode]bool
	// minDom and minCount are the least loaded eligible domain (ties: the
	// first by name) and its count, set once the counts are made.
	minDom   string
	minCount int
	// early is the group as a pod planned on an existing node sees it when
	// it binds: kube-scheduler binds such a pod as soon as it fits, before
	// any NodeClaim's node joins (unless it waits for an affinity target),
	// so the pods planned on NodeClaims are not counted and the domains are
	// those of the eligible existing nodes. Its counts still hold every pod
	// planned on an existing node, whatever its place in the queue (the
	// binding order is checkSpreadOrder's).
	early *vspread
	// existingOnly marks an early view: its counts leave out the
	// NodeClaims' pods.
	existingOnly bool
}

func (v *verifier) checkTopology() {
	w := &vworld{spread: map[string]*vspread{}, picked: map[string][]*vpod{}, relevant: map[*vclaim]map[string]string{}}
	w.nodes = slices.Clone(v.nodes)
	for _, c := range v.claims {
		w.nodes = append(w.nodes, c.node)
	}
	for _, n := range w.nodes {
		w.pods = append(w.pods, n.pods...)
	}
	w.waits, w.after = v.affinityWaits(w)
	for _, p := range v.pending {
		if p.host == nil {
			continue
		}
		v.checkSpread(w, p)
		v.checkPodAffinity(w, p)
		v.checkPodAntiAffinity(w, p)
	}
	failed := map[string]bool{}
	for _, vio := range v.out {
		if vio.Code == scheduler.ReasonTopologySpread {
			failed[vio.Pod] = true
		}
	}
	v.checkSpreadOrder(w, failed)
	v.checkInverseAntiAffinity(w)
	v.checkPinned(w)
}

// mark records that the domain of p's node on key matters.
func (w *vworld) mark(p *vpod, key, why string) {
	c := p.host.claim
	if c == nil || key == requirements.LabelHostname {
		return
	}
	if w.relevant[c] == nil {
		w.relevant[c] = map[string]string{}
	}
	if _, ok := w.relevant[c][key]; !ok {
		w.relevant[c][key] = why
	}
}

// selectorOf builds a term's pod selector: a nil selector selects nothing;
// matchLabelKeys add key In [owner's value], mismatchLabelKeys key NotIn
// [owner's value], for keys the owner carries.
func selectorOf(ls *metav1.LabelSelector, owner *vpod, match, mismatch []string) (labels.Selector, error) {
	if ls == nil {
		return labels.Nothing(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, err
	}
	for _, group := range []struct {
		keys []string
		op   selection.Operator
	}{{match, selection.In}, {mismatch, selection.NotIn}} {
		for _, k := range group.keys {
			val, ok := owner.pod.Labels[k]
			if !ok {
				continue
			}
			r, err := labels.NewRequirement(k, group.op, []string{val})
			if err != nil {
				return nil, err
			}
			sel = sel.Add(*r)
		}
	}
	return sel, nil
}

func podLabels(p *vpod) labels.Set { return labels.Set(p.pod.Labels) }

// checkSpread checks the pod's DoNotSchedule spread constraints. A pod
// planned on a ready existing node (waiting for no affinity target) binds as
// soon as it fits, before any NodeClaim's node joins, when every one of its
// spreads passes against the existing nodes alone (vspread.early); else it
// is tried again once they have joined, against every count.
func (v *verifier) checkSpread(w *vworld, p *vpod) {
	type failure struct {
		at   Violation
		args []any
	}
	var late []failure
	earlyOK := p.host.bindsEarly() && w.waits[p] == nil
	for _, c := range p.pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		key := v.schema.Normalize(c.TopologyKey)
		at := Violation{Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host)}
		sel, err := selectorOf(c.LabelSelector, p, c.MatchLabelKeys, nil)
		if err != nil {
			v.report(with(at, scheduler.ReasonTopologySpread, "spread on %s: invalid label selector: %v", key, err))
			continue
		}
		w.mark(p, key, "the DoNotSchedule spread of pod "+p.name)
		dom, ok := p.host.labels[key]
		if !ok {
			v.report(with(at, scheduler.ReasonTopologySpread, "spread on %s: the pod's node has no %s label", key, key))
			continue
		}
		g := v.spreadGroup(w, p, c, key, sel)
		if earlyOK {
			_, _, _, earlyOK = spreadSkew(w, p, g.early, c, sel, key, dom)
		}
		if own, minDom, least, ok := spreadSkew(w, p, g, c, sel, key, dom); !ok {
			late = append(late, failure{at, []any{key, sel, c.MaxSkew, dom, own, minDom, least}})
		}
	}
	if earlyOK {
		return
	}
	for _, f := range late {
		v.report(with(f.at, scheduler.ReasonTopologySpread, "spread on %s (selector %s, maxSkew %d): domain %s holds %d matching pods, the least loaded eligible domain %s holds %d", f.args...))
	}
}

// spreadSkew checks one constraint of p on domain dom against g's counts
// as p sees them when it binds: it returns the domain's count with p, the
// least loaded domain and its count, and whether the skew holds.
func spreadSkew(w *vworld, p *vpod, g *vspread, c corev1.TopologySpreadConstraint, sel labels.Selector, key, dom string) (own int, minDom string, least int, ok bool) {
	counts, domains, minDom, least := w.spreadCounts(p, g, sel, key)
	own = counts[dom]
	if !g.eligible[p.host] && sel.Matches(podLabels(p)) {
		own++ // the pod counts itself wherever it is
	}
	if c.MinDomains != nil && len(domains) < int(*c.MinDomains) {
		minDom, least = fmt.Sprintf("(fewer than minDomains %d eligible domains)", *c.MinDomains), 0
	}
	return own, minDom, least, own-least <= int(c.MaxSkew)
}

// bindsEarly reports whether the pods planned on n bind before any
// NodeClaim's node joins: n is an existing node kube-scheduler binds to
// now (nodepool.BindsNow).
func (n *vnode) bindsEarly() bool {
	return n.claim == nil && (n.node == nil || n.now)
}

func claimName(n *vnode) string {
	if n.claim != nil {
		return n.name
	}
	return ""
}

func nodeName(n *vnode) string {
	if n.claim == nil {
		return n.name
	}
	return ""
}

// leastLoaded sets the group's eligible domain with the fewest matching
// pods (ties: the first by name) and its count.
func leastLoaded(g *vspread) {
	n := -1
	for _, d := range slices.Sorted(maps.Keys(g.domains)) {
		if c := g.counts[d]; n < 0 || c < n {
			g.minDom, n = d, c
		}
	}
	g.minCount = max(n, 0)
}

// spreadGroup counts, per domain of key, the pods in p's namespace that
// sel matches on the nodes the constraint's node filter keeps and that
// carry every key of p's DoNotSchedule constraints (kube-scheduler's
// PodTopologySpread skips the others for all of them), and gathers the
// eligible domains. Groups that count alike are computed once.
func (v *verifier) spreadGroup(w *vworld, p *vpod, c corev1.TopologySpreadConstraint, key string, sel labels.Selector) *vspread {
	honorAffinity := c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor
	honorTaints := c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	keys := v.hardSpreadKeys(p)
	sig := spreadSignature(p, key, sel, honorAffinity, honorTaints) + "|" + strings.Join(keys, ",")
	if g, ok := w.spread[sig]; ok {
		return g
	}
	g := &vspread{counts: map[string]int{}, domains: map[string]bool{}, eligible: map[*vnode]bool{}}
	e := &vspread{counts: map[string]int{}, domains: map[string]bool{}, eligible: g.eligible, existingOnly: true}
	for _, n := range w.nodes {
		if !v.spreadEligible(p, n, key, honorAffinity, honorTaints) || !hasKeys(n, keys) {
			continue
		}
		g.eligible[n] = true
		dom := n.labels[key]
		g.domains[dom] = true
		if n.claim == nil {
			e.domains[dom] = true
		}
		for _, q := range n.pods {
			if q.namespace == p.namespace && sel.Matches(podLabels(q)) {
				g.counts[dom]++
				if n.claim == nil {
					e.counts[dom]++
				}
				w.mark(q, key, "the DoNotSchedule spread of pod "+p.name)
			}
		}
	}
	leastLoaded(g)
	leastLoaded(e)
	g.early = e
	w.spread[sig] = g
	return g
}

// hardSpreadKeys are the topology keys of the pod's DoNotSchedule spread
// constraints, sorted: kube-scheduler counts a node for any of them only
// when it has every one of these labels. The hostname is left out (every
// node has one; a node object without the label is known by its name).
func (v *verifier) hardSpreadKeys(p *vpod) []string {
	var keys []string
	for _, c := range p.pod.Spec.TopologySpreadConstraints {
		if k := v.schema.Normalize(c.TopologyKey); c.WhenUnsatisfiable == corev1.DoNotSchedule && k != requirements.LabelHostname {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// hasKeys reports whether the node has a label for every key.
func hasKeys(n *vnode, keys []string) bool {
	for _, k := range keys {
		if _, ok := n.labels[k]; !ok {
			return false
		}
	}
	return true
}

// spreadSignature identifies what a spread group counts: the namespace,
// selector, key, policies and (when honoured) the owner's node affinity
// and tolerations.
func spreadSignature(p *vpod, key string, sel labels.Selector, honorAffinity, honorTaints bool) string {
	part := struct {
		NS        string
		Sel, Key  string
		Aff, Tnt  bool
		Selector  map[string]string    `json:",omitempty"`
		Affinity  *corev1.NodeSelector `json:",omitempty"`
		Tolerates []corev1.Toleration  `json:",omitempty"`
	}{NS: p.namespace, Sel: sel.String(), Key: key, Aff: honorAffinity, Tnt: honorTaints}
	if honorAffinity {
		part.Selector = p.pod.Spec.NodeSelector
		if a := p.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			part.Affinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	if honorTaints {
		part.Tolerates = p.pod.Spec.Tolerations
	}
	b, err := json.Marshal(part)
	if err != nil { // cannot happen: plain API types
		return fmt.Sprintf("%p", p)
	}
	return string(b)
}

// spreadEligible is the node filter of a spread constraint: the node has
// the key and passes the policies.
func (v *verifier) spreadEligible(p *vpod, n *vnode, key string, honorAffinity, honorTaints bool) bool {
	if _, ok := n.labels[key]; !ok {
		return false
	}
	if honorAffinity {
		if ok, err := p.matchesNode(n.name, n.labels); err != nil || !ok {
			return false
		}
	}
	if honorTaints {
		if _, bad := requirements.UntoleratedTaint(n.taints, p.pod.Spec.Tolerations); bad || n.cordonedFor(p) {
			return false
		}
	}
	return true
}

// affinityTerm resolves one pod-affinity term of owner.
func (v *verifier) affinityTerm(t corev1.PodAffinityTerm, owner *vpod) (vterm, error) {
	sel, err := selectorOf(t.LabelSelector, owner, t.MatchLabelKeys, t.MismatchLabelKeys)
	if err != nil {
		return vterm{}, err
	}
	out := vterm{key: v.schema.Normalize(t.TopologyKey), sel: sel}
	nsDesc := "ns=" + owner.namespace
	switch {
	case len(t.Namespaces) == 0 && t.NamespaceSelector == nil:
		out.ns = func(ns string) bool { return ns == owner.namespace }
	default:
		var nsSel labels.Selector
		if t.NamespaceSelector != nil {
			if nsSel, err = metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil {
				return vterm{}, err
			}
		}
		list := slices.Sorted(slices.Values(t.Namespaces))
		out.ns = func(ns string) bool {
			return slices.Contains(list, ns) || (nsSel != nil && nsSel.Matches(labels.Set(v.nsLabels[ns])))
		}
		nsDesc = fmt.Sprintf("ns in %v or selector %v", list, nsSel)
	}
	out.sig = nsDesc + "|" + sel.String()
	return out, nil
}

// matches reports whether the term selects q.
func (t vterm) matches(q *vpod) bool { return t.ns(q.namespace) && t.sel.Matches(podLabels(q)) }

// pickedOnHost is pickedBy grouped by the hostname label of the pods'
// nodes.
func (w *vworld) pickedOnHost(t vterm) map[string][]*vpod {
	if out, ok := w.byHost[t.sig]; ok {
		return out
	}
	out := map[string][]*vpod{}
	for _, q := range w.pickedBy(t) {
		if h, ok := q.host.labels[requirements.LabelHostname]; ok {
			out[h] = append(out[h], q)
		}
	}
	if w.byHost == nil {
		w.byHost = map[string]map[string][]*vpod{}
	}
	w.byHost[t.sig] = out
	return out
}

// picked returns every pod of the plan the term selects.
func (w *vworld) pickedBy(t vterm) []*vpod {
	if out, ok := w.picked[t.sig]; ok {
		return out
	}
	var out []*vpod
	for _, q := range w.pods {
		if t.matches(q) {
			out = append(out, q)
		}
	}
	w.picked[t.sig] = out
	return out
}

func (t vterm) String() string { return fmt.Sprintf("%s selecting %s", t.key, t.sel) }

// resolveTerms resolves a pod's required terms, reporting invalid ones.
func (v *verifier) resolveTerms(p *vpod, code scheduler.ReasonCode, terms []corev1.PodAffinityTerm) []vterm {
	var out []vterm
	for i, t := range terms {
		vt, err := v.affinityTerm(t, p)
		if err != nil {
			v.report(with(Violation{Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host)}, code, "required term %d: %v", i, err))
			continue
		}
		out = append(out, vt)
	}
	return out
}

// checkPodAffinity applies kube-scheduler's required pod-affinity filter to
// the final plan: some other pod matching all the pod's terms shares its
// domain for each term, unless the pod matches them itself and no other pod
// matching them runs anywhere (on a node with the term's key): the first
// pod of a self-affine group may start a domain, and only while it is the
// only one (interpodaffinity: len(affinityCounts) == 0).
func (v *verifier) checkPodAffinity(w *vworld, p *vpod) {
	a := p.pod.Spec.Affinity
	if a == nil || a.PodAffinity == nil || len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 0 {
		return
	}
	at := Violation{Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host)}
	terms := v.resolveTerms(p, scheduler.ReasonPodAffinity, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, t := range terms {
		w.mark(p, t.key, "the required pod affinity of pod "+p.name)
		if _, ok := p.host.labels[t.key]; !ok {
			v.report(with(at, scheduler.ReasonPodAffinity, "the pod's node has no %s label", t.key))
			return
		}
	}
	var others []*vpod
	if len(terms) > 0 {
		// The pods the first term selects (kept per term), in the world's
		// order, that every other term selects too.
		for _, q := range w.pickedBy(terms[0]) {
			if q != p && !slices.ContainsFunc(terms[1:], func(t vterm) bool { return !t.matches(q) }) {
				others = append(others, q)
			}
		}
	}
	anywhere := false // a matching pod on a node with the term's key
	var missing *vterm
	for i, t := range terms {
		found := false
		for _, q := range others {
			w.mark(q, t.key, "the required pod affinity of pod "+p.name)
			val, ok := q.host.labels[t.key]
			anywhere = anywhere || ok
			found = found || (ok && val == p.host.labels[t.key])
		}
		if !found && missing == nil {
			missing = &terms[i]
		}
	}
	if missing == nil {
		return
	}
	self := !slices.ContainsFunc(terms, func(t vterm) bool { return !t.matches(p) })
	if anywhere || !self {
		v.report(with(at, scheduler.ReasonPodAffinity, "no other pod matching the pod's required affinity is in its domain %s=%s (term %s); %d matching pod(s) elsewhere",
			missing.key, p.host.labels[missing.key], missing, len(others)))
	}
}

// checkPodAntiAffinity checks that no other pod a required anti-affinity
// term of p selects shares p's domain for the term's key.
func (v *verifier) checkPodAntiAffinity(w *vworld, p *vpod) {
	a := p.pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return
	}
	at := Violation{Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host)}
	for _, t := range v.resolveTerms(p, scheduler.ReasonPodAntiAffinity, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) {
		w.mark(p, t.key, "the required anti-affinity of pod "+p.name)
		dom, ok := p.host.labels[t.key]
		var clash []string
		if t.key == requirements.LabelHostname {
			// Marking skips the hostname: only the pods on p's node matter.
			if ok {
				for _, q := range w.pickedOnHost(t)[dom] {
					if q != p {
						clash = append(clash, q.name)
					}
				}
			}
		} else {
			why := "the required anti-affinity of pod " + p.name
			for _, q := range w.pickedBy(t) {
				if q == p {
					continue
				}
				w.mark(q, t.key, why)
				if val, has := q.host.labels[t.key]; ok && has && val == dom {
					clash = append(clash, q.name)
				}
			}
		}
		if len(clash) > 0 {
			slices.Sort(clash)
			v.report(with(at, scheduler.ReasonPodAntiAffinity, "required anti-affinity on %s: %d selected pod(s) share domain %s=%s: %v",
				t, len(clash), t.key, dom, clash))
		}
	}
}

// checkInverseAntiAffinity checks that no placed pod lands in the domain
// of a bound pod whose required anti-affinity selects it.
func (v *verifier) checkInverseAntiAffinity(w *vworld) {
	for _, q := range v.bound {
		a := q.pod.Spec.Affinity
		if a == nil || a.PodAntiAffinity == nil {
			continue
		}
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			t, err := v.affinityTerm(term, q)
			if err != nil {
				continue // the bound pod's own problem, not the plan's
			}
			dom, ok := q.host.labels[t.key]
			for _, p := range w.pickedBy(t) {
				if p.bound || p == q {
					continue
				}
				if ok && v.avoids(p, t.key, dom) {
					continue // whatever it launches with, never q's domain
				}
				w.mark(p, t.key, "the required anti-affinity of bound pod "+q.name)
				if val, has := p.host.labels[t.key]; ok && has && val == dom {
					v.report(Violation{Code: scheduler.ReasonPodAntiAffinity, Pod: p.name, NodeClaim: claimName(p.host), Node: nodeName(p.host), Message: fmt.Sprintf(
						"bound pod %s on %s has a required anti-affinity on %s that selects this pod, in the same domain %s=%s", q.name, q.host.name, t, t.key, dom)})
				}
			}
		}
	}
}

// avoids reports whether pod p is on a NodeClaim that launches with a
// value of key other than dom (and with the key), whichever of its
// possible values it launches with: the domain of a bound pod's required
// anti-affinity then never holds p, and the claim's value of key does not
// matter to that term.
func (v *verifier) avoids(p *vpod, key, dom string) bool {
	c := p.host.claim
	if c == nil {
		return false
	}
	if vals, absent, ok := v.launchValues(c, key); ok && len(c.options) > 0 {
		return !absent && len(vals) > 0 && !slices.Contains(vals, dom)
	}
	if val, ok := v.schema.NormalizeLabels(c.nc.Labels)[key]; ok {
		return val != dom
	}
	r := v.effective(c, key)
	return r.IsFinite() && !r.AllowsAbsent() && len(r.Values()) > 0 && !r.Has(dom)
}

// checkPinned checks that every NodeClaim whose domain on a key matters to
// a hard topology term can launch with only one value of that key.
func (v *verifier) checkPinned(w *vworld) {
	for _, c := range v.claims {
		for _, key := range slices.Sorted(maps.Keys(w.relevant[c])) {
			if vals, pinned := v.possibleDomains(c, key); !pinned {
				v.report(Violation{Code: scheduler.ReasonTopologyDomain, NodeClaim: c.nc.Name, Message: fmt.Sprintf(
					"%s depends on its %s, but the NodeClaim can launch with %s %v (checked as %q)", w.relevant[c][key], key, key, vals, c.node.labels[key])})
			}
		}
	}
}

// possibleDomains returns the values key can take on the node launched for
// the NodeClaim ("<none>" for a missing label), and whether there is
// exactly one.
func (v *verifier) possibleDomains(c *vclaim, key string) ([]string, bool) {
	const none = "<none>"
	if vals, absent, ok := v.launchValues(c, key); ok && len(c.options) > 0 {
		if absent {
			vals = append(vals, none)
		}
		return vals, len(vals) == 1
	}
	if val, ok := v.schema.NormalizeLabels(c.nc.Labels)[key]; ok {
		return []string{val}, true
	}
	r := v.effective(c, key)
	if !r.IsFinite() {
		return []string{r.String()}, false
	}
	out := slices.Clone(r.Values())
	if r.AllowsAbsent() {
		out = append(out, none)
	}
	return out, len(out) == 1
}

// allows reports whether some requirement alternative of the pod lets its
// node have key=val (all do when it has none).
func (p *vpod) allows(key, val string) bool {
	if len(p.alts) == 0 {
		return true
	}
	return slices.ContainsFunc(p.alts, func(alt requirements.Requirements) bool { return alt.Get(key).Has(val) })
}
