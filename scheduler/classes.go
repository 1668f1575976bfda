package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/internal/podrequests"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// class is a set of pending pods that are identical for placement: same
// namespace, labels and spec (but for names). Everything derived from the
// spec is computed once per class.
type class struct {
	id        int
	sample    *corev1.Pod
	namespace string
	labels    map[string]string
	requests  binpack.Vec
	invalid   *failure
	// reserved is reservedFrom's answer for the class (0: not known yet,
	// 1: it avoids the reserved NodePools, 2: it does not).
	reserved int8
	// alts are the pod's node requirements, one per (required term ×
	// volume alternative), in the order they are tried.
	alts []requirements.Requirements
	// strict are nodeSelector ∩ each required term (no volumes), for
	// topology node filters.
	strict []requirements.Requirements
	prefs  []prefTerm // preferred node-affinity terms kept, by weight descending
	// staticRelaxed lists preferred terms dropped before placement: nothing
	// can satisfy them together with the heavier ones.
	staticRelaxed []string
	// unkept are the terms of staticRelaxed (desc as listed there), for
	// judging the final plan (relaxations.go).
	unkept      []prefTerm
	tolerations []corev1.Toleration
	ports       []hostPort
	topo        *topology.Pod
	topoSpec    topology.PodSpec
	// relaxation
	steps    []step
	termStep []int // per topology term: its step, or -1 when required
	// unseenLevels counts the relaxation levels at which a term of
	// unseenTerms is still enforced, so every attempt fails
	// (config.unseenTargets; 0: none).
	unseenLevels int
	prefStep     []int // per kept preferred node term: its step
	// singlePref enforces one preferred node term at a time, the heaviest
	// not yet dropped (Karpenter's relaxation order).
	singlePref      bool
	taintStp        int // the PreferNoSchedule step, or -1
	nWhile          int // steps [0, nWhile) are WhileFree
	ignoreTaintPref bool
	pods            []*pending
	placedN         int // pods of the class placed so far
	// isolated pods need a node of their own among their group (required
	// hostname anti-affinity to themselves); they are placed first so that
	// the room their nodes leave can be filled by others.
	isolated bool
	// targets are the other pending classes the class's pod affinity
	// (required or preferred) selects: its pods are queued after theirs.
	targets []*class
	// caches
	variants map[variantKey]int32
	actives  []topology.Active // per relaxation level (activeAt)
	// cursors: per (attempt requirements, bucket), the first claim not known
	// to reject the class's pods under those requirements (a refusal under
	// one required term or relaxation level says nothing of another).
	cursors map[cursorKey]int
}

type prefTerm struct {
	weight int32
	reqs   requirements.Requirements
	desc   string
	// device marks a term the plan added (targetdomains.go): honoured
	// like the pod's own, never reported as relaxed.
	device bool
}

type step struct {
	kind   PreferenceKind
	policy PreferencePolicy
	desc   string
}

// cursorKey is an attempt's requirement set and a bucket.
type cursorKey struct{ reqID, bucket int32 }

type variantKey struct {
	alt, level int
}

// classKey identifies pods that place alike.
func classKey(p *corev1.Pod) (uint64, error) {
	h := fnv.New64a()
	h.Write([]byte(kube.Namespace(p.Namespace)))
	h.Write([]byte{0})
	for _, k := range slices.Sorted(maps.Keys(p.Labels)) {
		h.Write([]byte(k))
		h.Write([]byte{1})
		h.Write([]byte(p.Labels[k]))
		h.Write([]byte{0})
	}
	spec := p.Spec
	spec.NodeName = ""
	b, err := spec.Marshal()
	if err != nil {
		return 0, err
	}
	h.Write(b)
	if statusResources(p) {
		// What the kubelet allocated counts too (podrequests.OfPod): two
		// pods of one spec mid-resize may ask for different room.
		r := podrequests.OfPod(p)
		for _, name := range slices.Sorted(maps.Keys(r)) {
			q := r[name]
			h.Write([]byte(name))
			h.Write([]byte{1})
			h.Write([]byte(q.String()))
			h.Write([]byte{0})
		}
	}
	return h.Sum64(), nil
}

