package disrupt

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/awslabs/operatorpkg/status"
	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	kdisruption "sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/options"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
	"github.com/nodeplan/nodeplan/tools/karpdiff/karp"
)

// Options are the settings of a run, as Karpenter names them.
type Options struct {
	// SpotToSpot is the SpotToSpotConsolidation feature gate.
	SpotToSpot bool
	// Alternative is another tool's command for the same cluster: when
	// Karpenter's single-node consolidation picks another node of the
	// same savings ratio and NodePool, the alternative's node is tried
	// alone with Karpenter's code (see singleNodeTie).
	Alternative *Command
	// Trace, when set, receives each method's candidates and budgets.
	Trace func(format string, args ...any)
}

// context carries Karpenter's operator options (its flags' defaults, the
// feature gate) and a logger that discards.
func (o Options) context() context.Context {
	opts := &options.Options{
		PreferencePolicy:  options.PreferencePolicyRespect,
		MinValuesPolicy:   options.MinValuesPolicyStrict,
		IgnoreDRARequests: true,
		CPURequests:       1000,
		FeatureGates:      options.FeatureGates{ReservedCapacity: true, SpotToSpotConsolidation: o.SpotToSpot},
	}
	return options.ToContext(log.IntoContext(context.Background(), logr.Discard()), opts)
}

// noValidation passes every command: Karpenter's validators wait 15
// seconds of the clock and re-run the candidates' checks and the
// simulation on a cluster that, offline, has not changed.
type noValidation struct{}

func (noValidation) Validate(_ context.Context, cmd kdisruption.Command, _ time.Duration) (kdisruption.Command, error) {
	return cmd, nil
}

