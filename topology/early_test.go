package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestEarlyBinding: under ExistingNodesFirst, the pods a plan puts on
// existing nodes bind before any NodeClaim's node joins, so a zone spread's owner on an existing node is
// judged against the existing nodes' pods alone, and a pod on a NodeClaim
// never pushes it past its skew; an owner on a NodeClaim, or one with a
// required pod affinity, sees every count. Batch pods without the spread
// (three, on a NodeClaim in zone a) and carriers of a maxSkew-1 zone spread
// over the batch pods, in a pool offering zones a, b and c; existing nodes
// n0 in zone a and n1 in zone b (unless only n0 exists).
func TestEarlyBinding(t *testing.T) {
	t.Parallel()
	batch := map[string]string{"tier": "batch"}
	carrier := testutil.Pod("carrier").Label("tier", "batch").Spread(zoneKey, 1, corev1.DoNotSchedule, batch).Obj()
	waiting := testutil.Pod("carrier").Label("tier", "batch").Spread(zoneKey, 1, corev1.DoNotSchedule, batch).
		PodAffinity(zoneKey, map[string]string{"app": "db"}).Obj()
	other := testutil.Pod("other").Label("tier", "batch").Obj()
	dbPod := testutil.Pod("db").Label("app", "db").Obj()
	refusedSpread := refused(topology.Spread, zoneKey, "", false)
	tests := []struct {
		name    string
		carrier *corev1.Pod
		// onNode: the carriers' host is the existing node (else a NodeClaim in zone a).
		onNode bool
		// carriers placed before the one checked; others placed on a NodeClaim in zone a.
		carriers, others int
		// alone: n0 is the only existing node; initialising: n0 is Late.
		alone, initialising bool
		want                outcome
	}{
		{name: "the first carrier on the node ignores the NodeClaim's batch pods", carrier: carrier, onNode: true, others: 3, want: ok()},
		{name: "the second carrier on the node exceeds the skew against zones b and c", carrier: carrier, onNode: true, carriers: 1, others: 3, want: refusedSpread},
		{name: "a carrier on a NodeClaim sees them", carrier: carrier, others: 3, want: refusedSpread},
		{name: "a carrier with a required pod affinity may bind after them", carrier: waiting, onNode: true, others: 3, want: refusedSpread},
		{name: "without the NodeClaim's pods nothing changes", carrier: carrier, onNode: true, want: ok()},
		{name: "with no existing node in zones b and c the second carrier binds in zone a too", carrier: carrier, onNode: true, carriers: 1, others: 3, alone: true, want: ok()},
		{name: "a node still initialising binds its pods late", carrier: carrier, onNode: true, others: 3, initialising: true, want: refusedSpread},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := zoneNode("n0", zoneA)
			n.Late = tc.initialising
			sources := []topology.Source{zonePool(), nodeSource(n)}
			if !tc.alone {
				sources = append(sources, nodeSource(zoneNode("n1", zoneB)))
			}
			tr := topology.New(requirements.DefaultSchema(), sources, nil,
				[]topology.ExistingPod{bound(n, map[string]string{"app": "db"})})
			tr.ExistingNodesFirst()
			cs, os, ds := specOf(tc.carrier), specOf(other), specOf(dbPod)
			cs.Count, os.Count = 4, 4
			pods := register(t, tr, cs, os, ds)
			claim := zonalClaim("c1", zoneA)
			for range tc.others {
				tr.Record(pods[1], allTerms, claim)
			}
			host := claim
			if tc.onNode {
				host = onNode(n)
			}
			for range tc.carriers {
				tr.Record(pods[0], allTerms, host)
			}
			got := check(tr, pods[0], allTerms, host, rankBy(nil))
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check of a carrier (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEarlyOwnersKeepOut: under ExistingNodesFirst, a batch pod without the spread placed on a
// NodeClaim in the zone of a carrier on an existing node is not held back
// by it (the carrier binds first), but one placed on another existing node
// of that zone is; a carrier on a NodeClaim holds back both. Existing
// nodes n0 and n1 in zone a, n2 in zone b.
func TestEarlyOwnersKeepOut(t *testing.T) {
	t.Parallel()
	batch := map[string]string{"tier": "batch"}
	carrier := testutil.Pod("carrier").Label("tier", "batch").Spread(zoneKey, 1, corev1.DoNotSchedule, batch).Obj()
	other := testutil.Pod("other").Label("tier", "batch").Obj()
	tests := []struct {
		name                    string
		carrierOnNode, otherOnN bool
		want                    outcome
	}{
		{name: "carrier on a node, other on a NodeClaim", carrierOnNode: true, want: ok()},
		{name: "carrier on a node, other on a node", carrierOnNode: true, otherOnN: true,
			want: refused(topology.Spread, zoneKey, "", false)},
		{name: "carrier on a NodeClaim, other on a NodeClaim",
			want: refused(topology.Spread, zoneKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n0, n1 := zoneNode("n0", zoneA), zoneNode("n1", zoneA)
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(n0), nodeSource(n1), nodeSource(zoneNode("n2", zoneB))}, nil, nil)
			tr.ExistingNodesFirst()
			cs, os := specOf(carrier), specOf(other)
			cs.Count, os.Count = 1, 2
			pods := register(t, tr, cs, os)
			carrierHost, otherHost := zonalClaim("c1", zoneA), zonalClaim("c2", zoneA)
			if tc.carrierOnNode {
				carrierHost = onNode(n0)
			}
			if tc.otherOnN {
				otherHost = onNode(n1)
			}
			tr.Record(pods[0], allTerms, carrierHost)
			tr.Record(pods[1], allTerms, otherHost)
			got := check(tr, pods[1], allTerms, otherHost, rankBy(nil))
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check of the second other pod (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEarlyBindingOff: by default every pod is judged against every count:
// a carrier on the existing node sees the batch pods of a NodeClaim in its
// zone, and a batch pod on a NodeClaim is kept out of the zone of a
// carrier on an existing node.
func TestEarlyBindingOff(t *testing.T) {
	t.Parallel()
	batch := map[string]string{"tier": "batch"}
	carrier := testutil.Pod("carrier").Label("tier", "batch").Spread(zoneKey, 1, corev1.DoNotSchedule, batch).Obj()
	other := testutil.Pod("other").Label("tier", "batch").Obj()
	n0, n1 := zoneNode("n0", zoneA), zoneNode("n1", zoneB)
	newTracker := func() (*topology.Tracker, []*topology.Pod) {
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(n0), nodeSource(n1)}, nil, nil)
		cs, os := specOf(carrier), specOf(other)
		cs.Count, os.Count = 2, 4
		return tr, register(t, tr, cs, os)
	}
	tr, pods := newTracker()
	claim := zonalClaim("c1", zoneA)
	tr.Record(pods[1], allTerms, claim)
	tr.Record(pods[1], allTerms, claim)
	if diff := gocmp.Diff(refused(topology.Spread, zoneKey, "", false), noGroup(check(tr, pods[0], allTerms, onNode(n0), rankBy(nil)))); diff != "" {
		t.Errorf("carrier on the node (-want +got):\n%s", diff)
	}
	tr, pods = newTracker()
	tr.Record(pods[0], allTerms, onNode(n0))
	tr.Record(pods[1], allTerms, claim)
	if diff := gocmp.Diff(refused(topology.Spread, zoneKey, "", false), noGroup(check(tr, pods[1], allTerms, claim, rankBy(nil)))); diff != "" {
		t.Errorf("second batch pod on a NodeClaim (-want +got):\n%s", diff)
	}
}

// noGroup clears an outcome's group name.
func noGroup(o outcome) outcome {
	if o.Violation != nil {
		o.Violation.Group = ""
	}
	return o
}

// TestEarlyBindingTwoKeys: a pod whose required spreads are on two keys
// (zone and capacity type) binds in the first phase when both pass against
// the existing nodes alone: with the only existing node in zone a and
// on-demand, a third carrier binds there under ExistingNodesFirst, though
// zones b and c and spot (offered by the pool, empty) refuse it against
// every count, as they do without the option or on a node still
// initialising.
func TestEarlyBindingTwoKeys(t *testing.T) {
	t.Parallel()
	batch := map[string]string{"tier": "batch"}
	carrier := testutil.Pod("carrier").Label("tier", "batch").Spread(zoneKey, 1, corev1.DoNotSchedule, batch).
		Spread(ctKey, 1, corev1.DoNotSchedule, batch).Obj()
	tests := []struct {
		name                string
		first, initialising bool
		want                outcome
	}{
		{name: "existing nodes first", first: true, want: ok()},
		{name: "every count", want: refused(topology.Spread, ctKey, "", false)},
		{name: "existing nodes first, node initialising", first: true, initialising: true, want: refused(topology.Spread, ctKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := zoneNode("n0", zoneA)
			n.Labels[ctKey] = requirements.CapacityTypeOnDemand
			n.Late = tc.initialising
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(n)}, nil, nil)
			if tc.first {
				tr.ExistingNodesFirst()
			}
			cs := specOf(carrier)
			cs.Count = 3
			pods := register(t, tr, cs)
			for range 2 {
				tr.Record(pods[0], allTerms, onNode(n))
			}
			got := check(tr, pods[0], allTerms, onNode(n), rankBy(nil))
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check of the third carrier (-want +got):\n%s", diff)
			}
		})
	}
}
