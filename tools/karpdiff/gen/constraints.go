package gen

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// selectorKey is a key a pod may select on, with the values it takes.
type selectorKey struct {
	key     string
	values  []string
	numeric bool
}

// selectorKeys are the keys pods select on: zone, capacity type, arch,
// instance type, the catalog's labels and the NodePools' template labels.
func (b *builder) selectorKeys() []selectorKey {
	v := b.v
	keys := []selectorKey{
		{key: corev1.LabelTopologyZone, values: v.zones},
		{key: "karpenter.sh/capacity-type", values: v.capacityTypes},
		{key: corev1.LabelInstanceTypeStable, values: v.typeNames},
	}
	for _, d := range v.labels {
		keys = append(keys, selectorKey{key: d.key, values: d.values, numeric: d.numeric})
	}
	var teams []string
	for _, p := range b.pools {
		if t, ok := p.labels["team"]; ok && !slices.Contains(teams, t) {
			teams = append(teams, t)
		}
	}
	if len(teams) > 0 {
		slices.Sort(teams)
		keys = append(keys, selectorKey{key: "team", values: teams})
	}
	return keys
}

// nodeSelector draws a nodeSelector of one or two keys.
func (b *builder) nodeSelector() map[string]string {
	keys := b.selectorKeys()
	out := map[string]string{}
	for range b.g.between(1, 2) {
		k := pick(b.g, keys)
		out[k.key] = pick(b.g, k.values)
	}
	return out
}

// expression draws one node-selector requirement with any operator.
func (b *builder) expression() corev1.NodeSelectorRequirement {
	g := b.g
	k := pick(g, b.selectorKeys())
	if k.numeric && g.chance(0.6) {
		op, val := b.bound(labelDomain{key: k.key, values: k.values, numeric: true})
		return corev1.NodeSelectorRequirement{Key: k.key, Operator: op, Values: []string{val}}
	}
	switch g.weighted(45, 25, 15, 15) {
	case 0:
		return corev1.NodeSelectorRequirement{Key: k.key, Operator: corev1.NodeSelectorOpIn, Values: subset(g, k.values, 3)}
	case 1:
		return corev1.NodeSelectorRequirement{Key: k.key, Operator: corev1.NodeSelectorOpNotIn, Values: subset(g, k.values, 2)}
	case 2:
		return corev1.NodeSelectorRequirement{Key: k.key, Operator: corev1.NodeSelectorOpExists}
	default:
		return corev1.NodeSelectorRequirement{Key: k.key, Operator: corev1.NodeSelectorOpDoesNotExist}
	}
}

// term draws a node-selector term of one or two requirements.
func (b *builder) term() corev1.NodeSelectorTerm {
	var t corev1.NodeSelectorTerm
	for range b.g.between(1, 2) {
		t.MatchExpressions = append(t.MatchExpressions, b.expression())
	}
	return t
}

// nodeAffinity draws required (one to three OR'd terms) and/or preferred
// (weighted terms) node affinity.
func (b *builder) nodeAffinity(required, preferred bool) *corev1.NodeAffinity {
	na := &corev1.NodeAffinity{}
	if required {
		ns := &corev1.NodeSelector{}
		for range b.g.weighted(5, 3, 2) + 1 {
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, b.term())
		}
		na.RequiredDuringSchedulingIgnoredDuringExecution = ns
	}
	if preferred {
		for range b.g.between(1, 2) {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: int32(b.g.between(1, 100)), Preference: b.term()})
		}
	}
	return na
}

// spreadKey draws a topology key: zone, hostname, capacity type, or a
// custom key (a catalog label or a template label).
func (b *builder) spreadKey() string {
	g := b.g
	switch g.weighted(50, 30, 10, 10) {
	case 0:
		return corev1.LabelTopologyZone
	case 1:
		return corev1.LabelHostname
	case 2:
		return "karpenter.sh/capacity-type"
	}
	if cl := b.v.customLabels(); len(cl) > 0 && g.chance(0.6) {
		return pick(g, cl).key
	}
	return "team"
}

// spread draws a topology spread constraint over pods matching selector,
// with every optional field sometimes set.
func (b *builder) spread(selector map[string]string, matchLabelKeys []string) corev1.TopologySpreadConstraint {
	g := b.g
	c := corev1.TopologySpreadConstraint{
		MaxSkew:           int32(g.weighted(6, 3, 1) + 1),
		TopologyKey:       b.spreadKey(),
		WhenUnsatisfiable: pick(g, []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.DoNotSchedule, corev1.ScheduleAnyway}),
		LabelSelector:     &metav1.LabelSelector{MatchLabels: selector},
	}
	if c.WhenUnsatisfiable == corev1.DoNotSchedule && g.chance(0.15) {
		md := int32(g.between(2, 4))
		c.MinDomains = &md
	}
	policies := []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}
	if g.chance(0.15) {
		p := pick(g, policies)
		c.NodeAffinityPolicy = &p
	}
	if g.chance(0.15) {
		p := pick(g, policies)
		c.NodeTaintsPolicy = &p
	}
	if len(matchLabelKeys) > 0 && g.chance(0.3) {
		c.MatchLabelKeys = matchLabelKeys
	}
	return c
}

// affinityTerm draws a pod-affinity term on app=target by hostname or zone.
func (b *builder) affinityTerm(target string) corev1.PodAffinityTerm {
	key := corev1.LabelHostname
	if b.g.chance(0.45) {
		key = corev1.LabelTopologyZone
	}
	return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": target}}, TopologyKey: key}
}
