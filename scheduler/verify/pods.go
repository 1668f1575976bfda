package verify

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// checkPlacements checks every placed pod against its node, and the host
// ports on every NodeClaim.
func (v *verifier) checkPlacements() {
	for _, p := range v.pending {
		switch h := p.host; {
		case h == nil:
		case h.claim != nil:
			v.checkOnClaim(p, h.claim)
		default:
			v.checkOnNode(p, h)
		}
	}
	for _, c := range v.claims {
		v.checkPodPorts(c.node, Violation{NodeClaim: c.nc.Name}, nil)
	}
}

// checkOnClaim checks one pod on a NodeClaim: its node requirements are
// implied, the NodePool's taints tolerated, its volumes' topology implied.
func (v *verifier) checkOnClaim(p *vpod, c *vclaim) {
	at := Violation{NodeClaim: c.nc.Name, Pod: p.name}
	if len(p.alts) == 0 {
		v.report(with(at, scheduler.ReasonIncompatible, "the pod's node requirements match no node: %s", p.altsWhy))
	} else if key, eff, want, ok := v.impliedByClaim(c, p.alts); !ok {
		v.report(with(at, scheduler.ReasonIncompatible, "on %s the NodeClaim allows %s, the pod requires %s", key, eff, want))
	} else if err := v.poolDeclares(c, withKeys(p.alts, v.topologyKeys(p.pod))); err != nil {
		v.report(with(at, scheduler.ReasonUndefinedLabel, "the NodePool %s cannot take the pod: %v", c.tmpl.Name, err))
	}
	if t, bad := requirements.UntoleratedTaint(c.nc.Taints, p.pod.Spec.Tolerations); bad {
		v.report(with(at, scheduler.ReasonTaint, "the pod does not tolerate the NodeClaim's taint %s", t.ToString()))
	}
	alts, err := v.vols.For(p.pod)
	switch {
	case err != nil:
		v.report(with(at, scheduler.ReasonVolumeTopology, "the pod's volumes cannot be placed: %v", err))
	case alts != nil:
		if key, eff, want, ok := v.impliedByClaim(c, alts); !ok {
			v.report(with(at, scheduler.ReasonVolumeTopology, "on %s the NodeClaim allows %s (chosen zone %s), the pod's volumes require %s", key, eff, c.nc.Zone, want))
		}
	}
}

// poolDeclares reports, as an error naming a key per alternative, when no
// alternative of the pod is compatible with the NodeClaim's NodePool: a
// pod that requires a custom label (In, Exists, bounds) the NodePool does
// not declare is not the pool's to take (Karpenter never makes such a
// NodeClaim), unless a pod of the same NodeClaim excludes values of that
// label (NotIn): Karpenter carries that requirement into the NodeClaim,
// which then defines the label for the pods that come after. The keys of
// the pod's DoNotSchedule spreads and required pod affinities count as
// required to exist: kube-scheduler binds the pod only on a node that
// has them, and Karpenter gives such a key only where it is declared.
func (v *verifier) poolDeclares(c *vclaim, alts []requirements.Requirements) error {
	if c.tmpl == nil {
		return nil
	}
	if !c.declaredDone {
		c.declared, c.declaredDone = c.tmpl.Requirements, true
		for _, q := range c.pods {
			for _, k := range v.openedKeys(q) {
				if !c.declared.Has(k) {
					c.declared = c.declared.Add(requirements.Any(k))
				}
			}
		}
	}
	errs := make([]string, 0, len(alts))
	for i, alt := range alts {
		err := c.declared.Compatible(alt, v.schema)
		if err == nil {
			return nil
		}
		if len(alts) == 1 {
			return err
		}
		errs = append(errs, fmt.Sprintf("term %d: %v", i+1, err))
	}
	return errors.New(strings.Join(errs, "; "))
}

