package verify

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// resolveClaims looks up each NodeClaim's NodePool, requirements, options
// and chosen offering, counts reservations, and gives each NodeClaim the
// labels of its chosen launch.
func (v *verifier) resolveClaims() {
	for _, c := range v.claims {
		nc := c.nc
		if t, ok := v.tmpls[nc.NodePool]; ok {
			c.tmpl = t
			t.claims = append(t.claims, c)
		} else {
			msg := "no NodePool of the input has this name"
			if v.static[nc.NodePool] {
				msg = "the NodePool is static (spec.replicas): it never provisions for pending pods"
			}
			v.report(Violation{Code: scheduler.ReasonNoNodePool, NodeClaim: nc.Name, NodePool: nc.NodePool, Message: msg})
		}
		c.reqs = v.claimRequirements(c)
		c.match = v.matcherFor(c.reqs)
		v.resolveOptions(c)
		v.resolveOffering(c)
	}
	v.resUsed, v.resCap = map[string]int{}, v.catalog.ReservationCapacities()
	for _, c := range v.claims {
		if c.reservation != "" {
			v.resUsed[c.reservation]++
		}
	}
	for _, c := range v.claims {
		c.node.labels = v.claimLabels(c)
		c.node.taints = c.nc.Taints
	}
}

// claimRequirements parses the NodeClaim's requirement expressions (keys
// normalised; expressions on one key are ANDed).
func (v *verifier) claimRequirements(c *vclaim) requirements.Requirements {
	var reqs []requirements.Requirement
	for i, e := range c.nc.Requirements {
		r, err := requirements.New(v.schema.Normalize(e.Key), e.Operator, e.Values...)
		if err != nil {
			v.report(Violation{Code: scheduler.ReasonNodeClaimRequirements, NodeClaim: c.nc.Name, Message: fmt.Sprintf("requirements[%d]: %v", i, err)})
			continue
		}
		reqs = append(reqs, r.WithMinValues(e.MinValues))
	}
	return requirements.NewRequirements(reqs...)
}

