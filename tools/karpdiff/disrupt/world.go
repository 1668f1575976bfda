package disrupt

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	nodeclaimdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	testv1alpha1 "sigs.k8s.io/karpenter/pkg/test/v1alpha1"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

// world is a running cluster as Karpenter's disruption controller sees it:
// a fake API server holding its objects, a state.Cluster that has observed
// them, a fake clock stopped at now, and a cloud provider backed by the
// catalog.
type world struct {
	client  client.Client
	cluster *state.Cluster
	clock   *clock.FakeClock
	cp      *provider
}

// nodeClassRef is the node class every NodePool and NodeClaim points at:
// the test node class Karpenter's own tests use, which the provider
// supports (a NodePool of an unsupported class is not managed).
var nodeClassRef = karpv1.NodeClassReference{Group: testv1alpha1.Group, Kind: "TestNodeClass", Name: "default"}

// build fills the world from the cluster: NodePools (ready, with their
// template hash, the test node class), Nodes (provider IDs, the type's
// labels, Ready when the dump has no condition), NodeClaims (those of the
// input, else one per managed node as nodeplan makes it; launched and
// registered; their Drifted and Consolidatable conditions recomputed by
// Karpenter's nodeclaim disruption controller), pods (pending ones marked
// unschedulable, as the provisioner lists them), PodDisruptionBudgets (with
// the status the disruption controller of kube-controller-manager would
// give them), DaemonSets and volume objects.
func build(ctx context.Context, c disruption.Cluster, pools []nodepool.NodePool, its []*cloudprovider.InstanceType, now time.Time) (*world, error) {
	kpools, err := convertPools(pools)
	if err != nil {
		return nil, err
	}
	byType := map[string]*cloudprovider.InstanceType{}
	for _, it := range its {
		byType[it.Name] = it
	}
	cp := &provider{types: its, drifted: map[string]cloudprovider.DriftReason{}}
	clk := clock.NewFakeClock(now)

	nodes := make([]*corev1.Node, len(c.Nodes))
	for i, n := range c.Nodes {
		nodes[i] = clusterNode(n, byType)
	}
	claims, err := nodeClaims(c, nodes, kpools, cp)
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, len(c.Pods))
	for i, p := range c.Pods {
		pods[i] = clusterPod(p, i)
	}
	pdbs := make([]*policyv1.PodDisruptionBudget, len(c.PodDisruptionBudgets))
	for i, b := range c.PodDisruptionBudgets {
		pdbs[i] = withStatus(b, pods)
	}

	var objs []client.Object
	for _, o := range kpools {
		objs = append(objs, o)
	}
	for _, o := range nodes {
		objs = append(objs, o)
	}
	for _, o := range claims {
		objs = append(objs, o)
	}
	for _, o := range pods {
		objs = append(objs, o)
	}
	for _, o := range pdbs {
		objs = append(objs, o)
	}
	for _, o := range c.DaemonSets {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range c.PVCs {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range c.PVs {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range c.StorageClasses {
		objs = append(objs, o.DeepCopy())
	}
	for _, o := range c.Namespaces {
		objs = append(objs, o.DeepCopy())
	}
	objs = append(objs, &testv1alpha1.TestNodeClass{ObjectMeta: metav1.ObjectMeta{Name: nodeClassRef.Name}})
	var kc client.Client = fakecr.NewClientBuilder().
		WithScheme(clientgoscheme.Scheme).
		WithStatusSubresource(&karpv1.NodeClaim{}, &karpv1.NodePool{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&karpv1.NodeClaim{}, "status.providerID", func(o client.Object) []string { return []string{o.(*karpv1.NodeClaim).Status.ProviderID} }).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.group", func(o client.Object) []string { return []string{o.(*karpv1.NodeClaim).Spec.NodeClassRef.Group} }).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.kind", func(o client.Object) []string { return []string{o.(*karpv1.NodeClaim).Spec.NodeClassRef.Kind} }).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.name", func(o client.Object) []string { return []string{o.(*karpv1.NodeClaim).Spec.NodeClassRef.Name} }).
		WithObjects(objs...).
		Build()
	kc = clusterScoped{kc}
	w := &world{client: kc, cluster: state.NewCluster(clk, kc, cp), clock: clk, cp: cp}

	// Karpenter's nodeclaim disruption controller decides Drifted and
	// Consolidatable; the state cluster then observes the result.
	ctl := nodeclaimdisruption.NewController(clk, kc, cp)
	for _, nc := range claims {
		got := &karpv1.NodeClaim{}
		if err := kc.Get(ctx, client.ObjectKeyFromObject(nc), got); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
		}
		if _, err := ctl.Reconcile(ctx, got); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: nodeclaim disruption controller: %w", nc.Name, err)
		}
		if err := kc.Get(ctx, client.ObjectKeyFromObject(nc), got); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", nc.Name, err)
		}
		w.cluster.UpdateNodeClaim(got)
	}
	for _, n := range nodes {
		if err := w.cluster.UpdateNode(ctx, n); err != nil {
			return nil, fmt.Errorf("node %s: %w", n.Name, err)
		}
	}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		if err := w.cluster.UpdatePod(ctx, p); err != nil {
			return nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	for _, ds := range c.DaemonSets {
		if err := w.cluster.UpdateDaemonSet(ctx, ds); err != nil {
			return nil, fmt.Errorf("daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
		}
	}
	return w, nil
}

// clusterScoped is the fake client with the API server's handling of a
// namespace given for a cluster-scoped object: ignored (the fake client's
// REST mapper does not know the core kinds' scope). Karpenter reads a
// bound claim's PersistentVolume under the pod's namespace, which the fake
// client alone answers with NotFound (and the pod would drop out of every
// simulation).
type clusterScoped struct{ client.Client }

func (c clusterScoped) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch obj.(type) {
	case *corev1.PersistentVolume, *storagev1.StorageClass, *corev1.Node, *corev1.Namespace,
		*karpv1.NodePool, *karpv1.NodeClaim, *testv1alpha1.TestNodeClass:
		key.Namespace = ""
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// convertPools turns the library's NodePools into Karpenter's (the same
// schema): ready, pointing at the test node class, annotated with their
// template hash.
func convertPools(in []nodepool.NodePool) ([]*karpv1.NodePool, error) {
	out := make([]*karpv1.NodePool, 0, len(in))
	for _, np := range in {
		data, err := json.Marshal(np)
		if err != nil {
			return nil, fmt.Errorf("NodePool %s: %w", np.Name, err)
		}
		var k karpv1.NodePool
		if err := json.Unmarshal(data, &k); err != nil {
			return nil, fmt.Errorf("NodePool %s: %w", np.Name, err)
		}
		k.UID = types.UID("nodepool-" + k.Name)
		crdDefaults(&k, np)
		ref := nodeClassRef
		k.Spec.Template.Spec.NodeClassRef = &ref
		if k.Annotations == nil {
			k.Annotations = map[string]string{}
		}
		k.Annotations[karpv1.NodePoolHashAnnotationKey] = k.Hash()
		k.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = karpv1.NodePoolHashVersion
		for _, t := range []string{status.ConditionReady, karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady} {
			k.Status.Conditions = append(k.Status.Conditions, status.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t})
		}
		out = append(out, &k)
	}
	return out, nil
}

// crdDefaults applies the defaults of the NodePool CRD that the API server
// would have filled in (nodeplan reads a missing field as its default).
func crdDefaults(k *karpv1.NodePool, np nodepool.NodePool) {
	d := k.Spec.Disruption
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	if np.Spec.Disruption == nil || np.Spec.Disruption.ConsolidateAfter == nil {
		d.ConsolidateAfter = karpv1.MustParseNillableDuration("0s")
	}
	if np.Spec.Disruption == nil || np.Spec.Disruption.Budgets == nil {
		d.Budgets = []karpv1.Budget{{Nodes: "10%"}}
	}
	k.Spec.Disruption = d
	if np.Spec.Template.Spec.ExpireAfter == nil {
		k.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration("720h")
	}
}

// clusterNode returns the node as the API server holds it: a provider ID,
// the hostname label, the labels of its instance type (nodeplan completes
// a dump's node the same way), capacity from allocatable or the type when
// the dump has none, and a Ready condition when it has none (nodeplan reads
// a node without one as ready).
func clusterNode(n *corev1.Node, byType map[string]*cloudprovider.InstanceType) *corev1.Node {
	c := n.DeepCopy()
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	if c.Spec.ProviderID == "" {
		c.Spec.ProviderID = providerID(c.Name)
	}
	if _, ok := c.Labels[corev1.LabelHostname]; !ok {
		c.Labels[corev1.LabelHostname] = c.Name
	}
	if _, ok := c.Labels[karpv1.NodePoolLabelKey]; ok {
		c.Labels[karpv1.NodeRegisteredLabelKey] = "true"
	}
	if it := byType[c.Labels[corev1.LabelInstanceTypeStable]]; it != nil {
		for _, r := range it.Requirements {
			if v := r.Values(); r.Len() == 1 && len(v) == 1 {
				if _, ok := c.Labels[r.Key]; !ok {
					c.Labels[r.Key] = v[0]
				}
			}
		}
		if len(c.Status.Capacity) == 0 && len(c.Status.Allocatable) == 0 {
			c.Status.Capacity = it.Capacity.DeepCopy()
			c.Status.Allocatable = it.Allocatable().DeepCopy()
		}
	}
	if len(c.Status.Capacity) == 0 {
		c.Status.Capacity = c.Status.Allocatable.DeepCopy()
	}
	if len(c.Status.Allocatable) == 0 {
		c.Status.Allocatable = c.Status.Capacity.DeepCopy()
	}
	ready := false
	for _, cond := range c.Status.Conditions {
		ready = ready || cond.Type == corev1.NodeReady
	}
	if !ready {
		c.Status.Conditions = append(c.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue})
	}
	if c.Spec.Unschedulable {
		c.Spec.Taints = append(c.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return c
}

func providerID(node string) string { return "karpdiff:///" + node }

// nodeClaims returns the NodeClaims of the managed nodes: the input's
// (matched to a node by provider ID, else node name), else one made as
// nodeplan makes it (named after the node, created and initialized with
// it). Every NodeClaim is launched and registered, carries the template
// hash of its NodePool (drift by hash is an input fact nodeplan reads the
// same way: the harness has none), and the provider reports as drifted
// those whose input Drifted condition is True (a cloud-side drift neither
// tool can see).
func nodeClaims(c disruption.Cluster, nodes []*corev1.Node, pools []*karpv1.NodePool, cp *provider) ([]*karpv1.NodeClaim, error) {
	byPool := map[string]*karpv1.NodePool{}
	for _, p := range pools {
		byPool[p.Name] = p
	}
	byName, byPID := map[string]*corev1.Node{}, map[string]*corev1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
		byPID[n.Spec.ProviderID] = n
	}
	have := map[string]bool{}
	var out []*karpv1.NodeClaim
	for _, in := range c.NodeClaims {
		data, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", in.Name, err)
		}
		nc := &karpv1.NodeClaim{}
		if err := json.Unmarshal(data, nc); err != nil {
			return nil, fmt.Errorf("NodeClaim %s: %w", in.Name, err)
		}
		n := byPID[nc.Status.ProviderID]
		if n == nil || nc.Status.ProviderID == "" {
			n = byName[nc.Status.NodeName]
			if n == nil {
				n = byName[nc.Name]
			}
		}
		if n == nil {
			continue
		}
		have[n.Name] = true
		nc.Status.NodeName = n.Name
		nc.Status.ProviderID = n.Spec.ProviderID
		if drifted := condition(nc, karpv1.ConditionTypeDrifted); drifted != nil && drifted.IsTrue() {
			cp.drifted[nc.Name] = cloudprovider.DriftReason(drifted.Reason)
		}
		out = append(out, finishClaim(nc, n, byPool))
	}
	for _, n := range nodes {
		if _, ok := n.Labels[karpv1.NodePoolLabelKey]; !ok || have[n.Name] {
			continue
		}
		nc := &karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: n.Name, CreationTimestamp: n.CreationTimestamp,
			Annotations: n.Annotations}}
		nc.Status.NodeName = n.Name
		nc.Status.ProviderID = n.Spec.ProviderID
		nc.Status.Conditions = []status.Condition{{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue,
			Reason: "Initialized", LastTransitionTime: n.CreationTimestamp}}
		out = append(out, finishClaim(nc, n, byPool))
	}
	return out, nil
}

