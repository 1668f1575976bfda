package topology

import "github.com/nodeplan/nodeplan/requirements"

// DecidedDomains holds, for one requirement set, the domain index of each
// key the set decides (one value), or that it decides none, once a tracker
// has looked the key up (see Host.Decided). The solver checks and counts
// pods against the same few requirement sets millions of times; a set's
// decided domains never change, so each is looked up once per key. Its zero
// value holds nothing yet. It is written by the tracker: one requirement
// set's slots serve one goroutine at a time.
type DecidedDomains struct {
	slots []decidedSlot
}

// decidedSlot is the answer for one key (its state in one tracker).
type decidedSlot struct {
	ks      *keyState
	d       int32
	decided bool
}

// decided reports the domain of ks that h's requirements decide (a single
// value), from h's slots when they hold it. Only for a NodeClaim (h.Node
// nil) and a key other than hostname.
func (h *Host) decided(ks *keyState) (int32, bool) {
	dd := h.Decided
	if dd == nil {
		return decidedIn(ks, h.Requirements.Get(ks.key))
	}
	for i := range dd.slots {
		if sl := &dd.slots[i]; sl.ks == ks {
			return sl.d, sl.decided
		}
	}
	d, ok := decidedIn(ks, h.Requirements.Get(ks.key))
	dd.slots = append(dd.slots, decidedSlot{ks: ks, d: d, decided: ok})
	return d, ok
}

// decidedIn is the domain of ks that requirement r decides, if any.
func decidedIn(ks *keyState, r requirements.Requirement) (int32, bool) {
	if r.IsFinite() && len(r.Values()) == 1 {
		return ks.intern(r.Values()[0]), true
	}
	return 0, false
}
