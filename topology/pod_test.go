package topology_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

func TestPodPredicates(t *testing.T) {
	t.Parallel()
	type predicates struct {
		Isolated, Relevant, SelfAffine, Movable bool
		Keys                                    []string
	}
	tests := []struct {
		name   string
		pod    *corev1.Pod
		others []*corev1.Pod // registered with the pod
		want   predicates
	}{
		{
			name: "no constraints and nobody counts it",
			pod:  testutil.Pod("web").Label("app", "web").Obj(),
			want: predicates{Movable: true},
		},
		{
			name: "required self anti-affinity on hostname is isolated",
			pod:  testutil.Pod("web").Label("app", "web").PodAntiAffinity(hostKey, web).Obj(),
			want: predicates{Isolated: true, Relevant: true, Movable: true, Keys: []string{hostKey}},
		},
		{
			name: "anti-affinity on hostname to other pods is not isolation",
			pod:  testutil.Pod("web").Label("app", "web").PodAntiAffinity(hostKey, db).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{hostKey}},
		},
		{
			name: "preferred self anti-affinity on hostname is not isolation",
			pod:  testutil.Pod("web").Label("app", "web").PreferredPodAntiAffinity(1, hostKey, web).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{hostKey}},
		},
		{
			name: "self anti-affinity on zone is not isolation",
			pod:  testutil.Pod("web").Label("app", "web").PodAntiAffinity(zoneKey, web).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{zoneKey}},
		},
		{
			name: "anti-affinity selecting the pod's labels in another namespace is not isolation",
			pod: testutil.Pod("web").Label("app", "web").PodAntiAffinityTerm(corev1.PodAffinityTerm{TopologyKey: hostKey,
				LabelSelector: &metav1.LabelSelector{MatchLabels: web}, Namespaces: []string{"other"}}).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{hostKey}},
		},
		{
			name: "keys of its own terms, sorted",
			pod: testutil.Pod("web").Label("app", "web").
				Spread(zoneKey, 1, corev1.DoNotSchedule, web).Spread(hostKey, 1, corev1.DoNotSchedule, web).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{hostKey, zoneKey}},
		},
		{
			name: "keys of groups that count it, sorted",
			pod:  testutil.Pod("web").Label("app", "web").Obj(),
			others: []*corev1.Pod{testutil.Pod("api").Label("app", "api").
				PodAntiAffinity(hostKey, web).Spread(ctKey, 1, corev1.DoNotSchedule, web).Obj()},
			want: predicates{Relevant: true, Movable: true, Keys: []string{ctKey, hostKey}},
		},
		{
			name:   "a group in another namespace does not count it",
			pod:    testutil.Pod("web").Label("app", "web").Obj(),
			others: []*corev1.Pod{testutil.Pod("api").Namespace("other").Label("app", "api").PodAntiAffinity(hostKey, web).Obj()},
			want:   predicates{Movable: true},
		},
		{
			name: "required self affinity on hostname: self-affine, stays put",
			pod:  testutil.Pod("cache").Label("app", "cache").PodAffinity(hostKey, cache).Obj(),
			want: predicates{Relevant: true, SelfAffine: true, Keys: []string{hostKey}},
		},
		{
			name: "required self affinity on zone: self-affine, movable",
			pod:  testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj(),
			want: predicates{Relevant: true, SelfAffine: true, Movable: true, Keys: []string{zoneKey}},
		},
		{
			name: "required affinity on hostname to other pods: not self-affine, stays put",
			pod:  testutil.Pod("api").Label("app", "api").PodAffinity(hostKey, db).Obj(),
			want: predicates{Relevant: true, Keys: []string{hostKey}},
		},
		{
			name: "preferred self affinity is not self-affine",
			pod:  testutil.Pod("cache").Label("app", "cache").PreferredPodAffinity(10, zoneKey, cache).Obj(),
			want: predicates{Relevant: true, Movable: true, Keys: []string{zoneKey}},
		},
		{
			name:   "counted by another pod's hostname affinity: stays put",
			pod:    testutil.Pod("db").Label("app", "db").Obj(),
			others: []*corev1.Pod{testutil.Pod("api").Label("app", "api").PodAffinity(hostKey, db).Obj()},
			want:   predicates{Relevant: true, Keys: []string{hostKey}},
		},
		{
			name:   "counted by another pod's zone affinity: movable",
			pod:    testutil.Pod("db").Label("app", "db").Obj(),
			others: []*corev1.Pod{testutil.Pod("api").Label("app", "api").PodAffinity(zoneKey, db).Obj()},
			want:   predicates{Relevant: true, Movable: true, Keys: []string{zoneKey}},
		},
		{
			name:   "counted by another pod's hostname anti-affinity: movable",
			pod:    testutil.Pod("db").Label("app", "db").Obj(),
			others: []*corev1.Pod{testutil.Pod("api").Label("app", "api").PodAntiAffinity(hostKey, db).Obj()},
			want:   predicates{Relevant: true, Movable: true, Keys: []string{hostKey}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
			specs := []topology.PodSpec{specOf(tc.pod)}
			for _, o := range tc.others {
				specs = append(specs, specOf(o))
			}
			p := register(t, tr, specs...)[0]
			got := predicates{Isolated: p.Isolated(), Relevant: p.Relevant(), SelfAffine: p.SelfAffine(), Movable: p.Movable(), Keys: p.Keys()}
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("predicates (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelfAffinityBootstrap: a pod whose required affinity selects itself may
// start a domain while no domain it could use has a matching pod; after
// that it must join a domain with one.
func TestSelfAffinityBootstrap(t *testing.T) {
	t.Parallel()
	nC := zoneNode("nc", zoneC)
	zoneCache := testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj()
	hostCache := testutil.Pod("cache").Label("app", "cache").PodAffinity(hostKey, cache).Obj()
	zoneGroup := "pod affinity on topology.kubernetes.io/zone (app=cache)"
	hostGroup := "pod affinity on kubernetes.io/hostname (app=cache)"
	tests := []struct {
		name     string
		pod      *corev1.Pod
		existing []topology.ExistingPod
		recorded []*topology.Host // where pods of the class were recorded first
		host     *topology.Host
		rank     topology.Ranker
		want     outcome
	}{
		{name: "first pod may start any zone", pod: zoneCache, host: openClaim("c"), want: ok(pin(zoneKey, zoneA))},
		{name: "first pod on a planned claim in any zone", pod: zoneCache, host: zonalClaim("c", zoneB), want: ok()},
		{name: "the ranker picks the zone it starts", pod: zoneCache, host: openClaim("c"),
			rank: rankBy(map[string]float64{zoneC: 0}), want: ok(pin(zoneKey, zoneC))},
		{name: "after a record the group follows it", pod: zoneCache, recorded: []*topology.Host{zonalClaim("r", zoneB)},
			host: openClaim("c"), want: ok(pin(zoneKey, zoneB))},
		{name: "after a record another zone is refused", pod: zoneCache, recorded: []*topology.Host{zonalClaim("r", zoneB)},
			host: zonalClaim("c", zoneA), want: refused(topology.Affinity, zoneKey, zoneGroup, false)},
		{name: "an existing match forbids a new zone", pod: zoneCache, existing: []topology.ExistingPod{bound(nC, cache)},
			host: zonalClaim("c", zoneA), want: refused(topology.Affinity, zoneKey, zoneGroup, false)},
		{name: "an existing match: an open claim is pinned to its zone", pod: zoneCache, existing: []topology.ExistingPod{bound(nC, cache)},
			host: openClaim("c"), want: ok(pin(zoneKey, zoneC))},
		{name: "a match in another namespace does not count", pod: zoneCache,
			existing: []topology.ExistingPod{{Namespace: "other", Labels: cache, Node: nC}},
			host:     zonalClaim("c", zoneA), want: ok()},
		{name: "a pod its affinity does not select cannot start a zone",
			pod:  testutil.Pod("api").Label("app", "api").PodAffinity(zoneKey, cache).Obj(),
			host: openClaim("c"), want: refused(topology.Affinity, zoneKey, zoneGroup, false)},
		{name: "a key no source offers: a match anywhere forbids a new domain",
			pod:      testutil.Pod("cache").Label("app", "cache").PodAffinity(rackKey, cache).Obj(),
			existing: []topology.ExistingPod{bound(&topology.Node{Name: "rack-node", Labels: map[string]string{rackKey: "r1"}}, cache)},
			host:     &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r2"))},
			want:     refused(topology.Affinity, rackKey, "pod affinity on example.com/rack (app=cache)", false)},
		{name: "a key no source offers: the first pod may start a domain",
			pod:  testutil.Pod("cache").Label("app", "cache").PodAffinity(rackKey, cache).Obj(),
			host: &topology.Host{Hostname: "c", Requirements: requirements.NewRequirements(requirements.In(rackKey, "r2"))},
			want: ok()},
		{name: "hostname: first pod may start a node", pod: hostCache, host: openClaim("c"), want: ok()},
		{name: "hostname: after a record a new node is refused", pod: hostCache, recorded: []*topology.Host{zonalClaim("r", zoneA)},
			host: openClaim("c"), want: refused(topology.Affinity, hostKey, hostGroup, false)},
		{name: "hostname: after a record its node is allowed", pod: hostCache, recorded: []*topology.Host{zonalClaim("r", zoneA)},
			host: openClaim("r"), want: ok()},
		{name: "hostname: an existing match anywhere forbids a new node", pod: hostCache, existing: []topology.ExistingPod{bound(nC, cache)},
			host: openClaim("c"), want: refused(topology.Affinity, hostKey, hostGroup, false)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nC)}, nil, tc.existing)
			p := register(t, tr, specOf(tc.pod))[0]
			for _, h := range tc.recorded {
				tr.Record(p, allTerms, h)
			}
			if diff := gocmp.Diff(tc.want, check(tr, p, requiredOnly, tc.host, tc.rank)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSelfAffinityBootstrapFollowsKubeScheduler: a self-selecting pod may
// start a domain only while no matching pod runs anywhere, as
// kube-scheduler's InterPodAffinity filter rules (len(affinityCounts) == 0).
// A match in a zone the pod's own requirements exclude therefore makes the
// pod unschedulable (Karpenter would bootstrap it, and the pod would stay
// Pending on the node launched for it).
func TestSelfAffinityBootstrapFollowsKubeScheduler(t *testing.T) {
	t.Parallel()
	nC := zoneNode("nc", zoneC)
	zoneAB := []requirements.Requirements{requirements.NewRequirements(requirements.In(zoneKey, zoneA, zoneB))}

	t.Run("Check refuses a bootstrap while a match runs outside the pod's zones", func(t *testing.T) {
		t.Parallel()
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nC)}, nil,
			[]topology.ExistingPod{bound(nC, cache)})
		spec := specOf(testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj())
		spec.Requirements = zoneAB
		p := register(t, tr, spec)[0]
		want := refused(topology.Affinity, zoneKey, "pod affinity on topology.kubernetes.io/zone (app=cache)", false)
		if diff := gocmp.Diff(want, check(tr, p, requiredOnly, zonalClaim("c", zoneA), nil)); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})
	t.Run("Check allows a bootstrap when nothing matches", func(t *testing.T) {
		t.Parallel()
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nC)}, nil, nil)
		spec := specOf(testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj())
		spec.Requirements = zoneAB
		p := register(t, tr, spec)[0]
		if diff := gocmp.Diff(ok(), check(tr, p, requiredOnly, zonalClaim("c", zoneA), nil)); diff != "" {
			t.Errorf("Check (-want +got):\n%s", diff)
		}
	})
	t.Run("Stranded by a match in any other zone", func(t *testing.T) {
		t.Parallel()
		tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool()}, nil, nil)
		spec := specOf(testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj())
		spec.Requirements = zoneAB
		pods := register(t, tr, spec, specOf(testutil.Pod("follower").Label("app", "cache").Obj()))
		at := zonalClaim("c1", zoneA)
		tr.Record(pods[0], requiredOnly, at)
		if tr.Stranded(pods[0], at) {
			t.Error("Stranded = true with no other match")
		}
		tr.Record(pods[1], requiredOnly, zonalClaim("c2", zoneC))
		if !tr.Stranded(pods[0], at) {
			t.Error("Stranded = false for a match in a zone the pod cannot use (kube-scheduler then refuses the bootstrap)")
		}
	})
}