// statusResources reports whether the pod's status gives a container
// resources (allocated or actual), which its requests then count as
// kube-scheduler does (podrequests.OfPod).
func statusResources(p *corev1.Pod) bool {
	has := func(cs []corev1.ContainerStatus) bool {
		return slices.ContainsFunc(cs, func(c corev1.ContainerStatus) bool { return len(c.AllocatedResources) > 0 || c.Resources != nil })
	}
	return has(p.Status.ContainerStatuses) || has(p.Status.InitContainerStatuses)
}

// classKeys returns the class key of each pod, computed on up to
// cfg.workers goroutines (each key by one), or the error of the first pod
// in order that has one.
func (s *solver) classKeys(pods []*corev1.Pod) ([]uint64, error) {
	keys := make([]uint64, len(pods))
	errs := make([]error, len(pods))
	parallelChunks(len(pods), s.cfg.workerCount(), func(from, to int) {
		for i := from; i < to; i++ {
			p := pods[i]
			switch {
			case p == nil:
				errs[i] = fmt.Errorf("pods[%d]: nil pod", i)
			case p.Name == "":
				errs[i] = fmt.Errorf("pods[%d]: metadata.name: Required value", i)
			default:
				var err error
				if keys[i], err = s.cfg.memo.podClassKey(p); err != nil {
					errs[i] = fmt.Errorf("pod %s: %w", podName(p), err)
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// prepareClasses groups the pending pods into classes and derives each
// class's requests, requirements, preferences and topology.
func (s *solver) prepareClasses(pods []*corev1.Pod) error {
	keys, err := s.classKeys(pods)
	if err != nil {
		return err
	}
	byKey := map[uint64]*class{}
	for i, p := range pods {
		key := keys[i]
		c, ok := byKey[key]
		if !ok {
			c = &class{id: len(s.classes), sample: p, namespace: kube.Namespace(p.Namespace), labels: p.Labels,
				variants: map[variantKey]int32{}, cursors: map[cursorKey]int{}}
			byKey[key] = c
			s.classes = append(s.classes, c)
		}
		pp := &pending{pod: p, name: podName(p), cls: c}
		c.pods = append(c.pods, pp)
		s.pending = append(s.pending, pp)
	}
	s.claimUsers = map[string]int{}
	for _, pp := range s.pending {
		for _, claim := range podClaims(pp.pod) {
			s.claimUsers[claim]++
		}
	}
	for _, c := range s.classes {
		s.deriveClass(c)
		c.invalid = cmp.Or(s.cfg.memo.podValid(c.sample), c.invalid) // validate_pod.go: what the API server rejects is never placed
	}
	s.followTargets()
	return nil
}

// podClaims lists the persistent volume claims a pod mounts, as namespace/name.
func podClaims(p *corev1.Pod) []string {
	ns := kube.Namespace(p.Namespace)
	var out []string
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			out = append(out, ns+"/"+v.PersistentVolumeClaim.ClaimName)
		}
	}
	return out
}

// sharedClaimTerms ties pods that share a claim together: a ReadWriteOnce
// volume attaches to one node, so its pods share a node; any other volume
// that is not bound yet is created in one zone, so its pods share a zone.
// The terms select a label only those pods carry (added to their topology
// view, never to the pods).
func (s *solver) sharedClaimTerms(p *corev1.Pod) (map[string]string, []corev1.PodAffinityTerm) {
	var labels map[string]string
	var terms []corev1.PodAffinityTerm
	for _, claim := range podClaims(p) {
		if s.claimUsers[claim] < 2 {
			continue
		}
		key, rwo, bound := s.vols.Claim(claim)
		if key == "" {
			continue
		}
		topologyKey := requirements.LabelTopologyZone
		switch {
		case rwo:
			topologyKey = requirements.LabelHostname
		case bound:
			continue // the bound volume's zone is already a requirement
		}
		h := fnv.New64a()
		h.Write([]byte(claim))
		label := fmt.Sprintf("volumes.nodeplan.io/claim-%016x", h.Sum64())
		if labels == nil {
			labels = map[string]string{}
		}
		labels[label] = "shared"
		terms = append(terms, corev1.PodAffinityTerm{TopologyKey: topologyKey,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{label: "shared"}}})
	}
	return labels, terms
}

func (s *solver) deriveClass(c *class) {
	p := c.sample
	reqs := podrequests.OfPod(p)
	var unknown []corev1.ResourceName
	c.requests, unknown = s.dims.Vector(reqs)
	if len(unknown) > 0 {
		c.invalid = &failure{code: ReasonNoInstanceType, causes: []Cause{{Code: ReasonNoInstanceType, Key: string(unknown[0]),
			Message: fmt.Sprintf("no instance type has resource %s", unknown[0])}}}
	}
	if claims := resourceClaims(&p.Spec); claims != "" && c.invalid == nil {
		// Like Karpenter (B-256): what a ResourceClaim needs is decided by
		// a DRA driver at allocation, which a plan cannot foresee.
		c.invalid = &failure{code: ReasonDynamicResources, causes: []Cause{{Code: ReasonDynamicResources, Key: claims,
			Message: fmt.Sprintf("the pod uses ResourceClaim %s (dynamic resource allocation), which the solver does not plan for", claims)}}}
	}
	c.tolerations = p.Spec.Tolerations
	c.ports = podHostPorts(&p.Spec)
	if err := s.podRequirements(c); err != nil && c.invalid == nil {
		code := ReasonInvalidPod
		var ve *topology.VolumeError
		if errors.As(err, &ve) {
			code = ReasonVolumeTopology
		}
		c.invalid = &failure{code: code, causes: []Cause{{Code: code, Message: err.Error()}}}
	}
	c.topoSpec = topology.PodSpec{Namespace: c.namespace, Labels: p.Labels, Tolerations: p.Spec.Tolerations,
		Requirements: c.strict, Spread: p.Spec.TopologySpreadConstraints, Affinity: p.Spec.Affinity}
	s.dropIgnoredPreferences(&c.topoSpec)
	if extra, terms := s.sharedClaimTerms(p); len(terms) > 0 {
		labels := maps.Clone(p.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, extra)
		aff := &corev1.Affinity{}
		if p.Spec.Affinity != nil {
			aff = p.Spec.Affinity.DeepCopy()
		}
		if aff.PodAffinity == nil {
			aff.PodAffinity = &corev1.PodAffinity{}
		}
		aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, terms...)
		c.topoSpec.Labels, c.topoSpec.Affinity = labels, aff
	}
}

// podRequirements derives the class's requirement alternatives: its
// nodeSelector ∩ each required node-affinity term that can match a node
// (strict), each ∩ each topology alternative of its volumes.
func (s *solver) podRequirements(c *class) error {
	p := c.sample
	spec := field.NewPath("spec")
	if err := s.checkNodeSelector(spec.Child("nodeSelector"), p.Spec.NodeSelector); err != nil {
		return err
	}
	strict, err := s.requiredTerms(spec, p, s.schema.FromLabels(p.Spec.NodeSelector))
	if err != nil {
		return err
	}
	c.strict = strict
	vols, err := s.vols.For(p)
	if err != nil {
		return err
	}
	for _, st := range strict {
		if vols == nil {
			c.alts = append(c.alts, st)
			continue
		}
		for _, v := range vols {
			r := st.Intersect(v)
			if _, empty := r.Empty(); !empty {
				c.alts = append(c.alts, r)
			}
		}
	}
	if len(c.alts) == 0 {
		return &topology.VolumeError{Message: fmt.Sprintf("the pod's node requirements (%s) and its volumes' topology (%s) do not intersect",
			joinReqs(strict), joinReqs(vols))}
	}
	return nil
}

// checkNodeSelector refuses a nodeSelector on a restricted label (but the
// hostname) or with an invalid label.
func (s *solver) checkNodeSelector(path *field.Path, selector map[string]string) error {
	for k := range selector {
		if s.schema.IsRestricted(k) && s.schema.Normalize(k) != requirements.LabelHostname {
			return fmt.Errorf("%s: label %q is restricted", path.Key(k), k)
		}
	}
	if errs := s.schema.ValidateLabels(path, selector); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return nil
}

// requiredTerms returns base ∩ each required node-affinity term of pod p
// that can match a node (base alone without required node affinity). An
// empty term matches no node; a term that does not parse or names a
// restricted label is an error when no term is left.
func (s *solver) requiredTerms(spec *field.Path, p *corev1.Pod, base requirements.Requirements) ([]requirements.Requirements, error) {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return []requirements.Requirements{base}, nil
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil, fmt.Errorf("%s: required node affinity has no terms", spec.Child("affinity", "nodeAffinity"))
	}
	termsPath := spec.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	var strict []requirements.Requirements
	var termErr error
	for i, t := range terms {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			continue // an empty term matches no node
		}
		tr, err := s.schema.FromNodeSelectorTerm(termsPath.Index(i), t)
		if err != nil {
			termErr = err
			continue
		}
		if k := s.restrictedKey(tr); k != "" {
			termErr = fmt.Errorf("%s: label %q is restricted", termsPath.Index(i), k)
			continue
		}
		strict = append(strict, base.Intersect(tr))
	}
	if len(strict) == 0 {
		if termErr != nil {
			return nil, termErr
		}
		return nil, fmt.Errorf("%s: no term can match a node", termsPath)
	}
	return strict, nil
}

