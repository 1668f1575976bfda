package disruption

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Drift reasons, in the order Karpenter checks them (D.3); DriftCondition
// is a Drifted=True condition of the input whose cause the plan cannot
// compute (a changed image, say).
const (
	DriftNodePool      = "NodePoolDrifted"
	DriftRequirements  = "RequirementsDrifted"
	DriftInstanceType  = "InstanceTypeNotFound"
	DriftCondition     = "Drifted"
	labelEC2NodeClass  = "karpenter.k8s.aws/ec2nodeclass"
	instanceTypeMinAge = time.Hour
)

// driftState says why and since when a node is drifted.
type driftState struct {
	reason string
	since  time.Time
}

// detectDrift computes whether a managed node no longer matches its
// NodePool (what changing the NodePool would roll), or carries a
// Drifted=True condition:
//
//   - NodePoolDrifted: the NodeClaim's karpenter.sh/nodepool-hash differs
//     from the NodePool's (both annotated, same hash version); without
//     hashes, a template label the node lacks or has with another value, a
//     template taint the node lacks, or (for a NodeClaim of the input)
//     template annotations it lacks, or taints, startup taints,
//     expireAfter, terminationGracePeriod or nodeClassRef that differ from
//     the template's;
//   - RequirementsDrifted: the node's labels no longer satisfy the NodePool's
//     requirements (a narrowed, changed or added requirement drifts, a
//     widened one does not);
//   - InstanceTypeNotFound: past an hour of age, the node has no
//     instance-type label, or the catalog has no offering of its type in
//     its zone and capacity type (a reserved node accepts an on-demand
//     offering).
//
// Since is the condition's transition time when the input has one, else now.
func (m *model) detectDrift(nd *node) *driftState {
	if !nd.managed || nd.pool == nil {
		return nil
	}
	since := m.now
	c := nd.claim.condition(ConditionDrifted)
	if c != nil && c.Status == metav1.ConditionTrue && !c.LastTransitionTime.IsZero() {
		since = c.LastTransitionTime.Time
	}
	for _, r := range []string{m.templateDrift(nd), m.requirementsDrift(nd), m.instanceTypeDrift(nd)} {
		if r != "" {
			return &driftState{reason: r, since: since}
		}
	}
	if c != nil && c.Status == metav1.ConditionTrue {
		return &driftState{reason: DriftCondition, since: since}
	}
	return nil
}

func (m *model) templateDrift(nd *node) string {
	np := nd.pool.np
	ph, okP := np.Annotations[AnnotationNodePoolHash]
	pv, okPV := np.Annotations[AnnotationNodePoolHashVersion]
	ch, okC := nd.claim.Annotations[AnnotationNodePoolHash]
	cv, okCV := nd.claim.Annotations[AnnotationNodePoolHashVersion]
	if okP && okPV && okC && okCV {
		if pv == cv && ph != ch {
			return DriftNodePool
		}
		return ""
	}
	t := nd.pool.tmpl
	for k, v := range np.Spec.Template.ObjectMeta.Labels {
		if got, ok := nd.obj.Labels[k]; !ok || got != v {
			return DriftNodePool
		}
	}
	if nd.claimMade {
		for _, taint := range t.Taints {
			if !slices.ContainsFunc(nd.obj.Spec.Taints, func(x corev1.Taint) bool { return taint.MatchTaint(&x) }) {
				return DriftNodePool
			}
		}
		return ""
	}
	if claimSpecDrifted(nd.claim, nd.pool) {
		return DriftNodePool
	}
	return ""
}

// claimSpecDrifted compares the fields of a NodeClaim of the input that
// Karpenter hashes with its NodePool's template.
func claimSpecDrifted(nc *NodeClaim, p *poolState) bool {
	for k, v := range p.np.Spec.Template.ObjectMeta.Annotations {
		if got, ok := nc.Annotations[k]; !ok || got != v {
			return true // Karpenter copies the template's annotations onto its NodeClaims
		}
	}
	ts := p.np.Spec.Template.Spec
	if !sameTaints(nc.Spec.Taints, ts.Taints) || !sameTaints(nc.Spec.StartupTaints, ts.StartupTaints) {
		return true
	}
	if nc.Spec.ExpireAfter != nil && ts.ExpireAfter != nil && *nc.Spec.ExpireAfter != *ts.ExpireAfter {
		return true
	}
	if a, b := nc.Spec.TerminationGracePeriod, ts.TerminationGracePeriod; a != nil && b != nil && a.Duration != b.Duration {
		return true
	}
	if a, b := nc.Spec.NodeClassRef, ts.NodeClassRef; a != nil && b != nil && *a != *b {
		return true
	}
	return false
}

// sameTaints compares taints as multisets of key, value and effect.
func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		i := slices.IndexFunc(b, func(y corev1.Taint) bool { return y.Key == x.Key && y.Value == x.Value && y.Effect == x.Effect })
		for i >= 0 && used[i] {
			j := slices.IndexFunc(b[i+1:], func(y corev1.Taint) bool { return y.Key == x.Key && y.Value == x.Value && y.Effect == x.Effect })
			if j < 0 {
				i = -1
				break
			}
			i += j + 1
		}
		if i < 0 {
			return false
		}
		used[i] = true
	}
	return true
}

func (m *model) requirementsDrift(nd *node) string {
	schema := m.catalog.Schema()
	labels := make(map[string]string, len(nd.obj.Labels))
	for k, v := range nd.obj.Labels {
		labels[schema.Normalize(k)] = v
	}
	reqs := nd.pool.tmpl.Requirements.Without(labelEC2NodeClass, requirements.LabelNodePool)
	for k := range nd.pool.np.Spec.Template.ObjectMeta.Labels {
		reqs = reqs.Without(schema.Normalize(k)) // template labels drift as NodePoolDrifted
	}
	if !reqs.Matches(labels) {
		return DriftRequirements
	}
	return ""
}

func (m *model) instanceTypeDrift(nd *node) string {
	if m.now.Sub(nd.created) <= instanceTypeMinAge {
		return "" // Karpenter looks only once the node is more than an hour old
	}
	if nd.it == nil {
		return DriftInstanceType // no instance-type label (an unknown type is an input error)
	}
	cts := []string{nd.ct}
	if nd.ct == "reserved" {
		cts = append(cts, "on-demand")
	}
	for _, o := range nd.it.Offerings {
		if (nd.zone == "" || o.Zone == nd.zone) && (nd.ct == "" || slices.Contains(cts, o.CapacityType)) {
			return ""
		}
	}
	return DriftInstanceType
}

// expiry returns when a managed node expires (ok false: never).
func (m *model) expiry(nd *node) (time.Time, bool) {
	if !nd.managed || nd.pool == nil {
		return time.Time{}, false
	}
	exp := nd.pool.expireAfter
	if !nd.claimMade && nd.claim.Spec.ExpireAfter != nil {
		d, err := durationOrNever(*nd.claim.Spec.ExpireAfter)
		if err == nil {
			exp = d
		}
	}
	if exp == nil {
		return time.Time{}, false
	}
	return nd.created.Add(*exp), true
}
