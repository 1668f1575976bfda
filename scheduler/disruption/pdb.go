package disruption

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/apicheck"
)

// pdb is one PodDisruptionBudget as eviction sees it.
type pdb struct {
	key      string // namespace/name
	ns       string
	selector labels.Selector
	// allowed is status.disruptionsAllowed, or computed from the pods when
	// the input has no status.
	allowed int32
	// fullyBlocking: maxUnavailable 0 or "0%", or minAvailable "100%":
	// Karpenter does not even make room for such pods (A.2).
	fullyBlocking bool
	// alwaysAllowUnhealthy: unhealthyPodEvictionPolicy AlwaysAllow.
	alwaysAllowUnhealthy bool
}

// newPDBs checks and indexes the budgets; pods are every pod of the input,
// for budgets without a status.
func newPDBs(in []*policyv1.PodDisruptionBudget, pods []*pod) ([]*pdb, []error) {
	var out []*pdb
	var errs []error
	for _, b := range in {
		p, err := newPDB(b, pods)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *pdb) int { return strings.Compare(a.key, b.key) })
	return out, errs
}

func newPDB(b *policyv1.PodDisruptionBudget, pods []*pod) (*pdb, error) {
	ns := b.Namespace
	if ns == "" {
		ns = corev1.NamespaceDefault
	}
	bad := func(field, msg string) error {
		return &InputError{Kind: "PodDisruptionBudget", Namespace: ns, Name: b.Name, Field: field, Message: msg}
	}
	if errs := apicheck.PodDisruptionBudgetSpec(field.NewPath("spec"), &b.Spec); len(errs) > 0 {
		return nil, bad(errs[0].Field, errs[0].ErrorBody())
	}
	sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
	if err != nil {
		return nil, bad("spec.selector", err.Error())
	}
	if b.Spec.Selector == nil {
		sel = labels.Nothing() // policy/v1: a nil selector selects no pod
	}
	p := &pdb{key: ns + "/" + b.Name, ns: ns, selector: sel}
	mu, ma := b.Spec.MaxUnavailable, b.Spec.MinAvailable
	p.fullyBlocking = (mu != nil && mu.Type == intstr.Int && mu.IntVal == 0) ||
		(mu != nil && mu.Type == intstr.String && mu.StrVal == "0%") ||
		(ma != nil && ma.Type == intstr.String && ma.StrVal == "100%")
	p.alwaysAllowUnhealthy = b.Spec.UnhealthyPodEvictionPolicy != nil && *b.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow
	if hasStatus(b.Status) {
		p.allowed = b.Status.DisruptionsAllowed
		return p, nil
	}
	allowed, err := p.compute(b, pods)
	if err != nil {
		return nil, bad(err.Error(), "must be an integer or a percentage")
	}
	p.allowed = allowed
	return p, nil
}

// hasStatus reports whether a status was given (a dump always has one).
func hasStatus(s policyv1.PodDisruptionBudgetStatus) bool {
	return s.ObservedGeneration != 0 || s.DisruptionsAllowed != 0 || s.CurrentHealthy != 0 ||
		s.DesiredHealthy != 0 || s.ExpectedPods != 0 || len(s.Conditions) > 0
}

// compute derives disruptionsAllowed as the disruption controller does:
// expected = the matching pods (not terminal), healthy = those bound and
// running whose Ready condition is not False; desired = minAvailable, or
// expected − maxUnavailable (percentages of expected, rounded up); allowed
// = max(healthy − desired, 0). With neither field nothing is desired: every
// healthy pod may go.
func (p *pdb) compute(b *policyv1.PodDisruptionBudget, pods []*pod) (int32, error) {
	expected, healthy := 0, 0
	for _, x := range pods {
		if x.terminal || !p.matches(x) {
			continue
		}
		expected++
		phase := x.obj.Status.Phase
		if x.node != "" && !x.terminating && (phase == corev1.PodRunning || phase == "") && !x.unready() {
			healthy++
		}
	}
	desired := 0
	switch {
	case b.Spec.MaxUnavailable != nil:
		mu, err := intstr.GetScaledValueFromIntOrPercent(b.Spec.MaxUnavailable, expected, true)
		if err != nil {
			return 0, fmt.Errorf("spec.maxUnavailable")
		}
		desired = expected - mu
	case b.Spec.MinAvailable != nil:
		ma, err := intstr.GetScaledValueFromIntOrPercent(b.Spec.MinAvailable, expected, true)
		if err != nil {
			return 0, fmt.Errorf("spec.minAvailable")
		}
		desired = ma
	}
	return int32(min(max(healthy-max(desired, 0), 0), math.MaxInt32)), nil
}

func (p *pdb) matches(x *pod) bool {
	return x.ns == p.ns && p.selector.Matches(labels.Set(x.obj.Labels))
}

// pdbBlock is a PodDisruptionBudget that stops a pod's eviction.
type pdbBlock struct {
	pod  string
	pdbs []string
	// allowed is the one budget's disruptionsAllowed (0 or a fully
	// blocking budget's).
	allowed int32
}

// evictionBlock returns the budget(s) that stop evicting x: more than one
// matching budget, or one allowing 0 disruptions (fullyBlockingOnly: one
// that is fully blocking), unless the budget lets unhealthy pods go and x
// is not ready. Pods that are not evictable are never blocked.
func evictionBlock(pdbs []*pdb, x *pod, now time.Time, fullyBlockingOnly bool) *pdbBlock {
	if !x.evictable(now) {
		return nil
	}
	matching := x.budgets(pdbs)
	if len(matching) > 1 {
		b := &pdbBlock{pod: x.key}
		for _, p := range matching {
			b.pdbs = append(b.pdbs, p.key)
		}
		return b
	}
	for _, p := range matching {
		if p.alwaysAllowUnhealthy && x.unready() {
			return nil
		}
		if (fullyBlockingOnly && p.fullyBlocking) || (!fullyBlockingOnly && p.allowed == 0) {
			return &pdbBlock{pod: x.key, pdbs: []string{p.key}, allowed: p.allowed}
		}
	}
	return nil
}

// budgets are the PodDisruptionBudgets that match x (found once per pod:
// a plan's budgets and a pod's labels never change).
func (x *pod) budgets(pdbs []*pdb) []*pdb {
	if !x.pdbsKnown {
		for _, p := range pdbs {
			if p.matches(x) {
				x.pdbs = append(x.pdbs, p)
			}
		}
		x.pdbsKnown = true
	}
	return x.pdbs
}