// restrictedKey returns the last restricted label key of reqs but the
// hostname ("" when none).
func (s *solver) restrictedKey(reqs requirements.Requirements) string {
	restricted := ""
	for _, k := range reqs.Keys() {
		if s.schema.IsRestricted(k) && k != requirements.LabelHostname {
			restricted = k
		}
	}
	return restricted
}

func joinReqs(rs []requirements.Requirements) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return strings.Join(out, " | ")
}

// derivePreferences builds the class's relaxation steps: preferred pod
// affinity, preferred pod anti-affinity, preferred node affinity,
// ScheduleAnyway spread constraints, then PreferNoSchedule taints. Kinds
// under the Ignore policy get no step (never enforced); WhileFree steps
// come first.
//
// In nodeplan's order every preferred node-affinity term that can hold with
// the heavier ones is enforced at once, and each kind drops its lightest
// term first. In Karpenter's order (karpenterRelaxation) only the heaviest
// remaining preferred node-affinity term is enforced, each kind drops its
// heaviest term first, and ScheduleAnyway constraints go in listing order.
func (s *solver) derivePreferences(c *class) {
	karp := s.cfg.karpenterRelaxation
	c.singlePref = karp
	s.keepPreferredNodeTerms(c, karp)
	if pt, ok := s.followerDomainTerm(c); ok {
		c.prefs = append(c.prefs, pt)
	}
	if pt, ok := s.followerNodeTerm(c); ok {
		c.prefs = append(c.prefs, pt)
	}
	s.assignSteps(c, s.preferenceCandidates(c, karp))
	if s.cfg.unseenTargets {
		for _, i := range unseenTerms(c.topo.Terms) {
			// A term is enforced through its step (activeTerm); ignoredStep never.
			c.unseenLevels = max(c.termStep[i]+1, c.unseenLevels)
		}
	}
	if s.cfg.policyFor(PreferTaints) == PreferenceIgnore {
		c.ignoreTaintPref = true
	}
}