// finishClaim gives a NodeClaim what Karpenter's lifecycle would have: the
// node's labels, the NodePool's requirements, taints and node class, the
// node's resources, Launched and Registered conditions.
func finishClaim(nc *karpv1.NodeClaim, n *corev1.Node, pools map[string]*karpv1.NodePool) *karpv1.NodeClaim {
	if nc.Labels == nil {
		nc.Labels = map[string]string{}
	}
	for k, v := range n.Labels {
		if _, ok := nc.Labels[k]; !ok {
			nc.Labels[k] = v
		}
	}
	if nc.UID == "" {
		nc.UID = types.UID("nodeclaim-" + nc.Name)
	}
	if nc.CreationTimestamp.IsZero() {
		nc.CreationTimestamp = n.CreationTimestamp
	}
	ref := nodeClassRef
	nc.Spec.NodeClassRef = &ref
	if p := pools[n.Labels[karpv1.NodePoolLabelKey]]; p != nil {
		if len(nc.Spec.Requirements) == 0 {
			nc.Spec.Requirements = p.Spec.Template.Spec.Requirements
		}
		if len(nc.Spec.Taints) == 0 {
			nc.Spec.Taints = p.Spec.Template.Spec.Taints
		}
		if len(nc.Spec.StartupTaints) == 0 {
			nc.Spec.StartupTaints = p.Spec.Template.Spec.StartupTaints
		}
		if nc.Annotations == nil {
			nc.Annotations = map[string]string{}
		}
		if _, ok := nc.Annotations[karpv1.NodePoolHashAnnotationKey]; !ok {
			nc.Annotations[karpv1.NodePoolHashAnnotationKey] = p.Annotations[karpv1.NodePoolHashAnnotationKey]
			nc.Annotations[karpv1.NodePoolHashVersionAnnotationKey] = karpv1.NodePoolHashVersion
		}
	}
	if len(nc.Status.Capacity) == 0 {
		nc.Status.Capacity = n.Status.Capacity.DeepCopy()
	}
	if len(nc.Status.Allocatable) == 0 {
		nc.Status.Allocatable = n.Status.Allocatable.DeepCopy()
	}
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered} {
		if condition(nc, t) == nil {
			nc.Status.Conditions = append(nc.Status.Conditions, status.Condition{Type: t, Status: metav1.ConditionTrue,
				Reason: t, LastTransitionTime: nc.CreationTimestamp})
		}
	}
	return nc
}

