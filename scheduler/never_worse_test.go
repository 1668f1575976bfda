package scheduler_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// The rules below state, on random inputs, what the scenario tests
// never-worse-* show one case at a time: the ways a greedy plan lost to
// Karpenter's that nodeplan rules out.

// neverWorseCases is how many random inputs each rule is checked on.
func neverWorseCases() int {
	if testing.Short() {
		return 60
	}
	return 250
}

// inputWithout returns a random input without per-kind or global
// preference policies (the rule under test sets the policy).
func inputWithout(cats []propertyCatalog, i int, seed uint64) propertyInput {
	in := genInput(rand.New(rand.NewPCG(seed, uint64(i))), cats)
	in.policies = nil
	in.opts = in.options()
	return in
}

// placedSet lists the pods a plan leaves unplaced.
func unplacedSet(res scheduler.Result) []string {
	var out []string
	for _, e := range res.PodErrors {
		out = append(out, e.Pod)
	}
	slices.Sort(out)
	return out
}

// TestPolicyOrder: a looser preference policy never places fewer pods, and
// where the same pods are placed never costs more: Ignore ≤ WhileFree ≤
// Respect. A plan that honours more preferences is valid under a looser
// policy, so Solve also makes the stricter policies' plans and keeps the
// best.
func TestPolicyOrder(t *testing.T) {
	cats := propertyCatalogs(t)
	for i := range neverWorseCases() {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := inputWithout(cats, i, propertySeed+1)
			solve := func(p scheduler.PreferencePolicy) scheduler.Result {
				res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, append(in.options(), scheduler.WithPreferencePolicy(p))...)
				require.NoError(t, err)
				return res
			}
			checkPolicyOrder(t, solve(scheduler.PreferenceIgnore), solve(scheduler.PreferenceWhileFree), solve(scheduler.PreferenceRespect))
		})
	}
}

func checkPolicyOrder(t *testing.T, ignore, whileFree, respect scheduler.Result) {
	t.Helper()
	pairs := []struct {
		looser, stricter string
		a, b             scheduler.Result
	}{{"Ignore", "WhileFree", ignore, whileFree}, {"WhileFree", "Respect", whileFree, respect}, {"Ignore", "Respect", ignore, respect}}
	for _, p := range pairs {
		if p.a.Summary.Scheduled < p.b.Summary.Scheduled {
			t.Errorf("%s places %d pods, %s %d", p.looser, p.a.Summary.Scheduled, p.stricter, p.b.Summary.Scheduled)
			continue
		}
		if slices.Equal(unplacedSet(p.a), unplacedSet(p.b)) && p.a.Summary.PricePerHour > p.b.Summary.PricePerHour+1e-6 {
			t.Errorf("%s costs $%.4f/h, %s $%.4f/h for the same pods", p.looser, p.a.Summary.PricePerHour, p.stricter, p.b.Summary.PricePerHour)
		}
	}
}

// TestPolicyOrderTopologySpreadExample pins the order on the seed's
// topology-spread example, where WhileFree once cost more than both others.
func TestPolicyOrderTopologySpreadExample(t *testing.T) {
	in, err := manifest.Load(filepath.Join("..", "testdata", "examples", "topology-spread"))
	require.NoError(t, err)
	cat, err := aws.Catalog()
	require.NoError(t, err)
	solve := func(p scheduler.PreferencePolicy) scheduler.Result {
		res, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(in.Options(), scheduler.WithPreferencePolicy(p))...)
		require.NoError(t, err)
		return res
	}
	ignore, whileFree, respect := solve(scheduler.PreferenceIgnore), solve(scheduler.PreferenceWhileFree), solve(scheduler.PreferenceRespect)
	checkPolicyOrder(t, ignore, whileFree, respect)
	if whileFree.Summary.PricePerHour >= respect.Summary.PricePerHour {
		t.Errorf("WhileFree $%.4f/h, Respect $%.4f/h: the hostname spread cannot be honoured for free, so WhileFree should cost less",
			whileFree.Summary.PricePerHour, respect.Summary.PricePerHour)
	}
}

