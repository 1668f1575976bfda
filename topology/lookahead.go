package topology

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// A check pins a NodeClaim key by key, in key order, each to the domain
// its rules and the ranker prefer given the domains already pinned. That
// greedy order can pin an earlier key to a domain where no later key has an
// instance type for the pod: a capacity type chosen first (spot is cheaper)
// leaves no zone the pod's anti-affinity allows (that zone offers only
// on-demand), though another capacity type would have. When the greedy
// pass fails so, and no preference of the pod enforced at this level chose
// the earlier keys (groups that count the pod pinned them, or a required
// rule of its own that allows several domains left the choice to price),
// checkAhead chooses again, each key ranked together with the domains the
// later keys' rules allow.
//
// A key where the pod enforces no rule and only groups that no required
// term owns count it (a relaxed ScheduleAnyway spread of its own) may have
// no domain at all with an instance type for the pod: with minValues 2 on
// the instance type, a label only one type carries (its family) pins no
// claim. checkAhead then leaves the claim open on that key: a soft rule
// never makes a pod unplaceable. The pod is counted there only once its
// claim is decided on the key; the groups it misses only weigh
// preferences.

// keyCands is one key of a check and the domains its rules allow there.
type keyCands struct {
	i      int
	cands  []int32
	single bool
}

// retryAhead is the refusal of a check whose greedy pass found no domain
// with an instance type on key ks (cands: the domains its rules allow)
// after pinning earlier keys (pins): the pins checkAhead finds instead,
// or that refusal.
func (t *Tracker) retryAhead(p *Pod, active Active, h *Host, rank Ranker, scope Scope, pins []requirements.Requirement, ks *keyState, cands []int32) ([]requirements.Requirement, *Violation) {
	refusal := t.noTypeIn(p, active, ks, cands)
	if !h.LookAhead || rank == nil || (len(pins) == 0 && !p.softCounted(ks.key, active)) {
		return nil, refusal // no earlier choice to make otherwise
	}
	for _, pin := range pins {
		if p.prefersOn(pin.Key(), active) {
			// A preference of the pod enforced at this level chose that
			// domain: another is a choice of another order of
			// relaxation, not of this check. A required rule of its own
			// that allows several domains left the choice among them to
			// the ranker, which this check may revisit.
			return nil, refusal
		}
	}
	ahead, ok := t.checkAhead(p, active, h, rank, scope)
	if !ok {
		return nil, refusal
	}
	return ahead, nil
}

// checkAhead is CheckScope's choice of domains, each key ranked with the
// domains chosen for the earlier keys and the domains the rules allow on
// the later ones. ok is false when some key still has no domain with an
// instance type (or a rule refuses the host, which the greedy pass would
// have reported first).
func (t *Tracker) checkAhead(p *Pod, active Active, h *Host, rank Ranker, scope Scope) ([]requirements.Requirement, bool) {
	keys, ok := t.allowedDomains(p, active, h, scope)
	if !ok {
		return nil, false
	}
	var pins []requirements.Requirement
	for n, kc := range keys {
		if kc.single {
			continue
		}
		ks := p.keyStates[kc.i]
		with := slices.Clone(pins)
		for _, later := range keys[n+1:] {
			if !later.single {
				with = append(with, domainsPin(p.keyStates[later.i], later.cands))
			}
		}
		pin, found := t.pinAhead(p, active, h, ks, kc.i, kc.cands, with, rank)
		switch {
		case found:
			pins = append(pins, pin)
		case !p.softCounted(ks.key, active):
			return nil, false
		}
	}
	if h.Node == nil && scope != HostnameOnly {
		pins = t.filterPins(p, h, pins, rank)
	}
	return pins, true
}

// pinAhead is the pin of key ks (the pod's i-th key) among the domains
// cands, ranked with the pins with: false when none has an instance type.
func (t *Tracker) pinAhead(p *Pod, active Active, h *Host, ks *keyState, i int, cands []int32, with []requirements.Requirement, rank Ranker) (requirements.Requirement, bool) {
	if p.open[i] && h.Node == nil {
		return t.openPin(ks, cands, with, rank)
	}
	d, ok := t.choose(p, active, ks, cands, with, rank)
	if !ok {
		return requirements.Requirement{}, false
	}
	return requirements.In(ks.key, ks.values[d]), true
}

// allowedDomains lists the keys of the check in scope that the host leaves
// with candidate domains, each with the domains the pod's rules allow
// there (copies: candidates and filter share the tracker's scratch).
func (t *Tracker) allowedDomains(p *Pod, active Active, h *Host, scope Scope) ([]keyCands, bool) {
	var keys []keyCands
	for i, key := range p.keys {
		if scope.skips(key) || t.skipsKey(p, i, active, h) {
			continue
		}
		ks := p.keyStates[i]
		cands, single := t.candidates(ks, h)
		if len(cands) == 0 {
			// The node will not have the key (the greedy pass may have
			// stopped before it): as CheckScope.
			if t.missingKey(p, active, key) != nil {
				return nil, false
			}
			continue
		}
		cands, v := t.filter(p, active, ks, cands, h)
		if v != nil {
			return nil, false
		}
		keys = append(keys, keyCands{i: i, cands: slices.Clone(cands), single: single})
	}
	return keys, true
}

// domainsPin is the requirement that the key take one of domains ds.
func domainsPin(ks *keyState, ds []int32) requirements.Requirement {
	vals := make([]string, 0, len(ds))
	for _, d := range ds {
		vals = append(vals, ks.values[d])
	}
	return requirements.In(ks.key, vals...)
}

// enforcesOn reports whether one of the pod's enforced terms (required, or
// preferred and active) is on key.
func (p *Pod) enforcesOn(key string, active Active) bool {
	for i := range p.Terms {
		if term := &p.Terms[i]; term.Key == key && (term.Required || active(i)) {
			return true
		}
	}
	return false
}

// prefersOn reports whether one of the pod's preferred terms enforced at
// this level (active) is on key.
func (p *Pod) prefersOn(key string, active Active) bool {
	for i := range p.Terms {
		if term := &p.Terms[i]; term.Key == key && !term.Required && active(i) {
			return true
		}
	}
	return false
}

// softCounted reports whether the pod enforces no term on key and every
// group that counts it there is owned by preferred terms only.
func (p *Pod) softCounted(key string, active Active) bool {
	if p.enforcesOn(key, active) {
		return false
	}
	for _, g := range p.matched {
		if g.ks.key == key && g.required {
			return false
		}
	}
	return true
}