func (v *verifier) resolveOptions(c *vclaim) {
	nc := c.nc
	bad := func(format string, args ...any) {
		v.report(Violation{Code: scheduler.ReasonInstanceTypeOptions, NodeClaim: nc.Name, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	for _, name := range nc.InstanceTypeOptions {
		if seen[name] {
			bad("option %s is listed twice", name)
			continue
		}
		seen[name] = true
		it, ok := v.catalog.Get(name)
		if !ok {
			bad("option %s is not an instance type of the catalog", name)
			continue
		}
		c.options = append(c.options, it)
	}
	switch {
	case len(nc.InstanceTypeOptions) == 0:
		bad("the NodeClaim lists no instance-type options")
	case len(nc.InstanceTypeOptions) > v.in.MaxInstanceTypeOptions:
		bad("%d options, more than the maximum of %d", len(nc.InstanceTypeOptions), v.in.MaxInstanceTypeOptions)
	}
	if !seen[nc.InstanceType] {
		bad("instanceType %s is not among the options", nc.InstanceType)
	}
	if it, ok := v.catalog.Get(nc.InstanceType); ok {
		c.chosen = it
	} else if !seen[nc.InstanceType] {
		bad("instanceType %s is not an instance type of the catalog", nc.InstanceType)
	}
}

// resolveOffering finds the chosen offering: an available offering of the
// chosen type in the NodeClaim's zone and capacity type that satisfies its
// requirements (at the NodeClaim's price when several do).
func (v *verifier) resolveOffering(c *vclaim) {
	nc := c.nc
	if c.chosen == nil {
		return
	}
	var best *instancetypes.Offering
	for i := range c.chosen.Offerings {
		o := &c.chosen.Offerings[i]
		if o.Unavailable || o.Zone != nc.Zone || o.CapacityType != nc.CapacityType ||
			(nc.ReservationID != "" && o.ReservationID != nc.ReservationID) || !c.match.matches(o) {
			continue
		}
		if best == nil || (o.Price == nc.Price && best.Price != nc.Price) {
			best = o
		}
	}
	if best == nil {
		v.report(Violation{Code: scheduler.ReasonNoOffering, NodeClaim: nc.Name, Message: fmt.Sprintf(
			"%s has no available %s offering in zone %q that satisfies the NodeClaim's requirements", nc.InstanceType, nc.CapacityType, nc.Zone)})
		return
	}
	if best.Price != nc.Price {
		v.report(Violation{Code: scheduler.ReasonNoOffering, NodeClaim: nc.Name, Message: fmt.Sprintf(
			"price %v, but the %s %s offering of %s in %s costs %v", nc.Price, nc.CapacityType, best.ReservationID, nc.InstanceType, nc.Zone, best.Price)})
	}
	c.offering, c.reservation = best, best.ReservationID
}

// claimLabels returns the labels a node launched for the NodeClaim with its
// chosen offering carries.
func (v *verifier) claimLabels(c *vclaim) map[string]string {
	nc := c.nc
	out := map[string]string{}
	if c.chosen != nil {
		maps.Copy(out, v.schema.NormalizeLabels(c.chosen.Labels))
	}
	maps.Copy(out, c.reqs.Labels())
	maps.Copy(out, v.schema.NormalizeLabels(nc.Labels))
	set := func(k, val string) {
		if val != "" {
			out[k] = val
		}
	}
	set(requirements.LabelTopologyZone, nc.Zone)
	set(requirements.LabelCapacityType, nc.CapacityType)
	set(requirements.LabelInstanceType, nc.InstanceType)
	set(requirements.LabelNodePool, nc.NodePool)
	set(requirements.LabelHostname, nc.Name)
	if c.offering != nil {
		set(instancetypes.LabelZoneID, c.offering.ZoneID)
		set(instancetypes.LabelReservationID, c.offering.ReservationID)
	}
	return out
}

// checkClaim checks one NodeClaim on its own.
func (v *verifier) checkClaim(c *vclaim) {
	v.checkOptions(c)
	if c.tmpl != nil {
		v.checkWithinPool(c)
		v.checkTaints(c)
		v.checkMinValues(c)
	}
	v.checkLabels(c)
	v.checkRequests(c)
}

// checkOptions checks every option: labels within the requirements, an
// offering, room for the pods and DaemonSets, sorted by price; and that no
// valid option is cheaper than the chosen offering. Options failing one
// check are reported together, in one violation per check.
func (v *verifier) checkOptions(c *vclaim) {
	nc := c.nc
	var labels, noOffer, small, ports optionFailures
	var prevName string
	prevPrice := math.Inf(-1)
	cheapest, cheapestAt := math.Inf(1), ""
	for _, it := range c.options {
		bad := labels.add(it.Name, v.optionLabels(c, it))
		bad = small.add(it.Name, v.optionFit(c, it)) || bad
		bad = ports.add(it.Name, v.optionPorts(c, it)) || bad
		if len(c.match.offerings(it)) == 0 {
			noOffer.add(it.Name, offeringKeys(c.reqs))
			continue
		}
		o, ok := v.cheapestFor(c, it)
		if !ok {
			continue // its only offerings are reservations other NodeClaims use up
		}
		if o.Price < prevPrice || (o.Price == prevPrice && it.Name < prevName) {
			v.report(Violation{Code: scheduler.ReasonInstanceTypeOptions, NodeClaim: nc.Name, Message: fmt.Sprintf(
				"options are not sorted cheapest first: %s ($%v) is listed after %s ($%v)", it.Name, o.Price, prevName, prevPrice)})
		}
		prevName, prevPrice = it.Name, o.Price
		if !bad && o.Price < cheapest {
			cheapest, cheapestAt = o.Price, fmt.Sprintf("%s (%s in %s)", it.Name, o.CapacityType, o.Zone)
		}
	}
	at := Violation{NodeClaim: nc.Name}
	labels.report(v, with(at, scheduler.ReasonNodeClaimRequirements, "outside the NodeClaim's requirements"))
	noOffer.report(v, with(at, scheduler.ReasonNoOffering, "without an available offering that satisfies the NodeClaim's requirements"))
	small.report(v, with(at, scheduler.ReasonInsufficient, "too small for the NodeClaim's pods next to the DaemonSets that run there"))
	ports.report(v, with(at, scheduler.ReasonHostPort, "running a DaemonSet whose host ports clash with the pods'"))
	if cheapest < nc.Price {
		v.report(with(at, scheduler.ReasonNoOffering, "the chosen %s at $%v is not the cheapest: option %s at $%v satisfies the requirements",
			nc.InstanceType, nc.Price, cheapestAt, cheapest))
	}
}

// optionFailures collects the options that fail one check, with why.
type optionFailures struct {
	names []string
	first string
}

// add records a failed option; it reports whether why says it failed.
func (f *optionFailures) add(name, why string) bool {
	if why == "" {
		return false
	}
	if len(f.names) == 0 {
		f.first = name + ": " + why
	}
	f.names = append(f.names, name)
	return true
}

// report reports the failed options as one violation: "N option(s) ...:
// a, b, c and K more (first: why)".
func (f *optionFailures) report(v *verifier, vio Violation) {
	if len(f.names) == 0 {
		return
	}
	const shown = 8
	list := strings.Join(f.names[:min(len(f.names), shown)], ", ")
	if len(f.names) > shown {
		list += fmt.Sprintf(" and %d more", len(f.names)-shown)
	}
	vio.Message = fmt.Sprintf("%d option(s) %s: %s (%s)", len(f.names), vio.Message, list, f.first)
	v.report(vio)
}

// optionLabels says how the option's labels break the requirements on the
// keys the catalog's types carry ("" when they do not).
func (v *verifier) optionLabels(c *vclaim, it *instancetypes.InstanceType) string {
	for r := range c.reqs.All() {
		k := r.Key()
		if !v.labelKeys[k] {
			continue
		}
		if val, has := it.Labels[k]; !r.Matches(val, has) {
			if !has {
				return fmt.Sprintf("no %s label, outside %s", k, r)
			}
			return fmt.Sprintf("%s=%s, outside %s", k, val, r)
		}
	}
	return ""
}

// optionFit says what the option lacks to hold the pods next to the
// DaemonSets that run on it ("" when it holds them).
func (v *verifier) optionFit(c *vclaim, it *instancetypes.InstanceType) string {
	ds := v.daemons(c.tmpl, it)
	short := c.requests.short(ds.usable)
	for name, x := range ds.usable {
		if x < 0 && !slices.Contains(short, name) {
			short = append(short, name)
		}
	}
	if len(short) == 0 {
		return ""
	}
	slices.Sort(short)
	msg := fmt.Sprintf("the pods need %s, it has %s", c.requests.describe(short), ds.usable.describe(short))
	if len(ds.names) > 0 {
		msg += fmt.Sprintf(" left after DaemonSets %v", ds.names)
	}
	return msg
}

// optionPorts says which pod's host port clashes with a DaemonSet that runs
// on the option ("" when none does).
func (v *verifier) optionPorts(c *vclaim, it *instancetypes.InstanceType) string {
	ds := v.daemons(c.tmpl, it)
	for _, p := range c.pods {
		if a, b, clash := nodepool.HostPortClash(p.ports, ds.ports); clash {
			return fmt.Sprintf("pod %s's host port %s clashes with %s of DaemonSets %v", p.name, a, b, ds.names)
		}
	}
	return ""
}

// cheapestFor returns the cheapest available offering of it that satisfies
// the NodeClaim's requirements, leaving out reserved offerings whose
// reservation the plan's other NodeClaims use up (for price comparisons:
// such an offering exists but this NodeClaim cannot have it).
func (v *verifier) cheapestFor(c *vclaim, it *instancetypes.InstanceType) (instancetypes.Offering, bool) {
	var best *instancetypes.Offering
	for _, o := range c.match.offerings(it) {
		if v.reservationTaken(c, o.ReservationID) {
			continue
		}
		if best == nil || o.Price < best.Price {
			best = o
		}
	}
	if best == nil {
		return instancetypes.Offering{}, false
	}
	return *best, true
}

func (v *verifier) reservationTaken(c *vclaim, id string) bool {
	if id == "" {
		return false
	}
	used := v.resUsed[id]
	if c.reservation == id {
		used--
	}
	return used >= v.resCap[id]
}

// offered returns, for the zone, capacity-type and zone-ID keys, the
// values of the available offerings of the options that satisfy the
// requirements ("" for an offering without zone ID). Computed once.
func (v *verifier) offered(c *vclaim) map[string][]string {
	if c.offers != nil {
		return c.offers
	}
	var zones, cts, ids []string
	add := func(set []string, val string) []string {
		if slices.Contains(set, val) { // a handful of values: a scan beats a map
			return set
		}
		return append(set, val)
	}
	for _, it := range c.options {
		for _, o := range c.match.offerings(it) {
			zones, cts, ids = add(zones, o.Zone), add(cts, o.CapacityType), add(ids, o.ZoneID)
		}
	}
	c.offers = map[string][]string{requirements.LabelTopologyZone: zones, requirements.LabelCapacityType: cts, instancetypes.LabelZoneID: ids}
	return c.offers
}

// vmatcher matches offerings against the requirements on the keys an
// offering decides: zone, capacity type, zone ID and reservation ID (a key
// the offering lacks must allow absence). NodeClaims with the same
// requirements on those keys share one, and its per-type results.
type vmatcher struct {
	zone, capacityType, zoneID, reservationID requirements.Requirement
	byType                                    map[*instancetypes.InstanceType][]*instancetypes.Offering
}

func newVMatcher(reqs requirements.Requirements) *vmatcher {
	return &vmatcher{zone: reqs.Get(requirements.LabelTopologyZone), capacityType: reqs.Get(requirements.LabelCapacityType),
		zoneID: reqs.Get(instancetypes.LabelZoneID), reservationID: reqs.Get(instancetypes.LabelReservationID),
		byType: map[*instancetypes.InstanceType][]*instancetypes.Offering{}}
}

// matcherFor returns the shared matcher of reqs' offering keys.
func (v *verifier) matcherFor(reqs requirements.Requirements) *vmatcher {
	fp := reqs.Without(slices.DeleteFunc(reqs.Keys(), func(k string) bool {
		return k == requirements.LabelTopologyZone || k == requirements.LabelCapacityType || k == instancetypes.LabelZoneID || k == instancetypes.LabelReservationID
	})...).Fingerprint()
	if m, ok := v.matchers[fp]; ok {
		return m
	}
	m := newVMatcher(reqs)
	v.matchers[fp] = m
	return m
}

func (m *vmatcher) matches(o *instancetypes.Offering) bool {
	return m.zone.Matches(o.Zone, true) && m.capacityType.Matches(o.CapacityType, true) &&
		m.zoneID.Matches(o.ZoneID, o.ZoneID != "") && m.reservationID.Matches(o.ReservationID, o.ReservationID != "")
}

// offerings returns the available offerings of it that match, in catalog
// order (cheapest first).
func (m *vmatcher) offerings(it *instancetypes.InstanceType) []*instancetypes.Offering {
	if out, ok := m.byType[it]; ok {
		return out
	}
	var out []*instancetypes.Offering
	for i := range it.Offerings {
		if o := &it.Offerings[i]; !o.Unavailable && m.matches(o) {
			out = append(out, o)
		}
	}
	m.byType[it] = out
	return out
}

// effective returns what the NodeClaim allows on key: its requirement (an
// undefined key reads as Any when well-known, DoesNotExist when custom)
// narrowed to the values its options can launch with.
func (v *verifier) effective(c *vclaim, key string) requirements.Requirement {
	if r, ok := c.eff[key]; ok {
		return r
	}
	var r requirements.Requirement
	switch {
	case c.reqs.Has(key):
		r = c.reqs.Get(key)
	case v.schema.IsWellKnown(key):
		r = requirements.Any(key)
	default:
		r = requirements.DoesNotExist(key)
	}
	if vals, absent, ok := v.launchValues(c, key); ok && len(c.options) > 0 {
		switch {
		case len(vals) == 0 && absent:
			r = r.Intersect(requirements.DoesNotExist(key))
		case len(vals) > 0 && !absent:
			r = r.Intersect(requirements.In(key, vals...))
		}
	}
	c.eff[key] = r
	return r
}

// launchValues returns the values key can take on a node launched from the
// NodeClaim's options, and whether some launch lacks the key; ok is false
// when the options do not decide the key (a custom label).
func (v *verifier) launchValues(c *vclaim, key string) (vals []string, absent, ok bool) {
	set := map[string]bool{}
	note := func(val string) {
		if val == "" {
			absent = true
		} else {
			set[val] = true
		}
	}
	switch {
	case key == requirements.LabelTopologyZone || key == requirements.LabelCapacityType || key == instancetypes.LabelZoneID:
		for _, val := range v.offered(c)[key] {
			note(val)
		}
	case v.labelKeys[key]:
		for _, it := range c.options {
			// An empty value is a value (a metal type's hypervisor is ""):
			// only a type without the label lacks the key.
			if val, has := it.Labels[key]; has {
				set[val] = true
			} else {
				absent = true
			}
		}
	default:
		return nil, false, false
	}
	return slices.Sorted(maps.Keys(set)), absent, true
}

// checkWithinPool checks that on every key the NodePool constrains, the
// NodeClaim allows nothing the NodePool does not.
func (v *verifier) checkWithinPool(c *vclaim) {
	for r := range c.tmpl.Requirements.All() {
		eff := v.effective(c, r.Key())
		if !eff.Intersect(r).SameSet(eff) {
			v.report(Violation{Code: scheduler.ReasonNodeClaimRequirements, NodeClaim: c.nc.Name, NodePool: c.tmpl.Name, Message: fmt.Sprintf(
				"on %s the NodeClaim allows %s, outside its NodePool's %s", r.Key(), eff, r)})
		}
	}
}

// checkTaints checks that the NodeClaim carries its NodePool's taints and
// startup taints.
func (v *verifier) checkTaints(c *vclaim) {
	render := func(ts []corev1.Taint) []string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = t.ToString()
		}
		slices.Sort(out)
		return out
	}
	for _, pair := range []struct {
		what      string
		got, want []corev1.Taint
	}{{"taints", c.nc.Taints, c.tmpl.Taints}, {"startup taints", c.nc.StartupTaints, c.tmpl.StartupTaints}} {
		got, want := render(pair.got), render(pair.want)
		if !slices.Equal(got, want) {
			v.report(Violation{Code: scheduler.ReasonNodeClaimTaints, NodeClaim: c.nc.Name, NodePool: c.tmpl.Name, Message: fmt.Sprintf(
				"%s %v, but its NodePool's are %v", pair.what, got, want)})
		}
	}
}

// checkLabels checks the NodeClaim's labels against its requirements, its
// chosen offering and its NodePool's template labels.
func (v *verifier) checkLabels(c *vclaim) {
	nc := c.nc
	bad := func(format string, args ...any) {
		v.report(Violation{Code: scheduler.ReasonNodeClaimLabels, NodeClaim: nc.Name, Message: fmt.Sprintf(format, args...)})
	}
	labels := v.schema.NormalizeLabels(nc.Labels)
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		val := labels[k]
		if eff := v.effective(c, k); !eff.Has(val) {
			bad("label %s=%s is outside the requirement %s", k, val, eff)
		}
		for _, fixed := range [][2]string{{requirements.LabelTopologyZone, nc.Zone}, {requirements.LabelCapacityType, nc.CapacityType}, {requirements.LabelInstanceType, nc.InstanceType}} {
			if k == fixed[0] && val != fixed[1] {
				bad("label %s=%s, but the chosen offering has %s", k, val, fixed[1])
			}
		}
	}
	if c.tmpl != nil {
		for _, k := range slices.Sorted(maps.Keys(c.tmpl.Labels)) {
			if got, ok := labels[k]; !ok || got != c.tmpl.Labels[k] {
				bad("the NodePool's label %s=%s is missing", k, c.tmpl.Labels[k])
			}
		}
	}
	pinned := c.reqs.Labels()
	for _, k := range slices.Sorted(maps.Keys(pinned)) {
		if got, ok := labels[k]; !ok || got != pinned[k] {
			bad("the requirements pin %s to %s, but the labels do not carry it", k, pinned[k])
		}
	}
	for r := range c.reqs.All() {
		if k := r.Key(); !v.schema.IsWellKnown(k) && r.RequiresPresent() {
			if _, ok := labels[k]; !ok {
				bad("custom label %s must be present (%s) but has no value", k, r)
			}
		}
	}
}

