package kubecheck

import (
	"fmt"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
)

// claim is a NodeClaim of the plan resolved against the catalog.
type claim struct {
	nc    plan.NodeClaim
	it    *instancetypes.InstanceType
	offer instancetypes.Offering
	pool  *nodepool.NodePool
	node  *corev1.Node
	// problem says why the claim cannot be launched as planned ("" when it
	// can).
	problem string
}

// resolveClaim looks the claim's NodePool, type and offering up and checks
// it as a launch on its own (limits and reservations are checked across
// claims by checkBudgets).
func resolveClaim(nc plan.NodeClaim, cat instancetypes.Catalog, pools map[string]*nodepool.NodePool) claim {
	c := claim{nc: nc, pool: pools[nc.NodePool]}
	it, ok := cat.Get(nc.InstanceType)
	switch {
	case c.pool == nil:
		c.problem = fmt.Sprintf("NodePool %q is not in the scenario", nc.NodePool)
	case c.pool.Spec.Replicas != nil:
		c.problem = fmt.Sprintf("NodePool %q is static (replicas): it never provisions for pending pods", nc.NodePool)
	case !ok:
		c.problem = fmt.Sprintf("instance type %q is not in the catalog", nc.InstanceType)
	}
	if c.problem != "" {
		return c
	}
	c.it = it
	o, found := findOffering(it, nc)
	if !found {
		c.problem = fmt.Sprintf("%s has no available %s offering in %s", it.Name, nc.CapacityType, nc.Zone)
		return c
	}
	c.offer = o
	c.node = claimNode(nc, it, o, c.pool)
	if math.Abs(o.Price-nc.Price) > 1e-6*math.Max(1, o.Price) {
		c.problem = fmt.Sprintf("priced at %g, the offering costs %g", nc.Price, o.Price)
		return c
	}
	if msg := poolRequirementsHold(c.pool, c.node); msg != "" {
		c.problem = msg
		return c
	}
	c.problem = launchMinValues(nc, cat)
	return c
}

// launchMinValues checks the claim's minValues the way the cloud provider
// does when it creates the instance: over the claim's instance-type
// options that have an available offering its requirements on zone,
// capacity type and reservation allow (the AWS provider keeps only those,
// and only the reserved ones for a claim that requires capacity type
// reserved, then truncates the list and fails the launch when a minValues
// no longer holds). Karpenter's scheduler counts minValues before it
// narrows a claim that holds a reservation to capacity type reserved, so
// such a claim may name one reserved type where the NodePool asks for
// three: it does not launch. It returns "" when every minValues holds.
func launchMinValues(nc plan.NodeClaim, cat instancetypes.Catalog) string {
	values := map[string]map[string]bool{}
	for _, r := range nc.Requirements {
		if r.MinValues > 0 {
			values[r.Key] = map[string]bool{}
		}
	}
	if len(values) == 0 {
		return ""
	}
	for _, name := range nc.InstanceTypeOptions {
		it, ok := cat.Get(name)
		if !ok || !slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return offeringAllowed(o, nc.Requirements) }) {
			continue
		}
		for key, set := range values {
			if key == corev1.LabelInstanceTypeStable {
				set[it.Name] = true
			} else if v, ok := it.Labels[key]; ok {
				set[v] = true
			}
		}
	}
	for _, r := range nc.Requirements {
		if r.MinValues > 0 && len(values[r.Key]) < r.MinValues {
			return fmt.Sprintf("minValues %d on %s is not met at launch: %d value(s) among the options with an offering the claim's requirements allow", r.MinValues, r.Key, len(values[r.Key]))
		}
	}
	return ""
}

