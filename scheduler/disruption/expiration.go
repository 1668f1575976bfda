package disruption

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// expiration deletes the node that expired first (now − creation ≥
// expireAfter). Karpenter's expiration is forceful: no budget, no
// simulation gate; the node goes and its pods take the NodeClaims a
// simulation finds (any number), or stay pending when nothing fits. Only
// a drain that cannot finish holds it: a pod with an active do-not-disrupt
// or a PodDisruptionBudget allowing nothing, without a
// terminationGracePeriod to end the wait (whys records it).
func (m *model) expiration(whys map[*node]*why) (*proposal, error) {
	type due struct {
		n  *node
		at time.Time
	}
	var dues []due
	for _, n := range m.nodes {
		if at, ok := m.expiry(n); ok && !m.now.Before(at) && n.initialized && !n.deleting {
			dues = append(dues, due{n, at})
		}
	}
	slices.SortFunc(dues, func(a, b due) int { return cmp.Or(a.at.Compare(b.at), strings.Compare(a.n.name, b.n.name)) })
	for _, d := range dues {
		c, w := m.newCandidate(d.n, eventual)
		if w != nil {
			if w.code == KeepPodDoNotDisrupt || w.code == KeepPDB {
				whys[d.n] = keep(KeepBlockedDrain, Details{Pod: w.d.Pod, PodError: w.message()})
			}
			continue
		}
		sim, err := m.simulate(simInput{cands: []*candidate{c}, method: MethodExpiration})
		if err != nil {
			return nil, err
		}
		p := &proposal{method: MethodExpiration, reason: ReasonExpired, cands: []*candidate{c}, sim: sim}
		for _, nc := range sim.res.NodeClaims {
			r, err := m.newReplacement(nc)
			if err != nil {
				return nil, err
			}
			p.repls = append(p.repls, r)
		}
		return p, nil
	}
	return nil, nil
}