// openedKeys returns the keys p excludes values of (NotIn, even with
// Exists or bounds: what Karpenter reads as NotIn), in a required
// alternative or a preferred node-affinity term (Karpenter holds a pod's
// kept preferences as requirements, and they become the NodeClaim's).
func (v *verifier) openedKeys(p *vpod) []string {
	var out []string
	for _, alt := range p.alts {
		for r := range alt.All() {
			if r.ExcludesValues() {
				out = append(out, r.Key())
			}
		}
	}
	if a := p.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			for _, e := range t.Preference.MatchExpressions {
				if e.Operator == corev1.NodeSelectorOpNotIn && len(e.Values) > 0 {
					out = append(out, v.schema.Normalize(e.Key))
				}
			}
		}
	}
	return out
}

// checkRequests checks Requests = pods + DaemonSets on the chosen type.
func (v *verifier) checkRequests(c *vclaim) {
	if c.chosen == nil {
		return
	}
	want := c.requests.clone()
	ds := v.daemons(c.tmpl, c.chosen)
	want.add(ds.requests)
	if got := vresOf(c.nc.Requests); !equalRes(got, want) {
		msg := fmt.Sprintf("requests %v, want the pods' %v", got, c.requests)
		if len(ds.names) > 0 {
			msg += fmt.Sprintf(" plus DaemonSets %v on %s %v = %v", ds.names, c.chosen.Name, ds.requests, want)
		}
		v.report(Violation{Code: scheduler.ReasonNodeClaimRequests, NodeClaim: c.nc.Name, Message: msg})
	}
}