// topologyKeys returns, as Exists requirements, the keys a node must carry
// for kube-scheduler to bind p: those of its DoNotSchedule spreads and of
// its required pod affinity terms (normalised), the hostname aside (every
// node has one).
func (v *verifier) topologyKeys(p *corev1.Pod) []requirements.Requirement {
	var out []requirements.Requirement
	for _, tsc := range p.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable == corev1.DoNotSchedule && tsc.TopologyKey != "" && tsc.TopologyKey != corev1.LabelHostname {
			out = append(out, requirements.Exists(v.schema.Normalize(tsc.TopologyKey)))
		}
	}
	if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if t.TopologyKey != "" && t.TopologyKey != corev1.LabelHostname {
				out = append(out, requirements.Exists(v.schema.Normalize(t.TopologyKey)))
			}
		}
	}
	return out
}

// withKeys returns alts with extra ANDed into each.
func withKeys(alts []requirements.Requirements, extra []requirements.Requirement) []requirements.Requirements {
	if len(extra) == 0 {
		return alts
	}
	out := make([]requirements.Requirements, len(alts))
	for i, alt := range alts {
		out[i] = alt.Add(extra...)
	}
	return out
}

func with(at Violation, code scheduler.ReasonCode, format string, args ...any) Violation {
	at.Code, at.Message = code, fmt.Sprintf(format, args...)
	return at
}

// impliedByClaim reports whether the NodeClaim implies one of alts: on
// every key the alternative constrains, every state the NodeClaim allows
// satisfies it. When none is implied it returns the first failing key of
// the first alternative.
func (v *verifier) impliedByClaim(c *vclaim, alts []requirements.Requirements) (key string, eff, want requirements.Requirement, ok bool) {
	first := true
	for _, alt := range alts {
		k, e, w, good := v.implies(c, alt)
		if good {
			return "", requirements.Requirement{}, requirements.Requirement{}, true
		}
		if first {
			key, eff, want, first = k, e, w, false
		}
	}
	return key, eff, want, false
}

func (v *verifier) implies(c *vclaim, alt requirements.Requirements) (string, requirements.Requirement, requirements.Requirement, bool) {
	for r := range alt.All() {
		eff := v.effective(c, r.Key())
		if !eff.Intersect(r).SameSet(eff) {
			return r.Key(), eff, r, false
		}
	}
	return "", requirements.Requirement{}, requirements.Requirement{}, true
}

// cordonTaint is the taint the node lifecycle controller puts on a
// cordoned node (spec.unschedulable), whether or not the node as given
// carries it yet.
var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// cordonedFor reports whether n is a cordoned existing node whose cordon
// taint p does not tolerate: kube-scheduler binds no such pod there, and
// a spread of p under nodeTaintsPolicy Honor counts no pod there (the
// node is no domain of it), as the planner counts it.
func (n *vnode) cordonedFor(p *vpod) bool {
	return n.node != nil && n.node.Spec.Unschedulable && !requirements.Tolerates(p.pod.Spec.Tolerations, &cordonTaint)
}

// checkOnNode checks one pod placed on an existing node.
func (v *verifier) checkOnNode(p *vpod, n *vnode) {
	at := Violation{Node: n.name, Pod: p.name}
	if n.cordonedFor(p) {
		v.report(with(at, scheduler.ReasonExistingNode, "the node is cordoned (spec.unschedulable)"))
	}
	ok, err := p.matchesNode(n.name, n.labels)
	switch {
	case err != nil:
		v.report(with(at, scheduler.ReasonIncompatible, "the pod's node affinity cannot be evaluated: %v", err))
	case !ok:
		v.report(with(at, scheduler.ReasonIncompatible, "the node's labels do not satisfy the pod's node requirements%s", labelMismatch(p.alts, n.labels)))
	}
	if t, bad := requirements.UntoleratedTaint(n.taints, p.pod.Spec.Tolerations); bad {
		v.report(with(at, scheduler.ReasonTaint, "the pod does not tolerate the node's taint %s", t.ToString()))
	}
	alts, err := v.vols.For(p.pod)
	switch {
	case err != nil:
		v.report(with(at, scheduler.ReasonVolumeTopology, "the pod's volumes cannot be placed: %v", err))
	case alts != nil && !slices.ContainsFunc(alts, func(a requirements.Requirements) bool { return a.Matches(n.labels) }):
		v.report(with(at, scheduler.ReasonVolumeTopology, "the node's labels satisfy none of the pod's volume topologies%s", labelMismatch(alts, n.labels)))
	}
}

