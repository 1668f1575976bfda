package karp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	karpsched "sigs.k8s.io/karpenter/pkg/scheduling"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
	"github.com/nodeplan/nodeplan/tools/karpdiff/scenario"
)

// Options are the solve options, named as Karpenter names its settings.
type Options struct {
	// PreferencePolicy is Respect (default) or Ignore.
	PreferencePolicy string
	// MinValuesPolicy is Strict (default) or BestEffort.
	MinValuesPolicy string
}

// Check validates the option values.
func (o Options) Check() error {
	var errs []error
	if o.PreferencePolicy != "" && o.PreferencePolicy != string(options.PreferencePolicyRespect) && o.PreferencePolicy != string(options.PreferencePolicyIgnore) {
		errs = append(errs, fmt.Errorf("preference policy %q: want Respect or Ignore", o.PreferencePolicy))
	}
	if o.MinValuesPolicy != "" && o.MinValuesPolicy != string(options.MinValuesPolicyStrict) && o.MinValuesPolicy != string(options.MinValuesPolicyBestEffort) {
		errs = append(errs, fmt.Errorf("minValues policy %q: want Strict or BestEffort", o.MinValuesPolicy))
	}
	return errors.Join(errs...)
}

// context returns a context carrying Karpenter's operator options (the
// defaults of its flags, with the two policies) and a logger that discards.
func (o Options) context() context.Context {
	opts := &options.Options{
		PreferencePolicy:  options.PreferencePolicyRespect,
		MinValuesPolicy:   options.MinValuesPolicyStrict,
		IgnoreDRARequests: true,
		CPURequests:       1000,
		FeatureGates:      options.FeatureGates{ReservedCapacity: true},
	}
	if o.PreferencePolicy != "" {
		opts.PreferencePolicy = options.PreferencePolicy(o.PreferencePolicy)
	}
	if o.MinValuesPolicy != "" {
		opts.MinValuesPolicy = options.MinValuesPolicy(o.MinValuesPolicy)
	}
	ctx := log.IntoContext(context.Background(), logr.Discard())
	return options.ToContext(ctx, opts)
}

// schedulerOptions mirrors the options Provisioner.Schedule passes.
func (o Options) schedulerOptions(ctx context.Context) []scheduling.Options {
	opts := []scheduling.Options{
		scheduling.DisableReservedCapacityFallback,
		scheduling.NumConcurrentReconciles(1),
		scheduling.MinValuesPolicy(options.FromContext(ctx).MinValuesPolicy),
	}
	if options.FromContext(ctx).PreferencePolicy == options.PreferencePolicyIgnore {
		opts = append(opts, scheduling.IgnorePreferences)
	}
	return opts
}

// Solve runs Karpenter's provisioning scheduler once on the scenario and
// returns its plan. shuffle 0 keeps the input order of the pending pods;
// another value permutes them (and so their UIDs, Karpenter's last
// tie-break in its queue) from that seed. RegisterVocabulary must have run.
func Solve(s *scenario.Scenario, opts Options, shuffle uint64) (plan.Plan, error) {
	if err := opts.Check(); err != nil {
		return plan.Plan{}, err
	}
	ctx := opts.context()
	its := InstanceTypes(s.Catalog)
	pools, err := convertPools(s.Input.NodePools)
	if err != nil {
		return plan.Plan{}, err
	}
	pending := pendingPods(s.Input.Pods, shuffle)
	cp := &offlineProvider{types: its}
	w, err := buildWorld(ctx, s.Input, pools, pending, cp)
	if err != nil {
		return plan.Plan{}, err
	}
	res, podErrs, err := schedule(ctx, w, s, pools, its, pending, opts)
	if err != nil {
		return plan.Plan{}, err
	}
	return render(res, podErrs, len(pending)), nil
}

