package karp

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/state"

	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// world is the simulated cluster a Karpenter solve runs against.
type world struct {
	client  client.Client
	cluster *state.Cluster
	clock   *clock.FakeClock
}

// buildWorld fills a fake API server with the scenario's objects (nodes
// adjusted as the cluster would show them, bound and pending pods, volumes,
// namespaces, DaemonSets) and a state.Cluster that has observed them, as
// Karpenter's informers would have before a provisioning loop. Nodes with a
// karpenter.sh/nodepool label are Karpenter's: they get a NodeClaim (with
// their NodePool's startup taints) and count as registered; they are
// initialized when they carry karpenter.sh/initialized=true.
func buildWorld(ctx context.Context, in manifest.Input, pools []*karpv1.NodePool, pending []*corev1.Pod, cp *offlineProvider) (*world, error) {
	nodes := make([]*corev1.Node, len(in.Nodes))
	for i, n := range in.Nodes {
		nodes[i] = clusterNode(n)
	}
	bound := make([]*corev1.Pod, len(in.BoundPods))
	for i, p := range in.BoundPods {
		c := p.DeepCopy()
		c.UID = types.UID(fmt.Sprintf("bound-%06d", i))
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.PodRunning
		}
		bound[i] = c
	}
	var objs []client.Object
	for _, n := range nodes {
		objs = append(objs, n)
	}
	for _, p := range bound {
		objs = append(objs, p)
	}
	for _, p := range pending {
		objs = append(objs, p)
	}
	for _, o := range in.PVCs {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range in.PVs {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range in.StorageClasses {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range in.Namespaces {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range in.DaemonSets {
		objs = append(objs, o.DeepCopy())
	}
	c := fakecr.NewClientBuilder().
		WithScheme(clientgoscheme.Scheme).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
			return []string{o.(*corev1.Pod).Spec.NodeName}
		}).
		WithObjects(objs...).
		Build()
	clk := clock.NewFakeClock(metav1.Now().Time)
	w := &world{client: c, cluster: state.NewCluster(clk, c, cp), clock: clk}
	return w, w.observe(ctx, nodes, bound, in, pools)
}

// observe feeds the state cluster what its informers would: NodeClaims of
// managed nodes, nodes, bound pods, DaemonSets.
func (w *world) observe(ctx context.Context, nodes []*corev1.Node, bound []*corev1.Pod, in manifest.Input, pools []*karpv1.NodePool) error {
	for _, n := range nodes {
		if pool, ok := n.Labels[karpv1.NodePoolLabelKey]; ok {
			w.cluster.UpdateNodeClaim(nodeClaimFor(n, findPool(pools, pool)))
		}
		if err := w.cluster.UpdateNode(ctx, n); err != nil {
			return fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	for _, p := range bound {
		if !slices.ContainsFunc(nodes, func(n *corev1.Node) bool { return n.Name == p.Spec.NodeName }) {
			continue // bound to a node the input does not have: not running anywhere Karpenter sees
		}
		if err := w.cluster.UpdatePod(ctx, p); err != nil {
			return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	for _, ds := range in.DaemonSets {
		if err := w.cluster.UpdateDaemonSet(ctx, ds); err != nil {
			return fmt.Errorf("daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
		}
	}
	return nil
}

// clusterNode returns the node as the API server would hold it: a provider
// ID (Karpenter keys its state by it), the hostname label kubelet sets, the
// registered label of a Karpenter node, and the unschedulable taint the
// node lifecycle controller adds to a cordoned node.
func clusterNode(n *corev1.Node) *corev1.Node {
	c := n.DeepCopy()
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	if c.Spec.ProviderID == "" {
		c.Spec.ProviderID = "karpdiff:///" + c.Name
	}
	if _, ok := c.Labels[corev1.LabelHostname]; !ok {
		c.Labels[corev1.LabelHostname] = c.Name
	}
	if _, ok := c.Labels[karpv1.NodePoolLabelKey]; ok {
		c.Labels[karpv1.NodeRegisteredLabelKey] = "true"
	}
	if c.Spec.Unschedulable && !slices.ContainsFunc(c.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeUnschedulable }) {
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	if len(c.Status.Capacity) == 0 {
		c.Status.Capacity = c.Status.Allocatable.DeepCopy()
	}
	if len(c.Status.Allocatable) == 0 {
		c.Status.Allocatable = c.Status.Capacity.DeepCopy()
	}
	return c
}

// nodeClaimFor returns the NodeClaim behind a Karpenter node: its labels,
// taints and resources, its NodePool's startup taints.
func nodeClaimFor(n *corev1.Node, pool *karpv1.NodePool) *karpv1.NodeClaim {
	nc := &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
		Spec:       karpv1.NodeClaimSpec{Taints: n.Spec.Taints},
		Status: karpv1.NodeClaimStatus{
			ProviderID:  n.Spec.ProviderID,
			NodeName:    n.Name,
			Capacity:    n.Status.Capacity,
			Allocatable: n.Status.Allocatable,
		},
	}
	if pool != nil {
		nc.Spec.StartupTaints = pool.Spec.Template.Spec.StartupTaints
		nc.Spec.Requirements = pool.Spec.Template.Spec.Requirements
	}
	return nc
}

func findPool(pools []*karpv1.NodePool, name string) *karpv1.NodePool {
	for _, p := range pools {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// stateNodes returns the active state nodes, as Provisioner.Schedule takes
// them (deep copies; nodes marked for deletion are not targets).
func (w *world) stateNodes() []*state.StateNode {
	return w.cluster.DeepCopyNodes().Active()
}

// daemonSetPods returns the pod each DaemonSet would create, as the
// Provisioner computes them: the newest running pod of the DaemonSet, else
// one made from its template, with the template's required node affinity.
func daemonSetPods(w *world, in manifest.Input) []*corev1.Pod {
	var out []*corev1.Pod
	for _, ds := range in.DaemonSets {
		out = append(out, daemonPod(w.cluster, ds))
	}
	return out
}