// unseenTerms lists the preferred pod-affinity terms on a key other than
// the hostname that select no pod counted yet (called before any pending
// pod is placed: none selects an existing pod) and not the pod itself
// (Karpenter lets a pod its own term selects start a domain).
func unseenTerms(terms []topology.Term) []int {
	var out []int
	for i, t := range terms {
		if t.Kind == topology.Affinity && !t.Required && t.Key != requirements.LabelHostname && !t.Self() && !t.Counts() {
			out = append(out, i)
		}
	}
	return out
}

// keepPreferredNodeTerms sets the class's preferred node-affinity terms,
// heaviest first. In nodeplan's order a term that no NodePool and instance
// type can satisfy with the heavier ones kept is dropped before placing
// (recorded in staticRelaxed); Karpenter tries each term alone, and an
// impossible one is a relaxation step like any other.
func (s *solver) keepPreferredNodeTerms(c *class, karp bool) {
	a := c.sample.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return
	}
	prefs := slices.Clone(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	slices.SortStableFunc(prefs, func(x, y corev1.PreferredSchedulingTerm) int { return cmp.Compare(y.Weight, x.Weight) })
	var kept requirements.Requirements
	for i, pt := range prefs {
		if pt.Weight <= 0 {
			continue
		}
		tr, err := s.schema.FromNodeSelectorTerm(field.NewPath("preferred").Index(i), pt.Preference)
		if err != nil || tr.Len() == 0 {
			continue
		}
		if karp {
			tr = karpenterReading(tr, pt.Preference)
		}
		candidate := kept.Intersect(tr)
		if !karp && !s.feasible(c, candidate) {
			desc := fmt.Sprintf("preferred node affinity (weight %d): %s (no NodePool and instance type can satisfy it with the heavier preferences kept)", pt.Weight, tr)
			c.staticRelaxed = append(c.staticRelaxed, desc)
			c.unkept = append(c.unkept, prefTerm{weight: pt.Weight, reqs: tr, desc: desc})
			continue
		}
		kept = candidate
		c.prefs = append(c.prefs, prefTerm{weight: pt.Weight, reqs: tr, desc: fmt.Sprintf("preferred node affinity (weight %d): %s", pt.Weight, tr)})
	}
}