// labelMismatch names the first key of the first alternative the labels
// fail, for messages.
func labelMismatch(alts []requirements.Requirements, labels map[string]string) string {
	for _, alt := range alts {
		for r := range alt.All() {
			val, has := labels[r.Key()]
			if !r.Matches(val, has) {
				if !has {
					return fmt.Sprintf(" (no %s label, the pod requires %s)", r.Key(), r)
				}
				return fmt.Sprintf(" (%s=%s, the pod requires %s)", r.Key(), val, r)
			}
		}
	}
	return ""
}

// checkExistingNodes checks resources and host ports on every existing
// node that gets pods.
func (v *verifier) checkExistingNodes() {
	for _, n := range v.nodes {
		var placed []*vpod
		for _, p := range n.pods {
			if !p.bound {
				placed = append(placed, p)
			}
		}
		if len(placed) == 0 {
			continue
		}
		free := vresOf(scheduler.NodeAllocatable(n.node, v.catalog))
		var held []heldPort
		for _, p := range n.pods {
			if p.bound {
				free.sub(p.requests)
				for _, hp := range p.ports {
					held = append(held, heldPort{hp, "bound pod " + p.name})
				}
			}
		}
		for _, ds := range v.expectedDaemons(n) {
			free.sub(vresOf(ds.Requests()))
			for _, hp := range ds.HostPorts() {
				held = append(held, heldPort{hp, "DaemonSet " + ds.String()})
			}
		}
		need := vres{}
		for _, p := range placed {
			need.add(p.requests)
		}
		if short := need.short(free); len(short) > 0 {
			v.report(Violation{Code: scheduler.ReasonInsufficient, Node: n.name, Message: fmt.Sprintf("the new pods need %s, the node has %s free after its bound pods and DaemonSets",
				need.describe(short), free.describe(short))})
		}
		v.checkPodPorts(n, Violation{Node: n.name}, held)
	}
}

// heldPort is a host port already taken on a node, and by what.
type heldPort struct {
	port nodepool.HostPort
	by   string
}

// checkPodPorts checks that the placed pods of a node (in name order)
// clash neither with held ports nor with each other.
func (v *verifier) checkPodPorts(n *vnode, at Violation, held []heldPort) {
	for _, p := range n.pods {
		if p.bound {
			continue
		}
		for _, hp := range p.ports {
			for _, h := range held {
				if hp.Clashes(h.port) {
					v.report(with(Violation{NodeClaim: at.NodeClaim, Node: at.Node, Pod: p.name}, scheduler.ReasonHostPort,
						"host port %s clashes with %s of %s", hp, h.port, h.by))
				}
			}
		}
		for _, hp := range p.ports {
			held = append(held, heldPort{hp, "pod " + p.name})
		}
	}
}

// expectedDaemons returns the DaemonSets that run on an existing node
// (nodepool.DaemonSet.RunsOn its labels and effective taints) and have no
// pod bound there yet: their requests are still to come (on a node still
// initialising, as soon as its startup taints are gone).
func (v *verifier) expectedDaemons(n *vnode) []nodepool.DaemonSet {
	var out []nodepool.DaemonSet
	for _, ds := range v.dss {
		running := slices.ContainsFunc(n.pods, func(p *vpod) bool {
			return p.bound && p.namespace == ds.Namespace() && slices.Contains(kube.DaemonSetOwners(p.pod), ds.Name())
		})
		if !running && ds.RunsOn(n.labels, n.taints) {
			out = append(out, ds)
		}
	}
	return out
}
