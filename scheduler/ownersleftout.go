package scheduler

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// Owners left out. A pod whose required pod affinity selects the pods of
// one class only binds after one of them; when that class is the single
// owner of a spread that counts the follower, the spread never counts it
// (topology's markBindsAfter). The rule reads the class's size, since any
// of its pods may bind before the follower: with two replicas of the owner,
// the second may bind after the follower and count it. When the plan
// places one replica of such a class and leaves the others unplaced, a
// follower its spread refuses for that reason could have joined: seed
// 31690, a two-replica Deployment spreading tier=batch over zones (one
// replica placed, the other fits nowhere), and a tier=batch pod that needs
// a replica's zone, left out by the owner's skew where Karpenter's plan
// binds it. Solve then plans once more without the unplaced replicas of
// such classes (they keep the reason the first plan gave), and that plan
// replaces the first when it places more pods.

// orOwnersLeftOut returns res, or the plan of the input without the
// unplaced replicas of spread-owning classes that have exactly one replica
// placed, with those replicas reported as res reported them, when some
// follower was refused by a spread and that plan places more pods.
func (s *solver) orOwnersLeftOut(pods []*corev1.Pod, nodePools []nodepool.NodePool, catalog instancetypes.Catalog, cfg config, res Result) (Result, error) {
	if cfg.noRelaxations || cfg.ownersLeftOut || len(s.pending) > fallbackMaxPods || res.Summary.Scheduled == len(s.pending) || !s.followerRefused(res) {
		return res, nil
	}
	out := map[string]bool{}
	for _, c := range s.classes {
		if c.topo == nil || len(c.pods) < 2 || !ownsZonalSpread(c.topo) {
			continue
		}
		placed := 0
		for _, pp := range c.pods {
			if placedOn(pp) {
				placed++
			}
		}
		if placed != 1 {
			continue
		}
		for _, pp := range c.pods {
			if !placedOn(pp) {
				out[pp.name] = true
			}
		}
	}
	if len(out) == 0 {
		return res, nil
	}
	kept := slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool { return out[p.Namespace+"/"+p.Name] })
	alt := cfg
	alt.ownersLeftOut = true
	v, err := planned(kept, nodePools, catalog, alt)
	if err != nil {
		return Result{}, err
	}
	if v.finalPlaced() <= res.Summary.Scheduled {
		return res, nil
	}
	next := v.result()
	for _, pe := range res.PodErrors {
		if out[pe.Pod] {
			next.PodErrors = append(next.PodErrors, pe)
		}
	}
	slices.SortFunc(next.PodErrors, func(a, b PodError) int { return cmp.Compare(a.Pod, b.Pod) })
	next.Summary.Pods += len(out)
	return next, nil
}

// ownsZonalSpread reports whether the pod carries a DoNotSchedule spread
// on a key other than hostname.
func ownsZonalSpread(p *topology.Pod) bool {
	return slices.ContainsFunc(p.Terms, func(t topology.Term) bool {
		return t.Kind == topology.Spread && t.Required && t.Key != requirements.LabelHostname
	})
}

// followerRefused reports whether res leaves unplaced, for a spread, a pod
// with a required pod affinity.
func (s *solver) followerRefused(res Result) bool {
	refused := map[string]bool{}
	for _, pe := range res.PodErrors {
		if pe.Code == ReasonTopologySpread {
			refused[pe.Pod] = true
		}
	}
	for _, pp := range s.pending {
		if refused[pp.name] && pp.cls.topo != nil && pp.cls.topo.FollowsPods() {
			return true
		}
	}
	return false
}
