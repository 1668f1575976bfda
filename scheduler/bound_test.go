package scheduler_test

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	podresource "k8s.io/component-helpers/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/verify"
)

// boundSeed seeds every generated input of TestPriceLowerBound; case i
// uses the stream (boundSeed, i), so a failing case reruns alone with
// -run 'TestPriceLowerBound/cases/case-017'.
const boundSeed = 20261207

// boundEps is the slack of every price comparison: prices are sums of a few
// offering prices, and the summary rounds them to 1e-9.
const boundEps = 1e-6

// TestPriceLowerBound checks, on small random inputs, that
// Summary.PriceLowerBound is a lower bound: no valid plan for the pods the
// solver put on new NodeClaims costs less.
//
// The inputs have no limits, taints, DaemonSets, topology, existing nodes
// or preferences, so a plan is valid exactly when it partitions the pods
// into nodes, each node a (NodePool, instance type, available offering)
// whose labels satisfy the pool's requirements and every pod's node
// affinity, and whose allocatable holds the sum of its pods' requests. The
// test enumerates every set partition of the placed pods (at most Bell(6) =
// 203) and prices each block at its cheapest such node, with Kubernetes'
// own matching (nodeaffinity) and pod requests (resource.PodRequests), not
// the solver's. With opt the cheapest partition it asserts:
//
//	0 < PriceLowerBound ≤ opt ≤ PricePerHour   (when some pod is placed)
//
// The second inequality holds because the solver's plan is itself a
// partition; each of its NodeClaims is also checked to cost no less than
// the cheapest node for its pods, so a break there points at this search.
// A pod the solver left unplaced must have no node of its own.
func TestPriceLowerBound(t *testing.T) {
	cases := 300
	if testing.Short() {
		cases = 60
	}
	stats := make([]boundStat, cases) // one slot per case, merged in order
	t.Run("cases", func(t *testing.T) {
		for i := range cases {
			t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
				t.Parallel()
				in := genBoundInput(t, rand.New(rand.NewPCG(boundSeed, uint64(i))))
				stats[i] = checkBound(t, in)
			})
		}
	})
	logBoundStats(t, stats)
}

// boundInput is one generated input.
type boundInput struct {
	cat   instancetypes.Catalog
	pools []nodepool.NodePool
	pods  []*corev1.Pod
}

// boundStat is what one case contributes to the aggregated log.
type boundStat struct {
	placed             bool
	opt, price, bound  float64
	podsPlaced, nClaim int
	onePool            bool
	// single is the price of the dearest cheapest node one placed pod can
	// run on alone: a lower bound too, since some node hosts that pod.
	single float64
	// input is describeBound's rendering, kept to show the worst case.
	input string
}

