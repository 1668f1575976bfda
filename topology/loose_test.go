package topology_test

import (
	"math"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

// TestCheckLooseKeyNotPinned: with LeaveSoftTargetsOpen, a pod that only
// other pods' preferred anti-affinity counts on a key leaves a NodeClaim
// open there (a soft rule of another pod does not decide where its node
// goes); a required rule, its own term, or any other group counting it pins
// the claim as before, and so does a tracker without the switch.
func TestCheckLooseKeyNotPinned(t *testing.T) {
	t.Parallel()
	webTerm := corev1.PodAffinityTerm{TopologyKey: zoneKey, LabelSelector: &metav1.LabelSelector{MatchLabels: web}}
	rank := rankBy(map[string]float64{zoneB: 1, zoneC: 2, zoneA: 3})
	tests := []struct {
		name   string
		pinAll bool // the tracker is made without LeaveSoftTargetsOpen
		others []*corev1.Pod
		web    *corev1.Pod
		want   outcome
	}{
		{name: "without the switch: pinned", pinAll: true,
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj()},
			web:    testutil.Pod("web").Label("app", "web").Obj(), want: ok(pin(zoneKey, zoneB))},
		{name: "only a preferred anti-affinity counts it: open",
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj()},
			web:    testutil.Pod("web").Label("app", "web").Obj(), want: ok()},
		{name: "two preferred anti-affinities count it: open",
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj(),
				testutil.Pod("scan").Label("app", "scan").PreferredPodAntiAffinity(20, zoneKey, web).Obj()},
			web: testutil.Pod("web").Label("app", "web").Obj(), want: ok()},
		{name: "a required anti-affinity with the same term counts it too: pinned",
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj(),
				testutil.Pod("guard").Label("app", "guard").PodAntiAffinityTerm(webTerm).Obj()},
			web: testutil.Pod("web").Label("app", "web").Obj(), want: ok(pin(zoneKey, zoneB))},
		{name: "a preferred affinity counts it too: pinned",
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj(),
				testutil.Pod("api").Label("app", "api").PreferredPodAffinity(10, zoneKey, web).Obj()},
			web: testutil.Pod("web").Label("app", "web").Obj(), want: ok(pin(zoneKey, zoneB))},
		{name: "its own preferred anti-affinity on the key: open on the zones it allows",
			others: []*corev1.Pod{testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj()},
			web:    testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(5, zoneKey, db).Obj(), want: ok(requirements.In(zoneKey, zoneA, zoneB, zoneC).String())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			if !tc.pinAll {
				tr.LeaveSoftTargetsOpen()
			}
			specs := []topology.PodSpec{specOf(tc.web)}
			for _, o := range tc.others {
				specs = append(specs, specOf(o))
			}
			p := register(t, tr, specs...)[0]
			if diff := gocmp.Diff(tc.want, check(tr, p, allTerms, openClaim("c"), rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLooseCounting: a pod on a NodeClaim left open on a key counts, for
// the preferred anti-affinity that selects it, in every domain the claim
// can still take; when the claim narrows it counts only where the claim
// can go, and taking it away removes exactly what was counted, whatever the
// claim's requirements are by then.
func TestLooseCounting(t *testing.T) {
	t.Parallel()
	open := &topology.Host{Hostname: "c1"}
	narrow := zonalClaim("c1", zoneA)
	everywhere := map[string]bool{zoneA: true, zoneB: true, zoneC: true}
	tests := []struct {
		name string
		// steps run on a fresh tracker; want is where the probe may go
		// after them, and back whether every count is gone (DomainSum too).
		steps func(tr *topology.Tracker, webPod *topology.Pod)
		want  map[string]bool
		back  bool
	}{
		{name: "open claim: counted in every zone", want: map[string]bool{zoneA: false, zoneB: false, zoneC: false},
			steps: func(tr *topology.Tracker, w *topology.Pod) { tr.Record(w, allTerms, open) }},
		{name: "claim open over a and b: counted in a and b", want: map[string]bool{zoneA: false, zoneB: false, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) { tr.Record(w, allTerms, zonalClaim("c1", zoneA, zoneB)) }},
		{name: "claim narrowed to a (Rehost): counted in a only", want: map[string]bool{zoneA: false, zoneB: true, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Rehost(narrow)
			}},
		{name: "a second pod on the narrowed claim moves the first", want: map[string]bool{zoneA: false, zoneB: true, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Record(w, allTerms, narrow)
			}},
		{name: "taken away after the claim narrowed", want: everywhere, back: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Rehost(narrow)
				tr.Unrecord(w, allTerms, narrow)
			}},
		{name: "taken away under the claim's old requirements", want: everywhere, back: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Rehost(narrow)
				tr.Unrecord(w, allTerms, open)
			}},
		{name: "two pods, one taken away: the other still counts", want: map[string]bool{zoneA: false, zoneB: true, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Record(w, allTerms, open)
				tr.Rehost(narrow)
				tr.Unrecord(w, allTerms, narrow)
			}},
		{name: "taken from a claim that holds none: no change", want: everywhere, back: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Unrecord(w, allTerms, open)
				tr.Rehost(narrow)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, w, probe := looseTracker(t, false)
			checkLooseSteps(t, tr, w, probe, tc.steps, tc.want, tc.back)
		})
	}
}