// prefCand is a preference that may become a relaxation step: a topology
// term, a kept preferred node term, or the PreferNoSchedule taints.
type prefCand struct {
	st    step
	term  int // topology term index, -1
	pref  int // preferred node term index, -1
	taint bool
}

// preferenceCandidates lists the class's preferences in relaxation order:
// preferred pod affinity and anti-affinity terms (lightest first, in
// Karpenter's order heaviest first), preferred node terms (lightest first,
// in Karpenter's order heaviest first), ScheduleAnyway spread constraints
// (last listed first, in Karpenter's order in listing order), then
// PreferNoSchedule taints when some NodePool or node has one.
func (s *solver) preferenceCandidates(c *class, karp bool) []prefCand {
	var cands []prefCand
	terms := c.topo.Terms
	for _, kind := range []topology.Kind{topology.Affinity, topology.AntiAffinity} {
		pk := PreferPodAffinity
		if kind == topology.AntiAffinity {
			pk = PreferPodAntiAffinity
		}
		var idx []int
		for i, t := range terms {
			if t.Kind == kind && !t.Required {
				idx = append(idx, i)
			}
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if karp {
				return cmp.Compare(terms[b].Weight, terms[a].Weight)
			}
			return cmp.Compare(terms[a].Weight, terms[b].Weight)
		})
		for _, i := range idx {
			cands = append(cands, prefCand{st: step{kind: pk, desc: fmt.Sprintf("preferred %s (weight %d)", terms[i].Describe(), terms[i].Weight)}, term: i, pref: -1})
		}
	}
	for k := range c.prefs {
		i := len(c.prefs) - 1 - k // lightest first
		if karp {
			i = k // heaviest first
		}
		cands = append(cands, prefCand{st: step{kind: PreferNodeAffinity, desc: c.prefs[i].desc}, term: -1, pref: i})
	}
	for k := range terms {
		i := len(terms) - 1 - k
		if karp {
			i = k // listing order
		}
		if terms[i].Kind == topology.Spread && !terms[i].Required {
			cands = append(cands, prefCand{st: step{kind: PreferTopologySpread, desc: "ScheduleAnyway " + terms[i].Describe()}, term: i, pref: -1})
		}
	}
	if s.anyPreferNoSchedule {
		cands = append(cands, prefCand{st: step{kind: PreferTaints, desc: "avoid PreferNoSchedule taints"}, term: -1, pref: -1, taint: true})
	}
	return cands
}