// condition returns a NodeClaim's condition of a type, or nil (its
// StatusConditions() would add the missing ones as Unknown).
func condition(nc *karpv1.NodeClaim, t string) *status.Condition {
	for i := range nc.Status.Conditions {
		if nc.Status.Conditions[i].Type == t {
			return &nc.Status.Conditions[i]
		}
	}
	return nil
}

// clusterPod returns the pod as the API server holds it: a UID, requests
// defaulted from limits, phase Running when bound (Pending, and marked
// unschedulable, when not: the provisioner takes only those).
func clusterPod(p *corev1.Pod, i int) *corev1.Pod {
	c := p.DeepCopy()
	if c.Namespace == "" {
		c.Namespace = corev1.NamespaceDefault
	}
	if c.UID == "" {
		c.UID = types.UID(fmt.Sprintf("pod-%06d", i))
	}
	for j := range c.Spec.Containers {
		ct := &c.Spec.Containers[j]
		for name, q := range ct.Resources.Limits {
			if _, ok := ct.Resources.Requests[name]; !ok {
				if ct.Resources.Requests == nil {
					ct.Resources.Requests = corev1.ResourceList{}
				}
				ct.Resources.Requests[name] = q
			}
		}
	}
	if c.Spec.NodeName == "" {
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.PodPending
		}
		c.Status.Conditions = append(c.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable})
	} else if c.Status.Phase == "" {
		c.Status.Phase = corev1.PodRunning
	}
	return c
}

