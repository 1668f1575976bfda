package scheduler

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/binpack"
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// failure is why a pod was not placed: a code and the per-candidate causes.
type failure struct {
	code   ReasonCode
	causes []Cause
}

// reason renders the failure for people: the causes joined by "; ",
// identical messages counted once, the closest first; with more than one
// NodePool, then a count of their causes by code, as kube-scheduler counts
// nodes ("0/3 NodePools: 2 InsufficientResources, 1 UntoleratedTaint").
func (f *failure) reason() string {
	var parts []string
	count := map[string]int{}
	byCode := map[ReasonCode]int{}
	pools := 0
	for _, c := range f.causes {
		if count[c.Message] == 0 {
			parts = append(parts, c.Message)
		}
		count[c.Message]++
		if c.NodePool != "" {
			byCode[c.Code]++
			pools++
		}
	}
	for i, p := range parts {
		if n := count[p]; n > 1 {
			parts[i] = fmt.Sprintf("%s (x%d)", p, n)
		}
	}
	if pools > 1 {
		codes := slices.SortedFunc(maps.Keys(byCode), func(a, b ReasonCode) int {
			if c := cmp.Compare(byCode[b], byCode[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		var hist []string
		for _, code := range codes {
			hist = append(hist, fmt.Sprintf("%d %s", byCode[code], code))
		}
		parts = append(parts, fmt.Sprintf("0/%d NodePools: %s", pools, strings.Join(hist, ", ")))
	}
	return strings.Join(parts, "; ")
}

// closeness ranks a NodePool's refusal by how far the pod got through the
// checks: a taint or a label refuses it first, then instance types,
// resources, limits, ports and reservations, topology, minValues.
func closeness(code ReasonCode) int {
	switch code {
	case ReasonTaint:
		return 1
	case ReasonUndefinedLabel, ReasonIncompatible:
		return 2
	case ReasonNoInstanceType, ReasonDaemonSetOverhead, ReasonNoOffering, ReasonVolumeTopology:
		return 3
	case ReasonInsufficient:
		return 4
	case ReasonLimits:
		return 5
	case ReasonHostPort, ReasonReservation:
		return 6
	case ReasonTopologySpread, ReasonPodAffinity, ReasonPodAntiAffinity:
		return 7
	case ReasonMinValues:
		return 8
	}
	return 0
}

// explain works out why a pod could not be placed, with every preference
// relaxed: for each NodePool the first check that refuses it (taints,
// requirements, instance types, resources, limits, topology, minValues), and
// a summary of the existing nodes.
func (s *solver) explain(pp *pending) *failure {
	c := pp.cls
	if c.invalid != nil {
		return c.invalid
	}
	level := len(c.steps)
	f := &failure{}
	if len(s.pools) == 0 && len(s.existing) == 0 {
		f.code = ReasonNoNodePool
		f.causes = append(f.causes, Cause{Code: ReasonNoNodePool, Message: "no NodePool can provision nodes and no existing node fits"})
		return f
	}
	for _, p := range s.pools {
		f.causes = append(f.causes, s.explainPool(c, p, level))
	}
	// The NodePool that came closest leads: failing on resources says
	// more than failing on a taint the pod was never meant to tolerate.
	slices.SortStableFunc(f.causes, func(a, b Cause) int { return closeness(b.Code) - closeness(a.Code) })
	if en := s.explainExisting(c, level); en.Message != "" {
		f.causes = append(f.causes, en)
	}
	if len(f.causes) == 0 {
		f.causes = append(f.causes, Cause{Code: ReasonNoNodePool, Message: "no NodePool can provision nodes"})
	}
	f.code = f.causes[0].Code
	return f
}

// explainPool says why pool p refuses class c at relaxation level: the
// first check that refuses it (instance types, taints), else, per
// requirement alternative of the pod, the first that refuses the
// alternative (requirements, instance types, resources, limits, host
// ports, reservations, topology, minValues); the refusal of the
// alternative that came closest (closeness; of those, the last), or the
// first incompatibility when every alternative is incompatible.
func (s *solver) explainPool(c *class, p *pool, level int) Cause {
	if cause, refused := s.explainPoolWide(c, p, level); refused {
		return cause
	}
	var firstIncompat error
	var last Cause
	for alt := range c.alts {
		cause, incompat := s.explainAlt(c, p, alt, level)
		if incompat != nil && firstIncompat == nil {
			firstIncompat = incompat
		}
		if cause.Message != "" && (last.Message == "" || closeness(cause.Code) >= closeness(last.Code)) {
			last = cause
		}
	}
	if last.Message != "" {
		return last
	}
	return s.explainIncompatible(p, firstIncompat)
}

// poolCause is a NodePool's refusal: a code, the numbers behind it, and a
// message that names the NodePool.
func poolCause(p *pool, code ReasonCode, key, asked, offered, format string, args ...any) Cause {
	name := p.tmpl.Name
	return Cause{Code: code, NodePool: name, Key: key, Asked: asked, Offered: offered,
		Message: fmt.Sprintf("NodePool %s: ", name) + fmt.Sprintf(format, args...)}
}

// explainPoolWide returns the refusal of a pool that refuses the class
// whatever its requirements: no instance type at all, or a taint it does
// not tolerate.
func (s *solver) explainPoolWide(c *class, p *pool, level int) (Cause, bool) {
	if p.noTypes != "" {
		code := ReasonNoInstanceType
		if p.noTypesDS {
			code = ReasonDaemonSetOverhead
		}
		return poolCause(p, code, "", "", "", "%s", p.noTypes), true
	}
	if t, bad := requirements.UntoleratedTaint(p.tmpl.Taints, c.tolerations); bad {
		return poolCause(p, ReasonTaint, t.Key, "", taintString(t), "the pod does not tolerate taint %s", taintString(t)), true
	}
	if p.preferNo && !c.toleratesPreferNoSchedule(level) {
		if t, bad := requirements.UntoleratedPreference(p.tmpl.Taints, c.tolerations); bad {
			return poolCause(p, ReasonTaint, t.Key, "", taintString(t), "the pod does not tolerate taint %s", taintString(t)), true
		}
	}
	return Cause{}, false
}

// explainAlt explains why pool p refuses requirement alternative alt of
// class c: a cause, or the incompatibility of the alternative with the
// pool's requirements (both empty when the alternative has no attempt at
// this level).
func (s *solver) explainAlt(c *class, p *pool, alt, level int) (Cause, error) {
	if key, empty := c.alts[alt].Empty(); empty {
		return poolCause(p, ReasonIncompatible, key, clashOn(c.sample, key), "", "the pod's own requirements leave no value for %s: %s", key, clashOn(c.sample, key)), nil
	}
	a, ok := s.newAttempt(c, alt, level, true)
	if !ok {
		return Cause{}, nil
	}
	podReqs := s.reqs.info(a.reqID).reqs
	if err := p.reqs.Compatible(podReqs, s.schema); err != nil {
		return Cause{}, err
	}
	id := s.reqs.compat(p.reqID, a.reqID)
	if id < 0 {
		return poolCause(p, ReasonIncompatible, "", podReqs.String(), p.reqs.String(), "the pod's requirements (%s) and the NodePool's leave no value for some key", podReqs), nil
	}
	info := s.reqs.info(id)
	if info.typeSet(s).IsEmpty() {
		return s.explainNoTypes(p.tmpl.Name, p, podReqs), nil
	}
	var v *topology.Violation
	if c.topo.Relevant() {
		host := topology.Host{Hostname: newHost, Requirements: info.reqs, Taints: p.tmpl.Taints, Domains: info, Decided: &info.decided}
		_, v = s.topo.Check(c.topo, a.active, &host, nil)
	}
	// A node of the NodePool without a topology key the pod's rules need
	// refuses the pod whatever the types, the limits or the other pods do.
	if v != nil && v.MissingLabel() {
		return poolCause(p, topologyCode(v), v.Key, "", "", "%s", v.Message()), nil
	}
	if cause, refused := s.explainTypes(c, p, id); refused {
		return cause, nil
	}
	if v != nil {
		return poolCause(p, topologyCode(v), v.Key, "", "", "%s", v.Message()), nil
	}
	var zero binpack.Vec
	if t, _, _, fit := s.cheapestFit(c.ports, p, id, c.requests, &zero, 0, math.Inf(1), nil); fit && !s.chargeOK(p, id, c.requests, t, c.ports) {
		if msg, met := s.minValuesShort(p, info.reqs, info.types); !met {
			return poolCause(p, ReasonMinValues, "", "", "", "%s", msg), nil
		}
		if msg, met := s.minValuesShort(p, info.reqs, s.cappedOptions(p, id, c.requests, c.ports)); !met {
			// Only the cap on a NodeClaim's options breaks it (B-118).
			return poolCause(p, ReasonMinValues, "", "", "", "%s after capping instance-type options at %d", msg, s.cfg.maxOptions), nil
		}
		// minValues is met only with options larger than the limits leave.
		rem := s.remainingString(p)
		return poolCause(p, ReasonLimits, "", "", rem, "the instance types that meet the NodePool's minValues exceed its remaining limits (%s)", rem), nil
	}
	if c.topo.Relevant() {
		if cause, refused := s.explainFitDomains(c, p, id, a.active); refused {
			return cause, nil
		}
	}
	return poolCause(p, ReasonTopologySpread, "", "", "", "a new NodeClaim could take the pod only in an order the solve did not reach"), nil
}

// explainFitDomains is the refusal of pool p when the pod's topology rules
// take a new NodeClaim of set id only in domains of an instance-type label
// that no type fitting the pod is in: a spread on a custom size label
// whose empty domain only types too small for the pod carry. The check is
// made again with the rules' keys narrowed to the values of the types that
// fit (an offering's zone or capacity type is not a type label and stays).
func (s *solver) explainFitDomains(c *class, p *pool, id int32, active topology.Active) (Cause, bool) {
	info := s.reqs.info(id)
	fit := s.cappedOptions(p, id, c.requests, c.ports)
	if fit.IsEmpty() {
		return Cause{}, false
	}
	var narrowed []requirements.Requirement
	values := map[string][]string{}
	for _, key := range c.topo.Keys() {
		if key == requirements.LabelHostname {
			continue
		}
		seen := map[string]bool{}
		all := true
		for _, t32 := range info.members {
			if t := int(t32); fit.Has(t) {
				v, ok := s.idx.Type(t).Labels[key]
				if !ok {
					all = false
					break
				}
				seen[v] = true
			}
		}
		if !all || len(seen) == 0 {
			continue
		}
		vs := slices.Sorted(maps.Keys(seen))
		values[key] = vs
		narrowed = append(narrowed, requirements.In(key, vs...))
	}
	if len(narrowed) == 0 {
		return Cause{}, false
	}
	reqs := info.reqs.Add(narrowed...)
	host := topology.Host{Hostname: newHost, Requirements: reqs, Taints: p.tmpl.Taints, Domains: fitLister{info, values}}
	if _, v := s.topo.Check(c.topo, active, &host, nil); v != nil {
		return poolCause(p, topologyCode(v), v.Key, "", "", "the instance types that fit the pod have only %s, and there: %s", requirements.NewRequirements(narrowed...), v.Message()), true
	}
	return Cause{}, false
}

// fitLister lists a NodeClaim's domain values, those of the keys in values
// narrowed to them.
type fitLister struct {
	base   topology.DomainLister
	values map[string][]string
}

func (l fitLister) DomainValues(key string) []string {
	if vs, ok := l.values[key]; ok {
		return vs
	}
	return l.base.DomainValues(key)
}

// cappedOptions is the set of the cheapest instance types of set id that
// could be options of a NodeClaim of pool p holding need, as many as a
// NodeClaim lists (chargeFor's options, limits aside).
func (s *solver) cappedOptions(p *pool, id int32, need binpack.Vec, ports []hostPort) binpack.TypeSet {
	info := s.reqs.info(id)
	info.typeSet(s)
	prices := s.idx.Prices(info.offer)
	set := binpack.NewTypeSet(s.idx.Len())
	n := 0
	for _, t32 := range info.members {
		t := int(t32)
		if n >= s.cfg.maxOptions {
			break
		}
		if math.IsInf(prices[t], 1) || !s.optionFits(p, t, need, false, nil, ports) {
			continue
		}
		set.Set(t)
		n++
	}
	return set
}

// explainTypes checks the instance types of set id (of pool p) for a new
// NodeClaim holding one pod of class c, with the instance-type check
// placement and finalisation use (typecheck.go), and returns the refusal
// of the type that came closest: resources (with DaemonSet overhead), the
// NodePool's node limit, its limits, host ports, reservations. refused is
// false when some type takes the pod.
func (s *solver) explainTypes(c *class, p *pool, id int32) (cause Cause, refused bool) {
	var left binpack.ReservationsLeft
	if s.hasReservations {
		left = s.leftFor(nil)
	}
	info := s.reqs.info(id)
	switch closest := s.closestType(s.newTypeLoad(p, id, c.requests, c.ports, left)); {
	case closest <= typeResources && !c.requests.Fits(info.maxUsable):
		d := c.requests.FirstShort(info.maxUsable)
		dn := s.dims.Name(d)
		asked, largest := s.dims.Format(d, c.requests[d]), s.dims.Format(d, info.maxUsable[d])
		return poolCause(p, ReasonInsufficient, string(dn), asked, largest,
			"no instance type has %s %s (largest allocatable: %s)%s", asked, dn, largest, mHint(dn, c.requests[d])), true
	case closest <= typeResources:
		return poolCause(p, ReasonInsufficient, "", s.idx.Describe(c.requests), "", "no instance type has %s together (with DaemonSet overhead)", s.idx.Describe(c.requests)), true
	case p.nodesLeft == 0:
		return poolCause(p, ReasonLimits, string(nodepoolNodes), "", "0", "node limit of the NodePool is exhausted"), true
	case closest == typeLimits:
		return poolCause(p, ReasonLimits, "", "", s.remainingString(p), "every instance type that fits exceeds the NodePool's remaining limits (%s)", s.remainingString(p)), true
	case closest == typeHostPort:
		return poolCause(p, ReasonHostPort, "", "", "", "a DaemonSet already takes the pod's host port on every instance type"), true
	case closest == typeOffering && s.hasReservations:
		return poolCause(p, ReasonReservation, instancetypes.LabelReservationID, "", "",
			"every offering the pod can use is a capacity reservation already used up by other NodeClaims of the plan"), true
	case closest == typeOffering:
		return poolCause(p, ReasonNoOffering, "", info.reqs.String(), "", "no instance type that fits has an available offering for %s", info.reqs), true
	}
	return Cause{}, false
}

// explainIncompatible is the refusal of a pool whose requirements every
// requirement alternative of the pod is incompatible with (err: the first
// alternative's incompatibility).
func (s *solver) explainIncompatible(p *pool, err error) Cause {
	if err == nil {
		return poolCause(p, ReasonIncompatible, "", "", "", "no requirement alternative of the pod can hold")
	}
	var ie *requirements.IncompatibleError
	if !errors.As(err, &ie) {
		return poolCause(p, ReasonIncompatible, "", "", "", "%v", err)
	}
	if ie.Undefined {
		c := poolCause(p, ReasonUndefinedLabel, ie.Key, ie.Incoming.String(), "", "label %s is not declared by the NodePool (%s)", ie.Key, ie.Incoming)
		if ie.Hint != "" {
			c.Message += fmt.Sprintf(" (typo of %q?)", ie.Hint)
		}
		return c
	}
	return poolCause(p, ReasonIncompatible, ie.Key, ie.Incoming.String(), ie.Target.String(), "%s not in %s", ie.Incoming, ie.Target)
}

// explainNoTypes finds the requirement key that leaves the pool without an
// instance type.
func (s *solver) explainNoTypes(name string, p *pool, podReqs requirements.Requirements) Cause {
	all := p.reqs.Intersect(podReqs)
	if labelled := s.idx.FilterLabels(all); !labelled.IsEmpty() {
		// Types with the right labels exist: none can be bought where and
		// how the requirements allow (zone, capacity type, availability).
		var where []string
		for _, k := range []string{requirements.LabelTopologyZone, requirements.LabelCapacityType, instancetypes.LabelZoneID, instancetypes.LabelReservationID} {
			if all.Has(k) {
				where = append(where, all.Get(k).String())
			}
		}
		what := podReqs.Without(requirements.LabelTopologyZone, requirements.LabelCapacityType, instancetypes.LabelZoneID, instancetypes.LabelReservationID).String()
		if what == "" {
			what = "the pod's requirements"
		}
		return Cause{Code: ReasonNoOffering, NodePool: name, Asked: strings.Join(where, ", "),
			Message: fmt.Sprintf("NodePool %s: %d instance types satisfy %s, but none has an available offering for %s", name, labelled.Count(), what, strings.Join(where, ", "))}
	}
	set := p.types.Clone()
	for _, k := range podReqs.Keys() {
		if !s.idx.IsLabelKey(k) && k != requirements.LabelTopologyZone && k != requirements.LabelCapacityType {
			continue
		}
		next := set.And(s.idx.Filter(requirements.NewRequirements(podReqs.Get(k))))
		if next.IsEmpty() {
			r := podReqs.Get(k)
			return Cause{Code: ReasonNoInstanceType, NodePool: name, Key: k, Asked: r.String(),
				Message: fmt.Sprintf("NodePool %s: no instance type satisfies %s", name, r)}
		}
		set = next
	}
	return Cause{Code: ReasonNoOffering, NodePool: name, Asked: podReqs.String(),
		Message: fmt.Sprintf("NodePool %s: no instance type has an available offering for %s", name, podReqs)}
}

func (s *solver) explainExisting(c *class, level int) Cause {
	if len(s.existing) == 0 {
		return Cause{}
	}
	counts := map[string]int{}
	codes := map[ReasonCode]int{}
	for _, en := range s.existing {
		var why string
		code := ReasonInsufficient
		switch {
		case en.cordoned && !requirements.Tolerates(c.tolerations, &corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}):
			why, code = "unschedulable", ReasonTaint
		case !c.requests.Fits(en.free):
			why = "insufficient " + string(s.dims.Name(c.requests.FirstShort(en.free)))
		default:
			if t, bad := requirements.UntoleratedTaint(en.taints, c.tolerations); bad {
				why, code = "untolerated taint "+t.Key, ReasonTaint
			} else {
				matched := slices.ContainsFunc(c.alts, func(r requirements.Requirements) bool { return r.Matches(en.labels) })
				if !matched {
					why, code = "node labels do not match", ReasonIncompatible
				} else {
					why = "topology or host ports"
				}
			}
		}
		counts[why]++
		codes[code]++
	}
	var parts []string
	for _, k := range sortedKeys(counts) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return Cause{Code: existingCode(codes), Message: fmt.Sprintf("existing nodes: %s", strings.Join(parts, ", "))}
}

// existingCode is the code of the existing nodes' refusal: the one most of
// them give (no room, a taint, labels; topology and host ports count as no
// room), InsufficientResources on a tie.
func existingCode(codes map[ReasonCode]int) ReasonCode {
	best := ReasonInsufficient
	for _, c := range []ReasonCode{ReasonTaint, ReasonIncompatible} {
		if codes[c] > codes[best] {
			best = c
		}
	}
	return best
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (s *solver) remainingString(p *pool) string {
	var parts []string
	for _, d := range p.limitDims {
		parts = append(parts, fmt.Sprintf("%s %s", s.dims.Name(d), s.dims.Format(d, max(p.remaining[d], 0))))
	}
	return strings.Join(parts, ", ")
}

const nodepoolNodes = corev1.ResourceName("nodes")

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// mHint flags a request that looks like "m" was meant as "M" or vice versa.
func mHint(name corev1.ResourceName, v int64) string {
	if name == corev1.ResourceCPU && v >= 1_000_000_000 {
		return " (a million cores or more: m vs M typo?)"
	}
	return ""
}

func topologyCode(v *topology.Violation) ReasonCode {
	switch v.Kind {
	case topology.Affinity:
		return ReasonPodAffinity
	case topology.AntiAffinity:
		return ReasonPodAntiAffinity
	}
	return ReasonTopologySpread
}

// clashOn lists what a pod requires of key, in its nodeSelector and its
// required node-affinity terms, e.g. "term 0: integer Gt [9], integer Lt [1]".
func clashOn(p *corev1.Pod, key string) string {
	var parts []string
	if v, ok := p.Spec.NodeSelector[key]; ok {
		parts = append(parts, fmt.Sprintf("nodeSelector %s=%s", key, v))
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			var exprs []string
			for _, e := range t.MatchExpressions {
				if e.Key == key {
					exprs = append(exprs, fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values))
				}
			}
			if len(exprs) > 0 {
				parts = append(parts, fmt.Sprintf("term %d: %s", i, strings.Join(exprs, ", ")))
			}
		}
	}
	if len(parts) == 0 {
		return "volume topology and node requirements disagree"
	}
	return strings.Join(parts, "; ")
}

// chargeOK reports whether a new claim of pool p on type t meets the pool's
// minValues within its limits.
func (s *solver) chargeOK(p *pool, id int32, need binpack.Vec, t int, ports []hostPort) bool {
	var zero binpack.Vec
	_, ok := s.chargeFor(p, id, need, t, ports, &zero)
	return ok
}