// offeringAllowed reports whether o is available and meets the claim's
// requirements on zone, capacity type and capacity reservation.
func offeringAllowed(o instancetypes.Offering, reqs []plan.Expression) bool {
	if o.Unavailable {
		return false
	}
	labels := map[string]string{corev1.LabelTopologyZone: o.Zone, labelCapacityType: o.CapacityType}
	if o.ReservationID != "" {
		labels[labelReservation] = o.ReservationID
	}
	for _, r := range reqs {
		if r.Key != corev1.LabelTopologyZone && r.Key != labelCapacityType && r.Key != labelReservation {
			continue
		}
		v, has := labels[r.Key]
		switch corev1.NodeSelectorOperator(r.Operator) {
		case corev1.NodeSelectorOpIn:
			if !has || !slices.Contains(r.Values, v) {
				return false
			}
		case corev1.NodeSelectorOpNotIn:
			if has && slices.Contains(r.Values, v) {
				return false
			}
		case corev1.NodeSelectorOpExists:
			if !has {
				return false
			}
		case corev1.NodeSelectorOpDoesNotExist:
			if has {
				return false
			}
		}
	}
	return true
}

// findOffering returns the claim's offering: available, in its zone and
// capacity type (and its reservation when the claim names one).
func findOffering(it *instancetypes.InstanceType, nc plan.NodeClaim) (instancetypes.Offering, bool) {
	res := nc.Labels[labelReservation]
	for _, o := range it.Offerings {
		if !o.Unavailable && o.Zone == nc.Zone && o.CapacityType == nc.CapacityType && (res == "" || o.ReservationID == res) {
			return o, true
		}
	}
	return instancetypes.Offering{}, false
}

// poolRequirementsHold checks the node against its NodePool's requirements
// (a NodePool launches only nodes that meet them); a key the node lacks
// must allow absence.
func poolRequirementsHold(pool *nodepool.NodePool, node *corev1.Node) string {
	for _, r := range pool.Spec.Template.Spec.Requirements {
		term := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: r.Key, Operator: r.Operator, Values: r.Values}}}
		sel, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}})
		if err != nil {
			continue // operators the API does not know for nodes (Gte/Lte) are Karpenter's; the solvers checked them
		}
		if !sel.Match(node) {
			return fmt.Sprintf("the node's label %s=%q does not meet NodePool %s's requirement %s %s %v", r.Key, node.Labels[r.Key], pool.Name, r.Key, r.Operator, r.Values)
		}
	}
	return ""
}

// checkBudgets marks claims that break a NodePool's limits (capacity of the
// pool's existing nodes plus its claims, in plan order) or take more
// instances of a capacity reservation than it has left.
func checkBudgets(claims []claim, existing []*corev1.Node, pools map[string]*nodepool.NodePool) {
	used := map[string]corev1.ResourceList{}
	for _, n := range existing {
		if p := n.Labels[labelNodePool]; p != "" {
			used[p] = addNode(used[p], n.Status.Capacity)
		}
	}
	reserved := map[string]int{}
	for i := range claims {
		c := &claims[i]
		if c.problem != "" {
			continue
		}
		used[c.nc.NodePool] = addNode(used[c.nc.NodePool], c.it.Capacity)
		if over := exceeded(c.pool.Spec.Limits, used[c.nc.NodePool]); over != "" {
			c.problem = fmt.Sprintf("NodePool %s's limit on %s is exceeded", c.nc.NodePool, over)
			continue
		}
		if id := c.offer.ReservationID; id != "" {
			reserved[id]++
			if reserved[id] > c.offer.ReservationCapacity {
				c.problem = fmt.Sprintf("reservation %s has %d instances, the plan uses more", id, c.offer.ReservationCapacity)
			}
		}
	}
}

func addNode(sum, capacity corev1.ResourceList) corev1.ResourceList {
	out := sum.DeepCopy()
	if out == nil {
		out = corev1.ResourceList{}
	}
	for name, q := range capacity {
		v := out[name]
		v.Add(q)
		out[name] = v
	}
	n := out["nodes"]
	n.Add(resource.MustParse("1"))
	out["nodes"] = n
	return out
}

// exceeded returns the first resource (by name) whose use is above its
// limit, or "".
func exceeded(limits, used corev1.ResourceList) string {
	names := make([]string, 0, len(limits))
	for name := range limits {
		names = append(names, string(name))
	}
	slices.Sort(names)
	for _, name := range names {
		u := used[corev1.ResourceName(name)]
		if u.Cmp(limits[corev1.ResourceName(name)]) > 0 {
			return name
		}
	}
	return ""
}