// TestKeepLooseCounts: with KeepLooseCounts, a pod counts for the preferred
// anti-affinity that selects it in the domains its NodeClaim could take
// when it joined, and stays there when the claim narrows (Karpenter records
// a pod once, as it adds it); a later pod counts where the claim can go
// then; taking pods away removes the last one's counts first.
func TestKeepLooseCounts(t *testing.T) {
	t.Parallel()
	open := &topology.Host{Hostname: "c1"}
	ab := zonalClaim("c1", zoneA, zoneB)
	narrow := zonalClaim("c1", zoneA)
	everywhere := map[string]bool{zoneA: true, zoneB: true, zoneC: true}
	tests := []struct {
		name  string
		steps func(tr *topology.Tracker, webPod *topology.Pod)
		want  map[string]bool
		back  bool
	}{
		{name: "claim open over a and b, then narrowed to a: still counted in a and b", want: map[string]bool{zoneA: false, zoneB: false, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, ab)
				tr.Rehost(narrow)
			}},
		{name: "a second pod on the narrowed claim counts in a only, the first stays", want: map[string]bool{zoneA: false, zoneB: false, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, ab)
				tr.Record(w, allTerms, narrow)
			}},
		{name: "the second taken away: the first's counts stay", want: map[string]bool{zoneA: false, zoneB: false, zoneC: true},
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, ab)
				tr.Record(w, allTerms, narrow)
				tr.Unrecord(w, allTerms, narrow)
			}},
		{name: "the first on an open claim, the second on the narrowed one, both taken away", want: everywhere, back: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, allTerms, open)
				tr.Record(w, allTerms, narrow)
				tr.Unrecord(w, allTerms, narrow)
				tr.Unrecord(w, allTerms, narrow)
			}},
		{name: "taken from a claim that holds none: no change", want: everywhere, back: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) { tr.Unrecord(w, allTerms, open) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr, w, probe := looseTracker(t, true)
			checkLooseSteps(t, tr, w, probe, tc.steps, tc.want, tc.back)
		})
	}
}

// looseTracker is a tracker with LeaveSoftTargetsOpen (and KeepLooseCounts
// when keep) over the zone pool, with a web pod and a probe that prefers to
// avoid web pods' zones registered.
func looseTracker(t *testing.T, keep bool) (tr *topology.Tracker, webPod, probe *topology.Pod) {
	t.Helper()
	tr = topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
	tr.LeaveSoftTargetsOpen()
	if keep {
		tr.KeepLooseCounts()
	}
	pods := register(t, tr,
		specOf(testutil.Pod("web").Label("app", "web").Obj()),
		specOf(testutil.Pod("probe").PreferredPodAntiAffinity(10, zoneKey, web).Obj()))
	return tr, pods[0], pods[1]
}

// checkLooseSteps runs steps on tr and checks where the probe keeps its
// preference (zone by zone, on a claim in that zone) against want, and
// whether every count is gone again (DomainSum back at the start) against
// back.
func checkLooseSteps(t *testing.T, tr *topology.Tracker, w, probe *topology.Pod, steps func(*topology.Tracker, *topology.Pod), want map[string]bool, back bool) {
	t.Helper()
	start := tr.DomainSum()
	steps(tr, w)
	got := map[string]bool{}
	for _, z := range []string{zoneA, zoneB, zoneC} {
		_, v := tr.Check(probe, allTerms, zonalClaim("p", z), nil)
		got[z] = v == nil
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("zones where the probe keeps its preference (-want +got):\n%s", diff)
	}
	if ok := tr.DomainSum() == start; ok != back {
		t.Errorf("DomainSum back at the start: %t, want %t", ok, back)
	}
}