func genBoundInput(t *testing.T, rng *rand.Rand) boundInput {
	t.Helper()
	zones := []string{"z1", "z2", "z3"}
	chance := func(p float64) bool { return rng.Float64() < p }
	subset := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if chance(0.5) {
				out = append(out, x)
			}
		}
		if len(out) == 0 {
			out = []string{pick(rng, xs...)}
		}
		return out
	}
	var types []instancetypes.InstanceType
	for i := range 2 + rng.IntN(4) {
		cpu, memGi := 1+rng.IntN(8), 1+rng.IntN(32)
		b := testutil.InstanceType("t"+strconv.Itoa(i)).Label(requirements.LabelArch, pick(rng, "amd64", "arm64")).
			CPU(strconv.Itoa(cpu)).Memory(strconv.Itoa(memGi) + "Gi").Pods("110")
		if chance(0.3) {
			b.KubeReserved(corev1.ResourceCPU, "100m").KubeReserved(corev1.ResourceMemory, "256Mi")
		}
		// Bigger is usually pricier: the price follows the size, times noise
		// wide enough to invert some pairs.
		base := (0.02*float64(cpu) + 0.004*float64(memGi)) * (0.6 + 0.8*rng.Float64())
		for _, z := range subset(zones) {
			for _, ct := range []string{"on-demand", "spot"} {
				if ct == "spot" && chance(0.3) || ct == "on-demand" && chance(0.15) {
					continue
				}
				price := base * (1 + 0.1*rng.Float64())
				if ct == "spot" {
					price = base * (0.3 + 0.4*rng.Float64())
				}
				price = max(0.0001, math.Round(price*1e4)/1e4)
				if chance(0.12) {
					b.UnavailableOffering(z, ct, price)
				} else {
					b.Offering(z, ct, price)
				}
			}
		}
		if it := b.Obj(); len(it.Offerings) > 0 { // NewCatalog refuses a type without offerings
			types = append(types, it)
		}
	}
	cat, err := instancetypes.NewCatalog(types, instancetypes.WithBaseSchema(aws.Schema()))
	require.NoError(t, err)

	var pools []nodepool.NodePool
	for i := range 1 + rng.IntN(2) {
		b := testutil.NodePool("pool-" + string(rune('a'+i)))
		if chance(0.3) {
			b.Requirement(requirements.LabelTopologyZone, corev1.NodeSelectorOpIn, subset(zones)...)
		}
		if chance(0.3) {
			b.Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, pick(rng, "spot", "on-demand"))
		}
		if chance(0.25) {
			b.Requirement(requirements.LabelArch, pick(rng, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn), pick(rng, "amd64", "arm64"))
		}
		if chance(0.3) {
			b.Weight(int32(1 + rng.IntN(50)))
		}
		pools = append(pools, b.Obj())
	}

	var pods []*corev1.Pod
	for i := range 1 + rng.IntN(6) {
		cpuM, memMi := 100*(1+rng.IntN(30)), 64*(1+rng.IntN(96))
		if chance(0.2) {
			cpuM, memMi = 100*(1+rng.IntN(80)), 256*(1+rng.IntN(120))
		}
		if chance(0.07) {
			cpuM = 8100 + 100*rng.IntN(20) // more than any type has
		}
		if chance(0.05) {
			memMi = 1024 * (33 + rng.IntN(8))
		}
		b := testutil.Pod("p" + strconv.Itoa(i)).CPU(strconv.Itoa(cpuM) + "m").Memory(strconv.Itoa(memMi) + "Mi")
		if chance(0.2) {
			b.NodeSelector(requirements.LabelTopologyZone, pick(rng, zones...))
		}
		if chance(0.15) {
			b.NodeSelector(requirements.LabelArch, pick(rng, "amd64", "arm64"))
		}
		if chance(0.15) {
			b.NodeSelector(requirements.LabelCapacityType, pick(rng, "spot", "on-demand"))
		}
		pods = append(pods, b.Obj())
	}
	return boundInput{cat: cat, pools: pools, pods: pods}
}

// boundCandidate is one node a plan may launch: a pool, an instance type
// and one of its available offerings, with the labels the node carries.
type boundCandidate struct {
	pool     string
	typ      *instancetypes.InstanceType
	offering instancetypes.Offering
	node     *corev1.Node
}

func (c boundCandidate) String() string {
	return fmt.Sprintf("%s/%s/%s/%s@%.4f", c.pool, c.typ.Name, c.offering.Zone, c.offering.CapacityType, c.offering.Price)
}

// boundCandidates lists every (pool, type, available offering) whose node
// labels satisfy the pool's requirements.
func boundCandidates(t *testing.T, in boundInput) []boundCandidate {
	t.Helper()
	var out []boundCandidate
	for _, np := range in.pools {
		var exprs []corev1.NodeSelectorRequirement
		for _, r := range np.Spec.Template.Spec.Requirements {
			exprs = append(exprs, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}})
		require.NoError(t, err)
		for _, it := range in.cat.Types() {
			for _, o := range it.Offerings {
				if o.Unavailable {
					continue
				}
				labels := map[string]string{
					requirements.LabelTopologyZone: o.Zone,
					requirements.LabelCapacityType: o.CapacityType,
					requirements.LabelNodePool:     np.Name,
				}
				for k, v := range it.Labels {
					labels[k] = v
				}
				node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "candidate", Labels: labels}}
				// A term without expressions matches nothing in Kubernetes;
				// a pool without requirements accepts every node.
				if len(exprs) == 0 || sel.Match(node) {
					out = append(out, boundCandidate{pool: np.Name, typ: it, offering: o, node: node})
				}
			}
		}
	}
	return out
}

