package karp

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
)

// render turns Karpenter's results into a plan, deterministically: claims
// sorted by NodePool, offering and first pod, named <pool>-<n>; pods,
// placements and errors sorted by name.
func render(res scheduling.Results, podErrs map[*corev1.Pod]error, pods int) plan.Plan {
	var p plan.Plan
	for _, nc := range res.NewNodeClaims {
		if len(nc.Pods) > 0 {
			p.NodeClaims = append(p.NodeClaims, renderClaim(nc))
		}
	}
	slices.SortFunc(p.NodeClaims, func(a, b plan.NodeClaim) int {
		return cmp.Or(strings.Compare(a.NodePool, b.NodePool), strings.Compare(a.InstanceType, b.InstanceType),
			strings.Compare(a.Zone, b.Zone), strings.Compare(a.CapacityType, b.CapacityType), strings.Compare(a.Pods[0], b.Pods[0]))
	})
	counter := map[string]int{}
	for i := range p.NodeClaims {
		nc := &p.NodeClaims[i]
		counter[nc.NodePool]++
		nc.Name = nc.NodePool + "-" + strconv.Itoa(counter[nc.NodePool])
	}
	for _, en := range res.ExistingNodes {
		if len(en.Pods) > 0 {
			p.ExistingNodes = append(p.ExistingNodes, plan.Placement{Name: en.Name(), Pods: podNames(en.Pods)})
		}
	}
	slices.SortFunc(p.ExistingNodes, func(a, b plan.Placement) int { return strings.Compare(a.Name, b.Name) })
	for pod, err := range podErrs {
		p.PodErrors = append(p.PodErrors, plan.PodError{Pod: pod.Namespace + "/" + pod.Name, Reason: oneLine(err.Error())})
	}
	slices.SortFunc(p.PodErrors, func(a, b plan.PodError) int { return strings.Compare(a.Pod, b.Pod) })
	p.Summary = plan.Summary{Pods: pods, Scheduled: p.Placed(), NodeClaims: len(p.NodeClaims), PricePerHour: roundPrice(p.Price())}
	return p
}

// renderClaim renders one NodeClaim: the cheapest available offering
// compatible with its requirements among its instance-type options, those
// options cheapest first, the labels Karpenter puts on the NodeClaim plus
// the single-valued requirements and the chosen offering.
func renderClaim(nc *scheduling.NodeClaim) plan.NodeClaim {
	reqs := nc.Requirements
	type option struct {
		it    *cloudprovider.InstanceType
		offer *cloudprovider.Offering
	}
	var opts []option
	for _, it := range nc.InstanceTypeOptions {
		if o := CheapestOffering(it, reqs); o != nil {
			opts = append(opts, option{it, o})
		}
	}
	slices.SortFunc(opts, func(a, b option) int {
		return cmp.Or(cmp.Compare(a.offer.Price, b.offer.Price), strings.Compare(a.it.Name, b.it.Name))
	})
	out := plan.NodeClaim{NodePool: nc.NodePoolName, Taints: nc.Spec.Taints, StartupTaints: nc.Spec.StartupTaints,
		Requests: nc.Spec.Resources.Requests.DeepCopy(), Pods: podNames(nc.Pods)}
	for _, o := range opts {
		out.InstanceTypeOptions = append(out.InstanceTypeOptions, o.it.Name)
	}
	claim := nc.ToNodeClaim() // adds the instance-type requirement, as Karpenter does before it creates the claim
	labels := map[string]string{}
	for k, v := range claim.Labels {
		labels[k] = v
	}
	for _, r := range claim.Spec.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 && r.Key != corev1.LabelHostname {
			labels[r.Key] = r.Values[0]
		}
		out.Requirements = append(out.Requirements, expression(r))
	}
	slices.SortFunc(out.Requirements, func(a, b plan.Expression) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Operator, b.Operator))
	})
	if len(opts) > 0 {
		best := opts[0]
		out.InstanceType, out.Price = best.it.Name, best.offer.Price
		out.Zone = best.offer.Requirements.Get(corev1.LabelTopologyZone).Any()
		out.CapacityType = best.offer.Requirements.Get(karpv1.CapacityTypeLabelKey).Any()
		labels[corev1.LabelTopologyZone] = out.Zone
		labels[karpv1.CapacityTypeLabelKey] = out.CapacityType
		labels[corev1.LabelInstanceTypeStable] = out.InstanceType
	}
	out.Labels = labels
	return out
}

// CheapestOffering returns the cheapest available offering of it that is
// compatible with reqs (ties: zone, then capacity type), or nil: the
// offering a NodeClaim with these requirements launches when the cloud
// picks the lowest price.
func CheapestOffering(it *cloudprovider.InstanceType, reqs karpsched.Requirements) *cloudprovider.Offering {
	var best *cloudprovider.Offering
	for _, o := range it.Offerings {
		if !o.Available || !reqs.IsCompatible(o.Requirements, karpsched.AllowUndefinedWellKnownLabels) {
			continue
		}
		if best == nil || o.Price < best.Price || (o.Price == best.Price && offeringKey(o) < offeringKey(best)) {
			best = o
		}
	}
	return best
}

func offeringKey(o *cloudprovider.Offering) string {
	return o.Requirements.Get(corev1.LabelTopologyZone).Any() + "/" + o.Requirements.Get(karpv1.CapacityTypeLabelKey).Any() + "/" + o.ReservationID()
}

func expression(r karpv1.NodeSelectorRequirementWithMinValues) plan.Expression {
	vals := slices.Clone(r.Values)
	slices.Sort(vals)
	e := plan.Expression{Key: r.Key, Operator: string(r.Operator), Values: vals}
	if r.MinValues != nil {
		e.MinValues = *r.MinValues
	}
	return e
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	slices.Sort(out)
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func roundPrice(x float64) float64 { return math.Round(x*1e6) / 1e6 }