// TestOpenRelaxed: under OpenRelaxed a NodeClaim stays open on a key where
// the pod's only rule is a relaxed ScheduleAnyway spread and only groups
// of preferences count it, so a pin there never takes the claim's
// instance types away; a required spread of another pod that counts the
// pod there keeps the key pinned, and an active rule of its own is
// checked as ever.
func TestOpenRelaxed(t *testing.T) {
	t.Parallel()
	none := func([]requirements.Requirement, string, string) float64 { return math.Inf(1) }
	racks := poolSource("default", map[string][]string{rackKey: {"r1", "r2"}})
	tests := []struct {
		name     string
		open     bool
		required bool
		active   topology.Active
		want     outcome
	}{
		{name: "pinned: no rack has an instance type", active: requiredOnly, want: refused(topology.Spread, rackKey, "", false)},
		{name: "open relaxed", open: true, active: requiredOnly, want: ok()},
		{name: "open relaxed, counted by a required spread", open: true, required: true, active: requiredOnly,
			want: refused(topology.Spread, rackKey, "", false)},
		{name: "open relaxed, the spread active", open: true, active: allTerms, want: refused(topology.Spread, rackKey, "", false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{racks}, nil, nil)
			other := testutil.Pod("other").Label("app", "other")
			if tc.required {
				other = other.Spread(rackKey, 1, corev1.DoNotSchedule, map[string]string{"tier": "batch"})
			}
			pods := register(t, tr, specOf(other.Obj()),
				specOf(testutil.Pod("batch").Label("tier", "batch").
					Spread(rackKey, 1, corev1.ScheduleAnyway, map[string]string{"tier": "batch"}).Obj()))
			tr.OpenRelaxed(tc.open)
			host := &topology.Host{Hostname: "c1", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r1", "r2")),
				Domains: domainList{rackKey: {"r1", "r2"}}}
			got := check(tr, pods[1], tc.active, host, none)
			if got.Violation != nil {
				got.Violation.Group = ""
			}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenRelaxedCounts: a pod placed on a NodeClaim left open on its
// relaxed soft spread's zone counts for that spread in every zone the
// claim may take, in the one it takes once narrowed (Rehost), and nowhere
// once taken away: a second replica with the spread active may go to zone
// a only while a is no fuller than the others.
func TestOpenRelaxedCounts(t *testing.T) {
	t.Parallel()
	open := &topology.Host{Hostname: "c1"}
	narrow := zonalClaim("c1", zoneA)
	tests := []struct {
		name  string
		steps func(tr *topology.Tracker, w *topology.Pod)
		// want: whether the replica may go to a NodeClaim in zone a, in b.
		wantA, wantB bool
	}{
		{name: "nothing placed", steps: func(*topology.Tracker, *topology.Pod) {}, wantA: true, wantB: true},
		{name: "open claim: counted in every zone", wantA: true, wantB: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) { tr.Record(w, requiredOnly, open) }},
		{name: "narrowed to a: counted in a", wantB: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, requiredOnly, open)
				tr.Rehost(narrow)
			}},
		{name: "taken away after narrowing", wantA: true, wantB: true,
			steps: func(tr *topology.Tracker, w *topology.Pod) {
				tr.Record(w, requiredOnly, open)
				tr.Rehost(narrow)
				tr.Unrecord(w, requiredOnly, narrow)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			pods := register(t, tr, specOf(testutil.Pod("web").Label("app", "web").Spread(zoneKey, 1, corev1.ScheduleAnyway, web).Obj()))
			tc.steps(tr, pods[0])
			gotA := check(tr, pods[0], allTerms, zonalClaim("c2", zoneA), nil).Violation == nil
			gotB := check(tr, pods[0], allTerms, zonalClaim("c3", zoneB), nil).Violation == nil
			if gotA != tc.wantA || gotB != tc.wantB {
				t.Errorf("replica allowed in zone a %v, b %v; want %v, %v", gotA, gotB, tc.wantA, tc.wantB)
			}
		})
	}
}