// Karpenter returns the first command Karpenter v1.14.1's disruption
// controller would start on the cluster at now (nil: none), running its
// methods as its Reconcile does: Emptiness, StaticDrift, Drift,
// MultiNodeConsolidation, SingleNodeConsolidation, each on the candidates
// GetCandidatesWithTotals returns for it and the budgets
// BuildDisruptionBudgetMapping gives its reason; the first method with a
// command wins. Karpenter's own code decides everything but the validation
// wait (skipped) and the objects' state (world). karp.RegisterVocabulary
// must have run for the catalog.
func Karpenter(c disruption.Cluster, pools []nodepool.NodePool, cat instancetypes.Catalog, now time.Time, o Options) (*Command, error) {
	ctx := o.context()
	its := karp.InstanceTypes(cat)
	w, err := build(ctx, c, pools, its, now)
	if err != nil {
		return nil, err
	}
	recorder := events.NewRecorder(&record.FakeRecorder{})
	prov := provisioning.NewProvisioner(w.client, recorder, w.cp, w.cluster, w.clock, nil, nil)
	queue := kdisruption.NewQueue(w.client, recorder, w.cluster, w.clock, prov)
	cons := kdisruption.MakeConsolidation(w.clock, w.cluster, w.client, prov, w.cp, recorder, queue)
	methods := []struct {
		name   disruption.Method
		method kdisruption.Method
	}{
		{disruption.MethodEmptiness, kdisruption.NewEmptiness(cons, kdisruption.WithValidator(noValidation{}))},
		{disruption.MethodStaticDrift, kdisruption.NewStaticDrift(w.cluster, prov, w.cp)},
		{disruption.MethodDrift, kdisruption.NewDrift(w.client, w.cluster, prov, recorder, w.clock)},
		{disruption.MethodMultiNode, kdisruption.NewMultiNodeConsolidation(cons, kdisruption.WithValidator(noValidation{}))},
		{disruption.MethodSingleNode, kdisruption.NewSingleNodeConsolidation(cons, kdisruption.WithValidator(noValidation{}))},
	}
	for _, m := range methods {
		candidates, totals, err := kdisruption.GetCandidatesWithTotals(ctx, w.cluster, w.client, recorder, w.clock, w.cp,
			m.method.ShouldDisrupt, m.method.Class(), queue, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: determining candidates: %w", m.name, err)
		}
		if len(candidates) == 0 {
			continue
		}
		if setter, ok := m.method.(kdisruption.NodePoolTotalsSetter); ok {
			setter.SetNodePoolTotals(totals)
		}
		budgets, err := kdisruption.BuildDisruptionBudgetMapping(ctx, w.cluster, w.clock, w.client, w.cp, recorder, m.method.Reason())
		if err != nil {
			return nil, fmt.Errorf("%s: building budgets: %w", m.name, err)
		}
		if o.Trace != nil {
			var names []string
			for _, c := range candidates {
				names = append(names, fmt.Sprintf("%s(%.5f=%.4f/%.2f)", c.Name(), c.SavingsRatio(), c.Price, c.RescheduleDisruptionCost))
			}
			o.Trace("%s: candidates %v budgets %v", m.name, names, budgets)
		}
		cmds, err := m.method.ComputeCommands(ctx, budgets, candidates...)
		if err != nil {
			return nil, fmt.Errorf("%s: computing commands: %w", m.name, err)
		}
		for _, cmd := range cmds {
			if cmd.Decision() == kdisruption.NoOpDecision {
				continue
			}
			if o.Trace != nil {
				for _, en := range cmd.Results.ExistingNodes {
					for _, p := range en.Pods {
						o.Trace("  %s/%s -> %s", p.Namespace, p.Name, en.Name())
					}
				}
				for _, nc := range cmd.Results.NewNodeClaims {
					for _, p := range nc.Pods {
						o.Trace("  %s/%s -> new %s", p.Namespace, p.Name, nc.NodePoolName)
					}
				}
			}
			out := fromKarpenter(m.name, cmd)
			out.ties = tieKeys(m.name, candidates)
			if m.name == disruption.MethodSingleNode {
				if err := singleNodeAlternative(ctx, w, recorder, m.method, cmd, candidates, o.Alternative, out); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	}
	return nil, nil
}

// tieKeys returns, for the methods whose order Karpenter leaves to ties
// between equal candidates, each candidate's key: candidates of equal key
// are interchangeable. Emptiness sorts by savings ratio, which is infinite
// for every empty node: any empty candidate of a NodePool may stand for
// another. Drift sorts by the Drifted condition's transition time, empty
// nodes first. The consolidation methods simulate each choice, so their
// candidates are never taken as interchangeable.
func tieKeys(method disruption.Method, candidates []*kdisruption.Candidate) map[string]string {
	keys := map[string]string{}
	for _, c := range candidates {
		switch method {
		case disruption.MethodEmptiness:
			keys[c.Name()] = c.NodePool.Name
		case disruption.MethodDrift:
			t := c.NodeClaim.StatusConditions(status.WithObservedOnly()).Get(karpv1.ConditionTypeDrifted).LastTransitionTime
			keys[c.Name()] = fmt.Sprintf("%s/%s/%t", c.NodePool.Name, t.UTC().Format(time.RFC3339Nano), c.IsEmpty())
		}
	}
	return keys
}

// singleNodeAlternative classifies alt, a single-node command on another
// node than Karpenter's cmd, when its node is a candidate of the same
// NodePool sorted no later (a savings ratio at least that of cmd's node:
// within a NodePool Karpenter tries candidates by decreasing ratio, equal
// ratios in an order left to chance). SingleNodeConsolidation is given
// that candidate alone: when it computes alt's command and the ratios are
// equal, both nodes get one tie key in out (Karpenter could have started
// either); when it computes no command, or one alt beats by packing
// (Compare: Packs), Karpenter's simulation could not place the node's pods
// where nodeplan's did, and out records it.
func singleNodeAlternative(ctx context.Context, w *world, recorder events.Recorder, m kdisruption.Method, cmd kdisruption.Command,
	candidates []*kdisruption.Candidate, alt *Command, out *Command) error {
	if alt == nil || alt.Method != disruption.MethodSingleNode || len(alt.Nodes) != 1 || len(cmd.Candidates) != 1 ||
		alt.Nodes[0] == cmd.Candidates[0].Name() {
		return nil
	}
	chosen := cmd.Candidates[0]
	var other *kdisruption.Candidate
	for _, c := range candidates {
		if c.Name() == alt.Nodes[0] {
			other = c
		}
	}
	if other == nil || other.NodePool.Name != chosen.NodePool.Name || other.SavingsRatio() < chosen.SavingsRatio() {
		return nil
	}
	budgets, err := kdisruption.BuildDisruptionBudgetMapping(ctx, w.cluster, w.clock, w.client, w.cp, recorder, m.Reason())
	if err != nil {
		return err
	}
	prov := provisioning.NewProvisioner(w.client, recorder, w.cp, w.cluster, w.clock, nil, nil)
	fresh := kdisruption.NewSingleNodeConsolidation(
		kdisruption.MakeConsolidation(w.clock, w.cluster, w.client, prov, w.cp, recorder, kdisruption.NewQueue(w.client, recorder, w.cluster, w.clock, prov)),
		kdisruption.WithValidator(noValidation{}))
	cmds, err := fresh.ComputeCommands(ctx, budgets, other)
	if err != nil {
		return err
	}
	cmds = slices.DeleteFunc(cmds, func(c kdisruption.Command) bool { return c.Decision() == kdisruption.NoOpDecision })
	if len(cmds) == 0 {
		out.packs = other.Name()
		return nil
	}
	switch v := Compare(alt, fromKarpenter(disruption.MethodSingleNode, cmds[0])); {
	case v == Packs:
		out.packs = other.Name()
	case (v == Same || v == SameNodes) && other.SavingsRatio() == chosen.SavingsRatio():
		key := fmt.Sprintf("single/%s/%g", chosen.NodePool.Name, chosen.SavingsRatio())
		out.ties = map[string]string{chosen.Name(): key, other.Name(): key}
	}
	return nil
}

// fromKarpenter describes a Karpenter command.
func fromKarpenter(method disruption.Method, cmd kdisruption.Command) *Command {
	out := &Command{Method: method, Decision: disruption.DecisionDelete}
	for _, c := range cmd.Candidates {
		out.Nodes = append(out.Nodes, c.Name())
	}
	slices.Sort(out.Nodes)
	for _, r := range cmd.Replacements {
		out.Decision = disruption.DecisionReplace
		rep := Replacement{NodePool: r.NodePoolName, Price: -1, Pods: len(r.Pods)}
		for _, it := range r.InstanceTypeOptions {
			rep.InstanceTypes = append(rep.InstanceTypes, it.Name)
			if of := it.Offerings.Available().Compatible(r.Requirements); len(of) > 0 {
				if p := of.Cheapest().Price; rep.Price < 0 || p < rep.Price {
					rep.Price = p
				}
			}
		}
		slices.Sort(rep.InstanceTypes)
		out.Replacements = append(out.Replacements, rep)
	}
	sortReplacements(out.Replacements)
	return out
}