// assignSteps makes the candidates the class's steps under their kinds'
// policies: WhileFree first, then Respect and Honor; Ignore kinds get no
// step (ignoredStep). Required topology terms keep -1.
func (s *solver) assignSteps(c *class, cands []prefCand) {
	terms := c.topo.Terms
	c.termStep = make([]int, len(terms))
	for i := range c.termStep {
		c.termStep[i] = -1
	}
	c.prefStep = make([]int, len(c.prefs))
	for i := range c.prefStep {
		c.prefStep[i] = ignoredStep
	}
	c.taintStp = -1
	for _, want := range []PreferencePolicy{PreferenceWhileFree, PreferenceRespect} {
		for _, cd := range cands {
			pol := s.cfg.policyFor(cd.st.kind)
			if pol != want && !(pol == PreferenceHonor && want == PreferenceRespect) {
				continue
			}
			cd.st.policy = pol
			idx := len(c.steps)
			c.steps = append(c.steps, cd.st)
			switch {
			case cd.term >= 0:
				c.termStep[cd.term] = idx
			case cd.pref >= 0:
				c.prefStep[cd.pref] = idx
			case cd.taint:
				c.taintStp = idx
			}
			if want == PreferenceWhileFree {
				c.nWhile++
			}
		}
	}
	for i, t := range terms {
		if !t.Required && c.termStep[i] < 0 {
			c.termStep[i] = ignoredStep
		}
	}
}

// ignoredStep marks a preference that is never enforced.
const ignoredStep = -2

// activeTerm reports whether topology term i is enforced at relaxation level.
func (c *class) activeTerm(i, level int) bool {
	st := c.termStep[i]
	return st == -1 || st >= level
}

// activePref reports whether kept preferred node term i is enforced: until
// its step, and, when one term is enforced at a time (singlePref), only
// once the heavier term before it has been dropped.
func (c *class) activePref(i, level int) bool {
	st := c.prefStep[i]
	if st == ignoredStep || st < level {
		return false
	}
	return !c.singlePref || i == 0 || c.prefStep[i-1] < level
}

// toleratesPreferNoSchedule reports whether PreferNoSchedule taints are
// tolerated at this level.
func (c *class) toleratesPreferNoSchedule(level int) bool {
	return c.ignoreTaintPref || (c.taintStp >= 0 && c.taintStp < level) || c.taintStp == -1
}

// relaxedAt lists the preferences dropped at a level.
func (c *class) relaxedAt(level int) []string {
	out := slices.Clone(c.staticRelaxed)
	for i := 0; i < level && i < len(c.steps); i++ {
		out = append(out, c.steps[i].desc)
	}
	return out
}

// feasible reports whether some alternative of the class, with extra
// requirements, fits some pool with some instance type (a static check used
// to keep only satisfiable preferred terms).
func (s *solver) feasible(c *class, extra requirements.Requirements) bool {
	for _, alt := range c.alts {
		r := alt.Intersect(extra)
		if _, empty := r.Empty(); empty {
			continue
		}
		rid := s.reqs.intern(r, nil)
		for _, p := range s.pools {
			id := s.reqs.compat(p.reqID, rid)
			if id < 0 {
				continue
			}
			if info := s.reqs.info(id); !info.typeSet(s).IsEmpty() {
				return true
			}
		}
	}
	return false
}