// checkMinValues checks, under the Strict policy, that the options offer
// as many distinct values as every minValues of the NodePool asks.
func (v *verifier) checkMinValues(c *vclaim) {
	if v.in.MinValues != scheduler.MinValuesStrict {
		return
	}
	for r := range c.tmpl.Requirements.All() {
		if r.MinValues() == 0 {
			continue
		}
		vals, _, ok := v.launchValues(c, r.Key())
		if !ok && r.Key() != requirements.LabelInstanceType {
			ok = true // no instance type carries the key: the options offer none of its values
		}
		if ok && len(vals) < r.MinValues() {
			v.report(Violation{Code: scheduler.ReasonMinValues, NodeClaim: c.nc.Name, NodePool: c.tmpl.Name, Message: fmt.Sprintf(
				"the options offer %d value(s) of %s %v, the NodePool asks minValues %d", len(vals), r.Key(), vals, r.MinValues())})
		}
	}
}

// checkLimits checks every limited NodePool that gets NodeClaims with the
// limits rule (nodepool.Exceeded): the NodeClaims together, each at its
// largest option and counting one node, fit in what the limits leave after
// the pool's existing nodes.
func (v *verifier) checkLimits() {
	for _, name := range slices.Sorted(maps.Keys(v.tmpls)) {
		t := v.tmpls[name]
		if len(t.Limits) == 0 || len(t.claims) == 0 {
			continue
		}
		launched := corev1.ResourceList{}
		for _, c := range t.claims {
			addList(launched, maxCapacity(c.options))
		}
		launched[nodepool.ResourceNodes] = *resource.NewQuantity(int64(len(t.claims)), resource.DecimalSI)
		for _, rn := range nodepool.Exceeded(t.Remaining(t.existing), launched) {
			existing, limit := t.existing[rn], t.Limits[rn]
			total := existing.DeepCopy()
			total.Add(launched[rn])
			v.report(Violation{Code: scheduler.ReasonLimits, NodePool: name, Message: fmt.Sprintf(
				"%s: existing nodes (%s) plus %d NodeClaim(s) at their largest option use %s, over the limit %s",
				rn, existing.String(), len(t.claims), total.String(), limit.String())})
		}
	}
}

