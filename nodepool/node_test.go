package nodepool_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestEffectiveTaints: an initialising Karpenter node sheds its ephemeral
// and startup taints; any other node keeps all of them.
func TestEffectiveTaints(t *testing.T) {
	startup := []corev1.Taint{{Key: "example.com/agent", Effect: corev1.TaintEffectNoSchedule}, {Key: "cni", Value: "off", Effect: corev1.TaintEffectNoExecute}}
	taint := func(key, value string, effect corev1.TaintEffect) corev1.Taint {
		return corev1.Taint{Key: key, Value: value, Effect: effect}
	}
	all := []corev1.Taint{
		taint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoExecute),
		taint(corev1.TaintNodeUnreachable, "", corev1.TaintEffectNoSchedule),
		taint(corev1.TaintNodeUnreachable, "", corev1.TaintEffectNoExecute), // not ephemeral: stays
		taint("node.cloudprovider.kubernetes.io/uninitialized", "true", corev1.TaintEffectNoSchedule),
		taint("karpenter.sh/unregistered", "", corev1.TaintEffectNoExecute),
		taint("readiness.k8s.io/network", "", corev1.TaintEffectNoSchedule),
		taint("example.com/agent", "starting", corev1.TaintEffectNoSchedule), // startup taint without value: any value
		taint("cni", "on", corev1.TaintEffectNoExecute),                      // startup taint "off" does not cover "on"
		taint("dedicated", "gpu", corev1.TaintEffectNoSchedule),
	}
	node := func(labels ...string) *corev1.Node {
		b := testutil.Node("n")
		for i := 0; i < len(labels); i += 2 {
			b.Label(labels[i], labels[i+1])
		}
		n := b.Obj()
		n.Spec.Taints = all
		return n
	}
	tests := []struct {
		name    string
		node    *corev1.Node
		startup []corev1.Taint
		wantIn  bool
		want    []corev1.Taint
	}{
		{name: "not a Karpenter node: every taint", node: node(), startup: startup, wantIn: true, want: all},
		{name: "initialised Karpenter node: every taint", node: node(requirements.LabelNodePool, "a", requirements.LabelNodeInitialized, "true"),
			startup: startup, wantIn: true, want: all},
		{name: "initialising: ephemeral and startup taints go away", node: node(requirements.LabelNodePool, "a"), startup: startup,
			want: []corev1.Taint{all[2], all[7], all[8]}},
		{name: "initialising, pool unknown: ephemeral taints go away", node: node(requirements.LabelNodePool, "gone"),
			want: []corev1.Taint{all[2], all[6], all[7], all[8]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := nodepool.IsInitialized(tc.node); got != tc.wantIn {
				t.Errorf("IsInitialized = %v, want %v", got, tc.wantIn)
			}
			if diff := gocmp.Diff(tc.want, nodepool.EffectiveTaints(tc.node, tc.startup)); diff != "" {
				t.Errorf("EffectiveTaints (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNodeLabels: keys normalised, the stable key winning, and the
// hostname defaulted to the node's name.
func TestNodeLabels(t *testing.T) {
	t.Parallel()
	n := testutil.Node("n1").Label("failure-domain.beta.kubernetes.io/zone", "z1").Label(requirements.LabelTopologyZone, "z2").
		Label("beta.kubernetes.io/arch", "arm64").Obj()
	delete(n.Labels, requirements.LabelHostname)
	want := map[string]string{requirements.LabelTopologyZone: "z2", requirements.LabelArch: "arm64", requirements.LabelHostname: "n1"}
	if diff := gocmp.Diff(want, nodepool.NodeLabels(n, requirements.DefaultSchema())); diff != "" {
		t.Errorf("NodeLabels (-want +got):\n%s", diff)
	}
	n.Labels[requirements.LabelHostname] = "ip-10-0-0-1"
	if got := nodepool.NodeLabels(n, requirements.DefaultSchema())[requirements.LabelHostname]; got != "ip-10-0-0-1" {
		t.Errorf("NodeLabels kept hostname %q, want the node's own label ip-10-0-0-1", got)
	}
}

// TestDaemonSetRunsOn: a DaemonSet runs on an existing node whose taints it
// tolerates and whose labels one of its node constraints matches.
func TestDaemonSetRunsOn(t *testing.T) {
	linux := map[string]string{requirements.LabelOS: "linux"}
	gpu := []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	tests := []struct {
		name   string
		pod    *testutil.PodBuilder
		labels map[string]string
		taints []corev1.Taint
		want   bool
	}{
		{name: "no constraints", pod: daemon("ds"), labels: linux, want: true},
		{name: "selector matches", pod: daemon("ds").NodeSelector(requirements.LabelOS, "linux"), labels: linux, want: true},
		{name: "selector misses", pod: daemon("ds").NodeSelector(requirements.LabelOS, "windows"), labels: linux},
		{name: "untolerated taint", pod: daemon("ds"), labels: linux, taints: gpu},
		{name: "tolerated taint", pod: daemon("ds").Toleration("gpu", corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule), labels: linux, taints: gpu, want: true},
		{name: "not-ready NoExecute: tolerated by every DaemonSet", pod: daemon("ds"), labels: linux,
			taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}}, want: true},
		{name: "PreferNoSchedule never keeps it off", pod: daemon("ds"), labels: linux,
			taints: []corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := mustDaemonSet(t, testutil.DaemonSet("ds", tc.pod.Obj())).RunsOn(tc.labels, tc.taints); got != tc.want {
				t.Errorf("RunsOn = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestBindsNow: kube-scheduler binds to an initialised node at once, and to
// one still initialising only when no startup or ephemeral taint that
// keeps pods off is on it and it is not reported unready.
func TestBindsNow(t *testing.T) {
	startup := []corev1.Taint{{Key: "example.com/agent", Effect: corev1.TaintEffectNoSchedule}}
	node := func(initialised bool, taints ...corev1.Taint) *corev1.Node {
		b := testutil.Node("n").Label(requirements.LabelNodePool, "a")
		if initialised {
			b.Label(requirements.LabelNodeInitialized, "true")
		}
		n := b.Obj()
		n.Spec.Taints = taints
		return n
	}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	agent := corev1.Taint{Key: "example.com/agent", Value: "starting", Effect: corev1.TaintEffectNoSchedule}
	dedicated := corev1.Taint{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}
	softStartup := corev1.Taint{Key: "readiness.k8s.io/soft", Effect: corev1.TaintEffectPreferNoSchedule}
	unready := node(false)
	unready.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	ready := node(false)
	ready.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	tests := []struct {
		name string
		node *corev1.Node
		want bool
	}{
		{name: "initialised, even with a not-ready taint", node: node(true, notReady), want: true},
		{name: "initialising without taints", node: node(false), want: true},
		{name: "initialising, Ready True", node: ready, want: true},
		{name: "initialising, Ready False", node: unready},
		{name: "initialising with a lasting taint", node: node(false, dedicated), want: true},
		{name: "initialising with a startup taint", node: node(false, agent, dedicated)},
		{name: "initialising with an ephemeral taint", node: node(false, notReady)},
		{name: "initialising with a PreferNoSchedule ephemeral taint", node: node(false, softStartup), want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := nodepool.BindsNow(tc.node, startup); got != tc.want {
				t.Errorf("BindsNow = %v, want %v", got, tc.want)
			}
		})
	}
}