func TestStranded(t *testing.T) {
	t.Parallel()
	nB := zoneNode("nb", zoneB)
	zoneCache := testutil.Pod("cache").Label("app", "cache").PodAffinity(zoneKey, cache).Obj()
	hostCache := testutil.Pod("cache").Label("app", "cache").PodAffinity(hostKey, cache).Obj()
	follower := testutil.Pod("follower").Label("app", "cache").Obj()
	type placed struct {
		pod  *corev1.Pod
		host *topology.Host
	}
	tests := []struct {
		name     string
		pod      *corev1.Pod // recorded on zonalClaim("c1", zoneA)
		existing []topology.ExistingPod
		others   []placed // recorded after it
		want     bool
	}{
		{name: "alone in its zone with no other match", pod: zoneCache},
		{name: "alone in its zone while a match is in another zone it could use", pod: zoneCache,
			others: []placed{{follower, zonalClaim("c2", zoneB)}}, want: true},
		{name: "alone in its zone while a match is bound in another zone", pod: zoneCache,
			existing: []topology.ExistingPod{bound(nB, cache)}, want: true},
		{name: "shares its zone with a match", pod: zoneCache,
			others: []placed{{follower, zonalClaim("c2", zoneA)}, {follower, zonalClaim("c3", zoneB)}}},
		{name: "shares its zone with another pod of its class", pod: zoneCache,
			others: []placed{{zoneCache, zonalClaim("c2", zoneA)}}},
		{name: "hostname: alone on its node while a match is on another node", pod: hostCache,
			others: []placed{{follower, zonalClaim("c2", zoneA)}}, want: true},
		{name: "hostname: shares its node", pod: hostCache,
			others: []placed{{follower, zonalClaim("c1", zoneA)}, {follower, zonalClaim("c2", zoneA)}}},
		{name: "affinity that does not select the pod", pod: testutil.Pod("api").Label("app", "api").PodAffinity(zoneKey, cache).Obj(),
			others: []placed{{follower, zonalClaim("c2", zoneB)}}},
		{name: "preferred self affinity", pod: testutil.Pod("cache").Label("app", "cache").PreferredPodAffinity(10, zoneKey, cache).Obj(),
			others: []placed{{follower, zonalClaim("c2", zoneB)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := topology.New(requirements.DefaultSchema(), []topology.Source{zonePool(), nodeSource(nB)}, nil, tc.existing)
			specs := []topology.PodSpec{specOf(tc.pod)}
			for _, o := range tc.others {
				specs = append(specs, specOf(o.pod))
			}
			pods := register(t, tr, specs...)
			at := zonalClaim("c1", zoneA)
			tr.Record(pods[0], allTerms, at)
			for i, o := range tc.others {
				tr.Record(pods[i+1], allTerms, o.host)
			}
			if got := tr.Stranded(pods[0], at); got != tc.want {
				t.Errorf("Stranded = %t, want %t", got, tc.want)
			}
		})
	}
}