// maxCapacity is the per-resource maximum capacity over instance types.
func maxCapacity(types []*instancetypes.InstanceType) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, it := range types {
		for name, q := range it.Capacity {
			if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	return out
}

// checkReservations checks that no reservation is used more often than its
// capacity.
func (v *verifier) checkReservations() {
	for _, id := range slices.Sorted(maps.Keys(v.resUsed)) {
		if v.resUsed[id] <= v.resCap[id] {
			continue
		}
		var names []string
		for _, c := range v.claims {
			if c.reservation == id {
				names = append(names, c.nc.Name)
			}
		}
		slices.SortFunc(names, cmp.Compare)
		v.report(Violation{Code: scheduler.ReasonReservation, Message: fmt.Sprintf(
			"reservation %s holds %d instance(s), but %d NodeClaims use it: %v", id, v.resCap[id], v.resUsed[id], names)})
	}
}

// offeringKeys renders the requirements on the keys an offering decides.
func offeringKeys(reqs requirements.Requirements) string {
	var parts []string
	for _, k := range []string{requirements.LabelTopologyZone, requirements.LabelCapacityType, instancetypes.LabelZoneID, instancetypes.LabelReservationID} {
		if reqs.Has(k) {
			parts = append(parts, reqs.Get(k).String())
		}
	}
	if len(parts) == 0 {
		return "no offering constraint"
	}
	return strings.Join(parts, ", ")
}