// blockCosts prices every subset (bit mask) of the pods at its cheapest
// candidate: one whose node every pod of the subset accepts and whose
// allocatable holds their summed requests (cpu, memory, and one pod slot
// each). An infeasible subset costs +Inf; which[mask] is the candidate.
func blockCosts(t *testing.T, pods []*corev1.Pod, cands []boundCandidate) (cost []float64, which []int) {
	t.Helper()
	n := len(pods)
	accepts := make([][]bool, n) // accepts[p][c]: pod p may run on candidate c
	reqs := make([][3]int64, n)  // cpu millis, memory bytes, pods
	for p, pod := range pods {
		aff := nodeaffinity.GetRequiredNodeAffinity(pod)
		accepts[p] = make([]bool, len(cands))
		for c := range cands {
			ok, err := aff.Match(cands[c].node)
			require.NoError(t, err)
			accepts[p][c] = ok
		}
		r := podresource.PodRequests(pod, podresource.PodResourcesOptions{})
		reqs[p] = [3]int64{r.Cpu().MilliValue(), r.Memory().Value(), 1}
	}
	alloc := make([][3]int64, len(cands))
	for c := range cands {
		a := cands[c].typ.Allocatable()
		alloc[c] = [3]int64{a.Cpu().MilliValue(), a.Memory().Value(), a.Pods().Value()}
	}
	cost = make([]float64, 1<<n)
	which = make([]int, 1<<n)
	for mask := 1; mask < 1<<n; mask++ {
		cost[mask], which[mask] = math.Inf(1), -1
		var sum [3]int64
		for p := range n {
			if mask&(1<<p) != 0 {
				for d := range sum {
					sum[d] += reqs[p][d]
				}
			}
		}
		for c := range cands {
			if sum[0] > alloc[c][0] || sum[1] > alloc[c][1] || sum[2] > alloc[c][2] {
				continue
			}
			ok := true
			for p := 0; p < n && ok; p++ {
				ok = mask&(1<<p) == 0 || accepts[p][c]
			}
			if ok && cands[c].offering.Price < cost[mask] {
				cost[mask], which[mask] = cands[c].offering.Price, c
			}
		}
	}
	return cost, which
}

// cheapestPartition enumerates every set partition of the pods in members
// (a restricted growth string: pod k joins one of the blocks so far or opens
// the next) and returns the cheapest total with its blocks, or +Inf when
// every partition has an infeasible block.
func cheapestPartition(members []int, cost []float64) (float64, []int) {
	best, bestBlocks := math.Inf(1), []int(nil)
	blocks := make([]int, 0, len(members))
	var rec func(k int)
	rec = func(k int) {
		if k == len(members) {
			total := 0.0
			for _, b := range blocks { // fixed order: sums are reproducible
				total += cost[b]
			}
			if total < best {
				best, bestBlocks = total, slices.Clone(blocks)
			}
			return
		}
		bit := 1 << members[k]
		for i := range blocks {
			blocks[i] |= bit
			rec(k + 1)
			blocks[i] &^= bit
		}
		blocks = append(blocks, bit)
		rec(k + 1)
		blocks = blocks[:len(blocks)-1]
	}
	if len(members) > 0 {
		rec(0)
	} else {
		best = 0
	}
	return best, bestBlocks
}

