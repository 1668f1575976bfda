package kubecheck

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/latest"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodevolumelimits"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// excludedPlugins are left out of kube-scheduler's default profile:
// dynamic resources need a DRA manager and scenarios have no claims.
var excludedPlugins = map[string]bool{"DynamicResources": true}

var registerMetrics sync.Once

// scheduler is kube-scheduler's framework over a snapshot of the cluster.
type scheduler struct {
	fw       framework.Framework
	snapshot *internalcache.Snapshot
	stop     context.CancelFunc
}

// newScheduler builds the framework of kube-scheduler's default profile
// (every plugin but excludedPlugins) on a snapshot holding nodes and the
// pods bound to them, with informers over a fake API server holding the
// scenario's volumes, storage classes and namespaces (VolumeBinding and
// InterPodAffinity's namespace selectors read them).
func newScheduler(nodes []*corev1.Node, bound []*corev1.Pod, in manifest.Input) (*scheduler, error) {
	registerMetrics.Do(metrics.Register)
	cfg, err := latest.Default()
	if err != nil {
		return nil, fmt.Errorf("kube-scheduler default configuration: %w", err)
	}
	prof := cfg.Profiles[0]
	for _, ps := range pluginSets(prof.Plugins) {
		var keep []config.Plugin
		for _, p := range ps.Enabled {
			if !excludedPlugins[p.Name] {
				keep = append(keep, p)
			}
		}
		ps.Enabled = keep
	}
	var objs []runtime.Object
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
	cs := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(cs, 0)
	snap := internalcache.NewSnapshot(bound, nodes)
	ctx, cancel := context.WithCancel(context.Background())
	fw, err := frameworkruntime.NewFramework(ctx, plugins.NewInTreeRegistry(), &prof,
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(factory),
		frameworkruntime.WithSnapshotSharedLister(snap),
		frameworkruntime.WithSharedCSIManager(nodevolumelimits.NewCSIManager(factory.Storage().V1().CSINodes().Lister())),
		frameworkruntime.WithParallelism(1),
	)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("kube-scheduler framework: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return &scheduler{fw: fw, snapshot: snap, stop: cancel}, nil
}

func pluginSets(p *config.Plugins) []*config.PluginSet {
	return []*config.PluginSet{&p.PreEnqueue, &p.QueueSort, &p.PreFilter, &p.Filter, &p.PostFilter, &p.PreScore,
		&p.Score, &p.Reserve, &p.Permit, &p.PreBind, &p.Bind, &p.PostBind, &p.MultiPoint, &p.PlacementGenerate,
		&p.PlacementScore, &p.PodGroupPostFilter}
}

// filter runs PreFilter and Filter for pod against the named node and
// returns "" when the pod may bind there, else the failing plugin and its
// reasons.
func (s *scheduler) filter(pod *corev1.Pod, nodeName string) string {
	ni, err := s.snapshot.Get(nodeName)
	if err != nil {
		return fmt.Sprintf("node %s does not exist", nodeName)
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	res, st, _ := s.fw.RunPreFilterPlugins(ctx, state, pod)
	if !st.IsSuccess() {
		return reason(st)
	}
	if !res.AllNodes() && !res.NodeNames.Has(nodeName) {
		return "PreFilter: the pod can only go to nodes " + fmt.Sprint(sortedNames(res.NodeNames.UnsortedList()))
	}
	if st := s.fw.RunFilterPlugins(ctx, state, pod, ni); !st.IsSuccess() {
		return reason(st)
	}
	return ""
}

// filterWithout runs filter for pod, bound on nodeName, on the snapshot
// without it, then restores the snapshot.
func (s *scheduler) filterWithout(pod *corev1.Pod, nodeName string) (string, error) {
	if err := s.snapshot.StartMutations(); err != nil {
		return "", err
	}
	defer func() { _ = s.snapshot.EndMutations() }()
	c := pod.DeepCopy()
	c.Spec.NodeName = nodeName
	if err := s.snapshot.RemovePod(klog.Background(), c, nodeName); err != nil {
		return "", fmt.Errorf("taking %s/%s off %s: %w", pod.Namespace, pod.Name, nodeName, err)
	}
	return s.filter(pod, nodeName), nil
}

// bind records pod as bound to nodeName (kube-scheduler's assume).
func (s *scheduler) bind(pod *corev1.Pod, nodeName string) error {
	c := pod.DeepCopy()
	c.Spec.NodeName = nodeName
	pi, err := framework.NewPodInfo(c)
	if err != nil {
		return err
	}
	return s.snapshot.AssumePod(pi)
}

func reason(st *fwk.Status) string {
	msg := st.Message()
	if p := st.Plugin(); p != "" {
		return p + ": " + msg
	}
	return msg
}