// TestSoftConstraintNeverUnplaces: a pod alone is placed under Respect
// exactly when it is placed with its preferences ignored — a preference is
// relaxed, never a reason to leave a pod out.
func TestSoftConstraintNeverUnplaces(t *testing.T) {
	cats := propertyCatalogs(t)
	for i := range neverWorseCases() {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := inputWithout(cats, i, propertySeed+2)
			seen := map[string]bool{}
			for _, p := range in.pods {
				key := p.Labels["app"]
				if seen[key] {
					continue // replicas are alike
				}
				seen[key] = true
				alone := []*corev1.Pod{p}
				placed := func(policy scheduler.PreferencePolicy) int {
					res, err := scheduler.Solve(alone, in.pools, in.catalog.cat, append(in.options(), scheduler.WithPreferencePolicy(policy))...)
					require.NoError(t, err)
					return res.Summary.Scheduled
				}
				if r, ig := placed(scheduler.PreferenceRespect), placed(scheduler.PreferenceIgnore); r != ig {
					t.Errorf("pod %s alone: placed %d under Respect, %d under Ignore", p.Name, r, ig)
				}
			}
		})
	}
}

// TestNoTwoClaimsMergeCheaper: no two NodeClaims of a NodePool cost more
// than the cheapest instance type that holds both (their requests, under
// both requirement sets), for claims whose pods have no topology rules or
// host ports in pools without limits, DaemonSets or minValues.
func TestNoTwoClaimsMergeCheaper(t *testing.T) {
	cats := propertyCatalogs(t)
	for i := range neverWorseCases() {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := inputWithout(cats, i, propertySeed+3)
			if len(in.daemonSets) > 0 {
				t.Skip("DaemonSet overhead is counted once per node")
			}
			res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, in.opts...)
			require.NoError(t, err)
			free := mergeableClaims(in, res)
			for a := range free {
				for b := a + 1; b < len(free); b++ {
					x, y := free[a], free[b]
					if x.NodePool != y.NodePool {
						continue
					}
					if price, it, ok := mergedPrice(in, x, y); ok && x.Price+y.Price > price+1e-6 {
						t.Errorf("%s ($%.4f) and %s ($%.4f) fit one %s for $%.4f", x.Name, x.Price, y.Name, y.Price, it, price)
					}
				}
			}
		})
	}
}

// mergeableClaims returns the claims the merge rule covers.
func mergeableClaims(in propertyInput, res scheduler.Result) []scheduler.NodeClaim {
	byName := map[string]*corev1.Pod{}
	for _, p := range in.pods {
		byName["default/"+p.Name] = p
	}
	plain := func(p *corev1.Pod) bool {
		if p == nil || len(p.Spec.TopologySpreadConstraints) > 0 || len(p.Spec.Volumes) > 0 {
			return false
		}
		if a := p.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
			return false
		}
		for _, c := range p.Spec.Containers {
			if slices.ContainsFunc(c.Ports, func(port corev1.ContainerPort) bool { return port.HostPort > 0 }) {
				return false
			}
		}
		return true
	}
	var out []scheduler.NodeClaim
	for _, nc := range res.NodeClaims {
		pool := in.pools[slices.IndexFunc(in.pools, func(p nodepool.NodePool) bool { return p.Name == nc.NodePool })]
		if len(pool.Spec.Limits) > 0 || slices.ContainsFunc(pool.Spec.Template.Spec.Requirements, func(r nodepool.NodeSelectorRequirementWithMinValues) bool { return r.MinValues != nil }) {
			continue
		}
		if nc.ReservationID != "" || !allPods(nc.Pods, func(n string) bool { return plain(byName[n]) }) {
			continue
		}
		out = append(out, nc)
	}
	return out
}

func allPods(names []string, f func(string) bool) bool {
	return !slices.ContainsFunc(names, func(n string) bool { return !f(n) })
}

// mergedPrice is the cheapest launchable price of a type that holds the
// requests of both claims under both requirement sets (instance-type
// options aside).
func mergedPrice(in propertyInput, x, y scheduler.NodeClaim) (float64, string, bool) {
	reqs, ok := claimRequirements(x)
	if !ok {
		return 0, "", false
	}
	ry, ok := claimRequirements(y)
	if !ok {
		return 0, "", false
	}
	reqs = reqs.Intersect(ry)
	if _, empty := reqs.Empty(); empty {
		return 0, "", false
	}
	need := x.Requests.DeepCopy()
	for k, q := range y.Requests {
		sum := need[k]
		sum.Add(q)
		need[k] = sum
	}
	best, name := math.Inf(1), ""
	for _, it := range in.catalog.cat.Filter(reqs) {
		if !holds(it.Allocatable(), need) {
			continue
		}
		if o, ok := it.CheapestOffering(reqs); ok && o.ReservationID == "" && o.Price < best {
			best, name = o.Price, it.Name
		}
	}
	return best, name, !math.IsInf(best, 1)
}