// dropIgnoredPreferences removes from a pod's topology view the preferences
// the policy ignores, so that no group exists for them: nothing counts pods
// for a rule nobody enforces, and no NodeClaim is pinned for it.
func (s *solver) dropIgnoredPreferences(spec *topology.PodSpec) {
	if s.cfg.policyFor(PreferTopologySpread) == PreferenceIgnore {
		spec.Spread = slices.DeleteFunc(slices.Clone(spec.Spread), func(c corev1.TopologySpreadConstraint) bool {
			return c.WhenUnsatisfiable == corev1.ScheduleAnyway
		})
	}
	a := spec.Affinity
	if a == nil {
		return
	}
	if s.cfg.karpenterRelaxation && !s.cfg.keepSelfAntiAffinity {
		spec.Affinity = pessimisticAntiAffinity(a, spec.Labels)
		a = spec.Affinity
	}
	ignoreAff := s.cfg.policyFor(PreferPodAffinity) == PreferenceIgnore && a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
	ignoreAnti := s.cfg.policyFor(PreferPodAntiAffinity) == PreferenceIgnore && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
	if !ignoreAff && !ignoreAnti {
		return
	}
	a = a.DeepCopy()
	if ignoreAff {
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
	}
	if ignoreAnti {
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
	}
	spec.Affinity = a
}

// pessimisticAntiAffinity drops, for the plan made in Karpenter's order, the
// preferred anti-affinity terms on a key other than hostname that select
// the pod itself: Karpenter counts a pod on a NodeClaim whose zone is still
// open in every zone it could land in, so the second replica finds every
// zone taken and relaxes the term (its replicas share nodes). Without this
// the plan in Karpenter's order would keep replicas apart at a price
// Karpenter never pays. A second plan that packs like Karpenter keeps the
// terms (keepSelfAntiAffinity): its tracker counts a pod on an open claim
// in every zone the claim may take (LeaveSoftTargetsOpen), so a replica
// relaxes only when every zone is taken, not when the claim before it was
// pinned to one zone by its NodePool.
func pessimisticAntiAffinity(a *corev1.Affinity, podLabels map[string]string) *corev1.Affinity {
	if a.PodAntiAffinity == nil || len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return a
	}
	self := func(w corev1.WeightedPodAffinityTerm) bool {
		sel, err := metav1.LabelSelectorAsSelector(w.PodAffinityTerm.LabelSelector)
		return err == nil && w.PodAffinityTerm.LabelSelector != nil && w.PodAffinityTerm.TopologyKey != requirements.LabelHostname &&
			sel.Matches(labels.Set(podLabels))
	}
	if !slices.ContainsFunc(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, self) {
		return a
	}
	a = a.DeepCopy()
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = slices.DeleteFunc(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, self)
	return a
}

// maxFollowChecks caps the selector matches spent ordering followers (pods
// with pod affinity to other pending pods) after their targets.
const maxFollowChecks = 1 << 20

