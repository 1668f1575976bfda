package plantest

import (
	"fmt"
	"strings"

	"github.com/nodeplan/nodeplan/scheduler"
)

// Want is what a test expects of one pod. Fields left empty are not
// checked, so a case states only what it is about. Setting Code or Unplaced
// expects the pod to be left unplaced; any other field expects it placed
// with that value; the zero Want expects it placed, anywhere.
type Want struct {
	NodePool     string
	NodeClaim    string
	Node         string
	InstanceType string
	Family       string
	Arch         string
	Zone         string
	CapacityType string
	// Code is the reason code of an unplaced pod.
	Code scheduler.ReasonCode
	// Unplaced expects the pod unplaced, for any reason.
	Unplaced bool
}

// Expect checks one pod against want and reports a mismatch with t.Errorf,
// naming the pod, what was wanted and where the pod went:
//
//	pod default/report-0: want capacity type spot, arch arm64
//	    got: NodeClaim default-1 (NodePool default, c6a.xlarge, family c6a, amd64, us-east-1a, on-demand, $0.1530/h)
//
// A name that is not a pending pod of the scenario is an error too. It
// reports whether the pod met want.
func (p *Plan) Expect(t TB, pod string, want Want) bool {
	t.Helper()
	got, ok := p.placement(pod)
	if !ok {
		t.Errorf("%s", p.unknown(pod))
		return false
	}
	if wrong := want.mismatches(got); len(wrong) > 0 {
		t.Errorf("pod %s: want %s\n\tgot: %s", got.Pod, strings.Join(wrong, ", "), got)
		return false
	}
	return true
}

// mismatches lists the expectations got does not meet, as "NodePool gpu".
func (w Want) mismatches(got Placement) []string {
	if w.Unplaced || w.Code != "" {
		switch {
		case got.Placed() && w.Code != "":
			return []string{"unplaced with reason " + string(w.Code)}
		case got.Placed():
			return []string{"unplaced"}
		case w.Code != "" && got.Code != w.Code:
			return []string{"reason " + string(w.Code)}
		}
		return nil
	}
	checks := []struct{ what, want, got string }{
		{"NodePool", w.NodePool, got.NodePool},
		{"NodeClaim", w.NodeClaim, got.NodeClaim},
		{"existing node", w.Node, got.Node},
		{"instance type", w.InstanceType, got.InstanceType},
		{"family", w.Family, got.Family},
		{"arch", w.Arch, got.Arch},
		{"zone", w.Zone, got.Zone},
		{"capacity type", w.CapacityType, got.CapacityType},
	}
	var out []string
	for _, c := range checks {
		if c.want != "" && (c.want != c.got || !got.Placed()) {
			out = append(out, fmt.Sprintf("%s %s", c.what, c.want))
		}
	}
	if len(out) == 0 && !got.Placed() {
		out = append(out, "placed")
	}
	return out
}