func checkBound(t *testing.T, in boundInput) boundStat {
	t.Helper()
	res, err := scheduler.Solve(in.pods, in.pools, in.cat)
	require.NoError(t, err)
	require.NoError(t, verify.Plan(in.pods, in.pools, in.cat, res), "precondition: the plan verifies")
	require.Empty(t, res.ExistingNodes, "precondition: no existing nodes")

	index := map[string]int{}
	for i, p := range in.pods {
		index[p.Namespace+"/"+p.Name] = i
	}
	cands := boundCandidates(t, in)
	cost, which := blockCosts(t, in.pods, cands)
	indices := func(claims []scheduler.NodeClaim) []int { // of the claims' pods, sorted
		var out []int
		for _, nc := range claims {
			for _, name := range nc.Pods {
				out = append(out, index[name])
			}
		}
		slices.Sort(out)
		return out
	}
	placed := indices(res.NodeClaims)
	opt, blocks := cheapestPartition(placed, cost)

	// The seam for a plan changed after Solve (scheduler.PriceLowerBound):
	// Solve's own bound for Solve's plan, and for the plan with its last
	// NodeClaims taken off a bound no valid plan for the pods left beats.
	seam, err := scheduler.PriceLowerBound(in.pods, in.pools, in.cat, res)
	require.NoError(t, err)
	require.Equal(t, res.Summary.PriceLowerBound, seam)
	if len(res.NodeClaims) > 1 {
		part := res
		part.NodeClaims = res.NodeClaims[:len(res.NodeClaims)/2]
		leftOpt, _ := cheapestPartition(indices(part.NodeClaims), cost)
		lb, err := scheduler.PriceLowerBound(in.pods, in.pools, in.cat, part)
		require.NoError(t, err)
		require.Positive(t, lb)
		require.LessOrEqual(t, lb, leftOpt+boundEps, "the bound for the pods left beats their cheapest plan")
	}

	describe := func() string {
		return describeBound(in, res, cands, cost, which, blocks, opt)
	}
	for _, nc := range res.NodeClaims {
		mask := 0
		for _, name := range nc.Pods {
			mask |= 1 << index[name]
		}
		if nc.Price < cost[mask]-boundEps {
			t.Errorf("NodeClaim %s costs %v, below the cheapest node this search finds for its pods (%v): the search misses a node\n%s",
				nc.Name, nc.Price, cost[mask], describe())
		}
	}
	for _, e := range res.PodErrors {
		if p := index[e.Pod]; !math.IsInf(cost[1<<p], 1) {
			t.Errorf("pod %s is unplaced (%s) but fits alone on %s\n%s", e.Pod, e.Code, cands[which[1<<p]], describe())
		}
	}
	single := 0.0
	for _, p := range placed {
		single = max(single, cost[1<<p])
	}
	s := res.Summary
	if len(placed) == 0 {
		if s.PriceLowerBound != 0 || s.PricePerHour != 0 {
			t.Errorf("no pod placed, yet pricePerHour %v and priceLowerBound %v\n%s", s.PricePerHour, s.PriceLowerBound, describe())
		}
		return boundStat{}
	}
	if math.IsInf(opt, 1) {
		t.Fatalf("no partition of the placed pods is feasible, yet the solver placed them\n%s", describe())
	}
	if s.PriceLowerBound <= 0 {
		t.Errorf("priceLowerBound %v with %d pods placed: want > 0\n%s", s.PriceLowerBound, len(placed), describe())
	}
	if s.PriceLowerBound > opt+boundEps {
		t.Errorf("priceLowerBound %v is above the cheapest valid plan %v\n%s", s.PriceLowerBound, opt, describe())
	}
	if opt > s.PricePerHour+boundEps {
		t.Errorf("the solver's plan costs %v, below the exhaustive optimum %v, and Verify accepted it: the search misses a plan\n%s", s.PricePerHour, opt, describe())
	}
	return boundStat{placed: true, opt: opt, price: s.PricePerHour, bound: s.PriceLowerBound, podsPlaced: len(placed), nClaim: len(res.NodeClaims),
		onePool: len(in.pools) == 1, single: single, input: describe()}
}

