package plantest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/kube"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
)

// labelInstanceFamily is the family label of Karpenter's AWS provider; a
// catalog without it gives the part of the type's name before the first dot.
const labelInstanceFamily = "karpenter.k8s.aws/instance-family"

// Placement is where one pending pod goes, in the terms a test asserts.
// A placed pod has NodeClaim and NodePool (a new node) or Node (an existing
// one); an unplaced pod has Code and Reason.
type Placement struct {
	// Pod is "namespace/name".
	Pod       string
	NodeClaim string
	NodePool  string
	Node      string
	// InstanceType, Zone, CapacityType and Price are those of the offering
	// the NodeClaim launches (of an existing node: its labels, no price);
	// Family and Arch come from the instance type.
	InstanceType string
	Family       string
	Arch         string
	Zone         string
	CapacityType string
	Price        float64
	Code         scheduler.ReasonCode
	Reason       string
}

// Placed reports whether the pod goes to a new NodeClaim or an existing node.
func (p Placement) Placed() bool { return p.NodeClaim != "" || p.Node != "" }

// String describes the placement in one line, for failure messages:
//
//	NodeClaim gpu-1 (NodePool gpu, g6.2xlarge, family g6, amd64, us-east-1a, spot, $0.4212/h)
//	existing node node-a (m5.large, family m5, amd64, us-east-1b, on-demand)
//	unplaced, UntoleratedTaint: NodePool gpu: the pod does not tolerate taint ...
func (p Placement) String() string {
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch {
	case p.NodeClaim != "":
		add("NodePool " + p.NodePool)
	case p.Node != "":
	default:
		return fmt.Sprintf("unplaced, %s: %s", p.Code, p.Reason)
	}
	add(p.InstanceType)
	if p.Family != "" {
		add("family " + p.Family)
	}
	add(p.Arch)
	add(p.Zone)
	add(p.CapacityType)
	if p.NodeClaim != "" {
		add("$" + strconv.FormatFloat(p.Price, 'f', 4, 64) + "/h")
		return fmt.Sprintf("NodeClaim %s (%s)", p.NodeClaim, strings.Join(parts, ", "))
	}
	if len(parts) == 0 {
		return "existing node " + p.Node
	}
	return fmt.Sprintf("existing node %s (%s)", p.Node, strings.Join(parts, ", "))
}

// Pod returns where the pending pod named name goes: "namespace/name", or a
// bare name for namespace "default". A name that is not a pending pod of
// the scenario is fatal (the message lists the names that come close).
func (p *Plan) Pod(t TB, name string) Placement {
	t.Helper()
	pl, ok := p.placement(name)
	if !ok {
		t.Fatalf("%s", p.unknown(name))
	}
	return pl
}

func (p *Plan) placement(name string) (Placement, bool) {
	pp, ok := p.Result.Pod(name)
	if !ok {
		return Placement{}, false
	}
	pl := Placement{Pod: pp.Pod}
	switch {
	case pp.NodeClaim != nil:
		nc := pp.NodeClaim
		pl.NodeClaim, pl.NodePool, pl.InstanceType, pl.Zone, pl.CapacityType, pl.Price =
			nc.Name, nc.NodePool, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price
		pl.Arch = nc.Labels[corev1.LabelArchStable]
	case pp.Node != "":
		pl.Node = pp.Node
		p.describeNode(&pl)
	default:
		pl.Code, pl.Reason = pp.Error.Code, pp.Error.Reason
		return pl, true
	}
	if it, ok := p.Catalog.Get(pl.InstanceType); ok {
		pl.Arch = it.Labels[corev1.LabelArchStable]
		pl.Family = it.Labels[labelInstanceFamily]
	}
	if pl.Family == "" && pl.InstanceType != "" {
		pl.Family, _, _ = strings.Cut(pl.InstanceType, ".")
	}
	return pl, true
}

// describeNode fills in what an existing node's labels say of its offering.
func (p *Plan) describeNode(pl *Placement) {
	for _, n := range p.Input.Nodes {
		if n == nil || n.Name != pl.Node {
			continue
		}
		l := n.Labels
		pl.InstanceType = cmpOr(l[corev1.LabelInstanceTypeStable], l[corev1.LabelInstanceType])
		pl.Zone = cmpOr(l[corev1.LabelTopologyZone], l[corev1.LabelFailureDomainBetaZone])
		pl.CapacityType = l[requirements.LabelCapacityType]
		pl.Arch = l[corev1.LabelArchStable]
		pl.Family = l[labelInstanceFamily]
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// unknown says that name is not a pending pod, with the names that come
// close: the same name in other namespaces, or the pods of a workload of
// that name (web → web-0, web-1).
func (p *Plan) unknown(name string) string {
	full := name
	if !strings.Contains(full, "/") {
		full = kube.Key("", full)
	}
	_, bare, _ := strings.Cut(full, "/")
	var close []string
	for _, pod := range p.Input.Pods {
		n := pod.Namespace + "/" + pod.Name
		if pod.Name == bare || strings.HasPrefix(n, full+"-") {
			close = append(close, n)
		}
	}
	slices.Sort(close)
	msg := fmt.Sprintf("pod %s is not a pending pod of the scenario (%d pending pods)", full, len(p.Input.Pods))
	if len(close) > 5 {
		close = append(close[:5], "...")
	}
	if len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return msg
}
