package disruption

import (
	"errors"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// poolState is a NodePool with its disruption settings parsed.
type poolState struct {
	np     nodepool.NodePool
	name   string
	static bool
	// policy is WhenEmpty, WhenEmptyOrUnderutilized (the default) or
	// Balanced.
	policy string
	// consolidateAfter is nil for Never (CRD default 0s).
	consolidateAfter *time.Duration
	// expireAfter is nil for Never (CRD default 720h).
	expireAfter *time.Duration
	budgets     []budget
	// tmpl is the pool as a NodeClaim template (a static pool's too).
	tmpl nodepool.Template
	// hasTypes: some instance type satisfies the pool's requirements
	// (Karpenter skips a pool that resolves no type: D-009).
	hasTypes bool
}

// defaultExpireAfter is the CRD default of spec.template.spec.expireAfter.
const defaultExpireAfter = 720 * time.Hour

func newPoolState(np nodepool.NodePool, catalog instancetypes.Catalog) (*poolState, error) {
	p := &poolState{np: np, name: np.Name, static: np.IsStatic(), policy: nodepool.ConsolidationWhenEmptyOrUnderutilized}
	zero := time.Duration(0)
	p.consolidateAfter = &zero
	exp := defaultExpireAfter
	p.expireAfter = &exp
	bad := func(field string, err error) error {
		return &InputError{Kind: "NodePool", Name: np.Name, Field: field, Message: err.Error()}
	}
	if d := np.Spec.Disruption; d != nil {
		if d.ConsolidationPolicy != "" {
			p.policy = d.ConsolidationPolicy
		}
		if d.ConsolidateAfter != nil {
			v, err := durationOrNever(*d.ConsolidateAfter)
			if err != nil {
				return nil, bad("spec.disruption.consolidateAfter", err)
			}
			p.consolidateAfter = v
		}
	}
	if e := np.Spec.Template.Spec.ExpireAfter; e != nil {
		v, err := durationOrNever(*e)
		if err != nil {
			return nil, bad("spec.template.spec.expireAfter", err)
		}
		p.expireAfter = v
	}
	var err error
	if p.budgets, err = parseBudgets(np); err != nil {
		return nil, err
	}
	tnp := np.DeepCopy()
	tnp.Spec.Replicas = nil // a static pool's template is still a template
	if p.tmpl, err = nodepool.NewTemplate(tnp, catalog.Schema()); err != nil {
		return nil, err // an *nodepool.InvalidError naming the pool and each field
	}
	if _, empty := p.tmpl.Requirements.Empty(); !empty {
		p.hasTypes = len(catalog.Filter(p.tmpl.Requirements)) > 0
	}
	return p, nil
}

// durationOrNever parses "Never" (nil) or a Go duration.
func durationOrNever(s string) (*time.Duration, error) {
	if s == nodepool.Never {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, err
	}
	if d < 0 {
		return nil, errors.New("must not be negative")
	}
	return &d, nil
}

// requirements returns the pool's template requirements.
func (p *poolState) requirements() requirements.Requirements { return p.tmpl.Requirements }

// allowsSpot: the pool's requirements admit spot capacity.
func (p *poolState) allowsSpot() bool {
	return p.tmpl.Requirements.Get(requirements.LabelCapacityType).Has("spot")
}