// schedule mirrors Provisioner.Schedule and Provisioner.NewScheduler: drop
// pods the Provisioner would ignore (Validate), order the NodePools by
// weight, collect volume topology, build the topology and the scheduler,
// solve with a one-minute deadline, truncate instance-type options.
func schedule(ctx context.Context, w *world, s *scenario.Scenario, pools []*karpv1.NodePool, its []*cloudprovider.InstanceType, pending []*corev1.Pod, opts Options) (scheduling.Results, map[*corev1.Pod]error, error) {
	recorder := events.NewRecorder(&record.FakeRecorder{})
	prov := provisioning.NewProvisioner(w.client, recorder, &offlineProvider{types: its}, w.cluster, w.clock, nil, nil)
	podErrs := map[*corev1.Pod]error{}
	var pods []*corev1.Pod
	for _, p := range pending {
		if err := prov.Validate(ctx, p); err != nil {
			podErrs[p] = fmt.Errorf("ignoring pod, %w", err)
			continue
		}
		pods = append(pods, p)
	}
	var dynamic []*karpv1.NodePool
	for _, np := range pools {
		if !nodepoolutils.IsStatic(np) {
			dynamic = append(dynamic, np)
		}
	}
	nodepoolutils.OrderByWeight(dynamic)
	byPool := map[string][]*cloudprovider.InstanceType{}
	for _, np := range dynamic {
		byPool[np.Name] = its
	}
	pods, volumeReqs := volumeRequirements(ctx, w, pods, podErrs)
	sopts := opts.schedulerOptions(ctx)
	nodes := w.stateNodes()
	topology, err := scheduling.NewTopology(ctx, w.client, w.cluster, nodes, dynamic, byPool, pods, sopts...)
	if err != nil {
		return scheduling.Results{}, nil, fmt.Errorf("tracking topology counts, %w", err)
	}
	if len(dynamic) == 0 {
		for _, p := range pods {
			podErrs[p] = errors.New("no dynamic nodepools found")
		}
		return scheduling.Results{}, podErrs, nil
	}
	sched := scheduling.NewScheduler(ctx, w.client, dynamic, w.cluster, nodes, topology, byPool, daemonSetPods(w, s.Input), recorder, w.clock, volumeReqs, nil, sopts...)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res, err := sched.Solve(tctx, pods)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return scheduling.Results{}, nil, err
	}
	res = res.TruncateInstanceTypes(ctx, scheduling.MaxInstanceTypes)
	for p, e := range res.PodErrors {
		podErrs[p] = e
	}
	return res, podErrs, nil
}

// volumeRequirements mirrors Provisioner.getVolumeTopologyRequirements: a
// pod whose volume topology cannot be read is left out of the solve.
func volumeRequirements(ctx context.Context, w *world, pods []*corev1.Pod, podErrs map[*corev1.Pod]error) ([]*corev1.Pod, map[types.UID][]karpsched.Requirements) {
	vt := scheduling.NewVolumeTopology(w.client)
	reqs := map[types.UID][]karpsched.Requirements{}
	var out []*corev1.Pod
	for _, p := range pods {
		r, err := vt.GetRequirements(ctx, p)
		if err != nil {
			podErrs[p] = fmt.Errorf("failed getting volume topology requirements, %w", err)
			continue
		}
		if len(r) > 0 {
			reqs[p.UID] = r
		}
		out = append(out, p)
	}
	return out, reqs
}

// convertPools turns the library's NodePools into Karpenter's (the schema is
// the same), giving each a UID and, when it has none, the AWS node class
// reference the catalog's provider would use.
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
		if k.Spec.Template.Spec.NodeClassRef == nil {
			k.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: awsDomain, Kind: "EC2NodeClass", Name: "default"}
		}
		out = append(out, &k)
	}
	return out, nil
}

// pendingPods returns copies of the pending pods as the API server would
// list them (phase Pending, a UID), in input order or permuted by shuffle.
// UIDs follow the (permuted) order, so Karpenter's queue breaks ties of
// equal pods in that order.
func pendingPods(in []*corev1.Pod, shuffle uint64) []*corev1.Pod {
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	if shuffle != 0 {
		r := rand.New(rand.NewPCG(shuffle, 0x6b617270))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	out := make([]*corev1.Pod, len(in))
	for i, idx := range order {
		p := in[idx].DeepCopy()
		p.UID = types.UID(fmt.Sprintf("pending-%06d", i))
		p.Status.Phase = corev1.PodPending
		out[i] = p
	}
	return out
}