// describeBound renders the input, the plan and the optimum compactly, for
// the message of a failing case.
func describeBound(in boundInput, res scheduler.Result, cands []boundCandidate, cost []float64, which, blocks []int, opt float64) string {
	var b strings.Builder
	b.WriteString("types:\n")
	for _, it := range in.cat.Types() {
		a := it.Allocatable()
		fmt.Fprintf(&b, "  %s %s cpu=%s mem=%s alloc=%s/%s:", it.Name, it.Labels[requirements.LabelArch],
			it.Capacity.Cpu(), it.Capacity.Memory(), a.Cpu(), a.Memory())
		for _, o := range it.Offerings {
			fmt.Fprintf(&b, " %s/%s@%.4f", o.Zone, o.CapacityType, o.Price)
			if o.Unavailable {
				b.WriteString("(unavailable)")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("pools:\n")
	for _, np := range in.pools {
		w := int32(0)
		if np.Spec.Weight != nil {
			w = *np.Spec.Weight
		}
		fmt.Fprintf(&b, "  %s weight=%d:", np.Name, w)
		for _, r := range np.Spec.Template.Spec.Requirements {
			fmt.Fprintf(&b, " %s %s %v;", r.Key, r.Operator, r.Values)
		}
		b.WriteString("\n")
	}
	b.WriteString("pods:\n")
	for _, p := range in.pods {
		r := podresource.PodRequests(p, podresource.PodResourcesOptions{})
		fmt.Fprintf(&b, "  %s cpu=%s mem=%s", p.Name, r.Cpu(), r.Memory())
		for _, k := range slices.Sorted(maps.Keys(p.Spec.NodeSelector)) {
			fmt.Fprintf(&b, " %s=%s", k, p.Spec.NodeSelector[k])
		}
		b.WriteString("\n")
	}
	b.WriteString("plan:\n")
	for _, nc := range res.NodeClaims {
		fmt.Fprintf(&b, "  %s %s %s/%s@%.4f %v\n", nc.Name, nc.InstanceType, nc.Zone, nc.CapacityType, nc.Price, nc.Pods)
	}
	for _, e := range res.PodErrors {
		fmt.Fprintf(&b, "  unplaced %s: %s\n", e.Pod, e.Code)
	}
	fmt.Fprintf(&b, "  pricePerHour=%v priceLowerBound=%v\n", res.Summary.PricePerHour, res.Summary.PriceLowerBound)
	fmt.Fprintf(&b, "optimum %v:\n", opt)
	for _, m := range blocks {
		var names []string
		for p := range in.pods {
			if m&(1<<p) != 0 {
				names = append(names, in.pods[p].Name)
			}
		}
		fmt.Fprintf(&b, "  %v on %s (%v)\n", names, cands[which[m]], cost[m])
	}
	return b.String()
}

// logBoundStats logs how close the solver came to the exhaustive optimum,
// over every case and over the cases with one NodePool: with two, the
// solver takes the first pool in weight-then-name order that fits, as
// Karpenter does, even where the other is cheaper, so it may miss the
// optimum on purpose. It also logs how tight the bound is, and how often
// the one-pod bound (single) beats it.
func logBoundStats(t *testing.T, stats []boundStat) {
	t.Helper()
	type agg struct {
		cases, hit, worstCase int
		worst, boundSum       float64
		loosest               float64
	}
	all, onePool := agg{worst: 1, worstCase: -1, loosest: 1}, agg{worst: 1, worstCase: -1, loosest: 1}
	var claims, pods, singleWins int
	for i, s := range stats {
		if !s.placed {
			continue
		}
		claims += s.nClaim
		pods += s.podsPlaced
		if s.single > s.bound+boundEps {
			singleWins++
		}
		groups := []*agg{&all}
		if s.onePool {
			groups = append(groups, &onePool)
		}
		for _, a := range groups {
			a.cases++
			a.boundSum += s.bound / s.opt
			a.loosest = min(a.loosest, s.bound/s.opt)
			if s.price <= s.opt+boundEps {
				a.hit++
			}
			if r := s.price / s.opt; r > a.worst {
				a.worst, a.worstCase = r, i
			}
		}
	}
	t.Logf("%d cases, %d with placed pods (%d pods on %d NodeClaims); the one-pod bound beats priceLowerBound in %d",
		len(stats), all.cases, pods, claims, singleWins)
	for _, g := range []struct {
		name string
		a    agg
	}{{"all", all}, {"one NodePool", onePool}} {
		if g.a.cases == 0 {
			continue
		}
		t.Logf("%s: %d cases; solver at the exhaustive optimum in %d (%.1f%%); worst pricePerHour/optimum %.4f (case-%03d); "+
			"priceLowerBound/optimum mean %.3f, min %.3f",
			g.name, g.a.cases, g.a.hit, 100*float64(g.a.hit)/float64(g.a.cases), g.a.worst, g.a.worstCase,
			g.a.boundSum/float64(g.a.cases), g.a.loosest)
	}
	if onePool.worstCase >= 0 {
		t.Logf("worst case with one NodePool, case-%03d:\n%s", onePool.worstCase, stats[onePool.worstCase].input)
	}
}