// claimRequirements reads a NodeClaim's requirements back, without its
// instance-type options.
func claimRequirements(nc scheduler.NodeClaim) (requirements.Requirements, bool) {
	var rs []requirements.Requirement
	for _, e := range nc.Requirements {
		if e.Key == requirements.LabelInstanceType {
			continue
		}
		r, err := requirements.New(e.Key, e.Operator, e.Values...)
		if err != nil {
			return requirements.Requirements{}, false
		}
		rs = append(rs, r)
	}
	out := requirements.NewRequirements()
	for _, r := range rs {
		out = out.Intersect(requirements.NewRequirements(r))
	}
	return out, true
}

// holds reports whether allocatable covers need.
func holds(alloc, need corev1.ResourceList) bool {
	for k, q := range need {
		a, ok := alloc[k]
		if !ok {
			a = resource.Quantity{}
		}
		if a.Cmp(q) < 0 {
			return false
		}
	}
	return true
}

// TestImproveNeverRaisesPrice: the improvement phase only keeps moves that
// cost nothing (a pod moves where it costs no more, a merge or an emptied
// claim that saves) and undoes the rest, so the plan it ends with never
// costs more than the greedy plan it started from (an undone drain once
// took a pod back under another required node-affinity term, on a dearer
// type).
func TestImproveNeverRaisesPrice(t *testing.T) {
	t.Run("drain-undo", func(t *testing.T) {
		dir := filepath.Join("..", "testdata", "scenarios", "never-worse-drain-undo-keeps-claim")
		in, err := manifest.Load(dir)
		require.NoError(t, err)
		data, err := os.ReadFile(filepath.Join(dir, "catalog.json"))
		require.NoError(t, err)
		cat, err := instancetypes.Decode(data, instancetypes.WithBaseSchema(aws.Schema()))
		require.NoError(t, err)
		before, after, err := scheduler.ImprovePrices(in.Pods, in.NodePools, cat, in.Options()...)
		require.NoError(t, err)
		if after > before+1e-9 {
			t.Errorf("the improvement raised the price from $%.4f/h to $%.4f/h", before, after)
		}
	})
	cats := propertyCatalogs(t)
	for i := range neverWorseCases() {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := inputWithout(cats, i, propertySeed+4)
			before, after, err := scheduler.ImprovePrices(in.pods, in.pools, in.catalog.cat, in.options()...)
			require.NoError(t, err)
			if after > before+1e-9 {
				t.Errorf("the improvement raised the price from $%.4f/h to $%.4f/h", before, after)
			}
		})
	}
}

// TestFollowerFirstWithoutRelaxations: a follower of a required pod
// affinity left unplaced because its pending target took the last room
// beside a running target is placed by the plan that queues it first,
// before its targets (firstUnfollow), in a solve made without the plans of
// Karpenter's packing (WithoutRelaxations, as consolidation's simulations
// are), where the unfollowRequired plan is not made.
func TestFollowerFirstWithoutRelaxations(t *testing.T) {
	in, err := manifest.Load(filepath.Join("..", "testdata", "scenarios", "never-worse-required-affinity-follower-first", "manifests.yaml"))
	require.NoError(t, err)
	cat, err := aws.Catalog()
	require.NoError(t, err)
	res, err := scheduler.Solve(in.Pods, in.NodePools, cat, append(in.Options(), scheduler.WithoutRelaxations())...)
	require.NoError(t, err)
	require.Empty(t, unplacedSet(res), "every pod placed")
	var onNode []string
	for _, n := range res.ExistingNodes {
		if n.Name == "node-a" {
			onNode = n.Pods
		}
	}
	require.Equal(t, []string{"default/worker"}, onNode, "the worker joins the running cache pod")
}