// followTargets records, for each class with pod affinity (required or
// preferred) to other pending classes, those classes: the queue places
// targets before their followers, as Karpenter's relax-and-requeue loop ends
// up doing, so that a preferred affinity is relaxed only when its target
// really has no room, not because the target comes later. In one more
// plan that relaxes in Karpenter's order (unfollowPreferred, orFewest) only
// required terms make a pod wait: Karpenter queues by size and relaxes a
// preferred affinity whose target is not placed yet at once; in another
// (unfollowRequired) a pod does not wait for the targets of its required
// terms either: Karpenter tries it by size, where a target already running
// on an existing node may take it (before a pending target fills that
// node), and relaxes its preferences while the targets are not placed. A
// target that repels its follower (repels) is one too, but in the plan
// made with unfollowRepelled (whenLeft), where the queue's own order
// decides.
func (s *solver) followTargets() {
	checks := 0
	for _, c := range s.classes {
		if s.cfg.firstUnfollow && slices.ContainsFunc(c.pods, func(pp *pending) bool { return s.cfg.first[pp.name] }) {
			continue // queued first, before its targets (firstUnfollow)
		}
		terms := affinityTerms(c.sample)
		required := len(requiredAffinityTerms(c.sample))
		for i, t := range terms {
			sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
			if err != nil || t.LabelSelector == nil || sel.Matches(labels.Set(c.labels)) {
				continue // a self-selecting term may start its own domain: it waits for nobody
			}
			for _, o := range s.classes {
				if o == c || slices.Contains(c.targets, o) || (len(t.Namespaces) > 0 && !slices.Contains(t.Namespaces, o.namespace)) ||
					(len(t.Namespaces) == 0 && t.NamespaceSelector == nil && o.namespace != c.namespace) {
					continue
				}
				if checks++; checks > maxFollowChecks {
					return
				}
				if !sel.Matches(labels.Set(o.labels)) {
					continue
				}
				if repels(o, c, t.TopologyKey) || repels(c, o, t.TopologyKey) {
					s.repelledFollowers = true
					if s.cfg.unfollowRepelled {
						continue
					}
				}
				if i >= required {
					s.preferredFollowers = true
					if s.cfg.unfollowPreferred {
						continue
					}
				} else {
					s.requiredFollowers = true
					if s.cfg.unfollowRequired {
						continue
					}
				}
				c.targets = append(c.targets, o)
			}
		}
	}
}

// repels reports whether a required anti-affinity term of x keeps pods of
// y out of every domain of key where x's pods are: one on key, or on a key
// whose domains hold the node when key is the hostname. A pod of y then
// never shares a key domain with a pod of x, so an affinity of y to x on
// key is never met, and queuing y after x only hands x the domains first
// (where Karpenter, queuing by size, relaxes the affinity and places the
// larger pods first).
func repels(x, y *class, key string) bool {
	a := x.sample.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return false
	}
	for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey != key && key != corev1.LabelHostname {
			continue
		}
		if !mayCoverNamespace(t, x.namespace, y.namespace) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err == nil && t.LabelSelector != nil && sel.Matches(labels.Set(y.labels)) {
			return true
		}
	}
	return false
}

// mayCoverNamespace reports whether term t of a pod in namespace owner may
// select pods of namespace ns: listed, or t's own namespace when it lists
// none, or any when it has a namespace selector (the namespaces' labels are
// not read here).
func mayCoverNamespace(t corev1.PodAffinityTerm, owner, ns string) bool {
	return slices.Contains(t.Namespaces, ns) || t.NamespaceSelector != nil || (len(t.Namespaces) == 0 && owner == ns)
}

// affinityTerms lists a pod's required and preferred pod-affinity terms.
func affinityTerms(p *corev1.Pod) []corev1.PodAffinityTerm {
	a := p.Spec.Affinity
	if a == nil || a.PodAffinity == nil {
		return nil
	}
	out := slices.Clone(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		out = append(out, w.PodAffinityTerm)
	}
	return out
}

// requiredAffinityTerms is the pod's required pod affinity terms.
func requiredAffinityTerms(p *corev1.Pod) []corev1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// resourceClaims names the first ResourceClaim a pod spec uses ("" for
// none): the pod's claims, or a container's.
func resourceClaims(spec *corev1.PodSpec) string {
	if len(spec.ResourceClaims) > 0 {
		return spec.ResourceClaims[0].Name
	}
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, ctr := range cs {
			if len(ctr.Resources.Claims) > 0 {
				return ctr.Resources.Claims[0].Name
			}
		}
	}
	return ""
}