// withStatus returns the budget with the status kube-controller-manager's
// disruption controller gives it, unless the input has one: expected = the
// matching non-terminal pods, healthy = those bound, running, not
// terminating and not unready; desired = minAvailable or expected −
// maxUnavailable (percentages of expected rounded up).
func withStatus(b *policyv1.PodDisruptionBudget, pods []*corev1.Pod) *policyv1.PodDisruptionBudget {
	c := b.DeepCopy()
	if c.Namespace == "" {
		c.Namespace = corev1.NamespaceDefault
	}
	s := c.Status
	if s.ObservedGeneration != 0 || s.DisruptionsAllowed != 0 || s.CurrentHealthy != 0 || s.DesiredHealthy != 0 || s.ExpectedPods != 0 || len(s.Conditions) > 0 {
		return c
	}
	sel := labels.Nothing()
	if c.Spec.Selector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(c.Spec.Selector); err != nil {
			return c
		}
	}
	expected, healthy := 0, 0
	for _, p := range pods {
		if p.Namespace != c.Namespace || !sel.Matches(labels.Set(p.Labels)) ||
			p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		expected++
		unready := false
		for _, cond := range p.Status.Conditions {
			unready = unready || (cond.Type == corev1.PodReady && cond.Status == corev1.ConditionFalse)
		}
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning && !unready {
			healthy++
		}
	}
	desired := 0
	switch {
	case c.Spec.MaxUnavailable != nil:
		mu, _ := intstr.GetScaledValueFromIntOrPercent(c.Spec.MaxUnavailable, expected, true)
		desired = expected - mu
	case c.Spec.MinAvailable != nil:
		desired, _ = intstr.GetScaledValueFromIntOrPercent(c.Spec.MinAvailable, expected, true)
	}
	c.Status = policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: max(c.Generation, 1),
		DisruptionsAllowed: int32(min(max(healthy-max(desired, 0), 0), math.MaxInt32)),
		CurrentHealthy:     int32(healthy),
		DesiredHealthy:     int32(max(desired, 0)),
		ExpectedPods:       int32(expected),
	}
	return c
}
