package nodepool_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

func mustDaemonSet(t *testing.T, ds *appsv1.DaemonSet) nodepool.DaemonSet {
	t.Helper()
	d, err := nodepool.NewDaemonSet(ds, testSchema())
	require.NoError(t, err)
	return d
}

// daemon starts a DaemonSet pod in kube-system.
func daemon(name string) *testutil.PodBuilder { return testutil.Pod(name).Namespace("kube-system") }

func TestNewDaemonSetRequests(t *testing.T) {
	tests := []struct {
		name string
		pod  *corev1.Pod
		want corev1.ResourceList
	}{
		{
			name: "container requests plus one pod",
			pod:  daemon("ds").CPU("1").Memory("1Mi").Obj(),
			want: list("cpu", "1", "memory", "1Mi", "pods", "1"),
		},
		{
			name: "init container larger than the containers: the max counts (B-152)",
			pod:  daemon("ds").CPU("1").Memory("1Gi").InitContainer("init", "3", "3Gi", false).Obj(),
			want: list("cpu", "3", "memory", "3Gi", "pods", "1"),
		},
		{
			name: "sidecar adds to the containers",
			pod:  daemon("ds").CPU("1").Memory("1Gi").InitContainer("proxy", "500m", "128Mi", true).Obj(),
			want: list("cpu", "1500m", "memory", "1152Mi", "pods", "1"),
		},
		{
			name: "limits only: requests default to limits (aws#1573)",
			pod:  daemon("ds").Limit(corev1.ResourceCPU, "250m").Obj(),
			want: list("cpu", "250m", "pods", "1"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := mustDaemonSet(t, testutil.DaemonSet("ds", tc.pod)).Requests()
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewDaemonSet(t *testing.T) {
	pod := daemon("ds").HostPort(9100, "").HostPort(53, corev1.ProtocolUDP).HostPort(9100, corev1.ProtocolTCP).
		Toleration("dedicated", corev1.TolerationOpEqual, "infra", corev1.TaintEffectNoSchedule).
		NodeSelector("kubernetes.io/os", "linux").
		RequiredTerm(testutil.Expr("beta.kubernetes.io/arch", corev1.NodeSelectorOpIn, "amd64")).
		RequiredTerm(testutil.Expr("kubernetes.io/arch", corev1.NodeSelectorOpIn, "arm64"),
			testutil.Expr("karpenter.sh/capacity-type", corev1.NodeSelectorOpIn, "on-demand")).
		RequiredTerm(testutil.Expr("team", "Matches", "a")).
		RequiredTerm().
		Obj()
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
		pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms,
		corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}})
	src := testutil.DaemonSet("node-exporter", pod)
	d := mustDaemonSet(t, src)

	if diff := gocmp.Diff("kube-system/node-exporter", d.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
	wantPorts := []nodepool.HostPort{{IP: "0.0.0.0", Port: 53, Protocol: corev1.ProtocolUDP}, {IP: "0.0.0.0", Port: 9100, Protocol: corev1.ProtocolTCP}}
	if diff := gocmp.Diff(wantPorts, d.HostPorts()); diff != "" {
		t.Errorf("HostPorts (-want +got):\n%s", diff)
	}
	wantAlts := []string{
		"kubernetes.io/arch In [amd64], kubernetes.io/os In [linux]",
		"karpenter.sh/capacity-type In [on-demand], kubernetes.io/arch In [arm64], kubernetes.io/os In [linux]",
	}
	var gotAlts []string
	for _, alt := range d.Alternatives() {
		gotAlts = append(gotAlts, alt.String())
	}
	if diff := gocmp.Diff(wantAlts, gotAlts); diff != "" {
		t.Errorf("Alternatives (-want +got):\n%s", diff)
	}
	const terms = "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	wantSkipped := []fieldErr{
		{field.ErrorTypeInvalid, terms + "[2]"},
		{field.ErrorTypeInvalid, terms + "[3]"},
		{field.ErrorTypeInvalid, terms + "[4]"},
	}
	if diff := gocmp.Diff(wantSkipped, fieldErrs(d.SelectorErrors())); diff != "" {
		t.Errorf("SelectorErrors (-want +got):\n%s", diff)
	}
	tols := d.Tolerations()
	if diff := gocmp.Diff(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "infra", Effect: corev1.TaintEffectNoSchedule}, tols[0]); diff != "" {
		t.Errorf("first toleration (-want +got):\n%s", diff)
	}
	if len(tols) != 7 {
		t.Errorf("want the pod's toleration and the 6 the DaemonSet controller adds, got %d: %v", len(tols), tols)
	}

	// NewDaemonSet copied what it needs: changing the source changes nothing.
	before := mustDaemonSet(t, src.DeepCopy())
	src.Spec.Template.Spec.Containers[0].Ports[0].HostPort = 1
	src.Spec.Template.Spec.Tolerations[0].Key = "changed"
	src.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] = "windows"
	if diff := gocmp.Diff(before, d); diff != "" {
		t.Errorf("DaemonSet changed with its source (-want +got):\n%s", diff)
	}
	// Accessors return copies.
	d.Tolerations()[0].Key = "changed"
	d.HostPorts()[0].Port = 1
	if diff := gocmp.Diff(before, d); diff != "" {
		t.Errorf("DaemonSet changed through an accessor (-want +got):\n%s", diff)
	}
}

func TestNewDaemonSetErrors(t *testing.T) {
	if _, err := nodepool.NewDaemonSet(nil, testSchema()); err == nil {
		t.Error("nil DaemonSet: want an error")
	}
	ds := testutil.DaemonSet("x", daemon("x").Obj())
	ds.Name = ""
	if _, err := nodepool.NewDaemonSet(ds, testSchema()); err == nil {
		t.Error("DaemonSet without a name: want an error")
	}
	ds = testutil.DaemonSet("x", testutil.Pod("x").Namespace("").Obj())
	if diff := gocmp.Diff("default", mustDaemonSet(t, ds).Namespace()); diff != "" {
		t.Errorf("Namespace (-want +got):\n%s", diff)
	}
}

// TestRunsDaemonSet: which DaemonSets a new node of a pool with a given
// instance type would run (B-149, B-153..B-156).
func TestRunsDaemonSet(t *testing.T) {
	plain := testutil.NodePool("default").Obj()
	tainted := testutil.NodePool("gpu").Requirement(labelInstanceFamily, corev1.NodeSelectorOpIn, "p3").
		Taint("nvidia.com/gpu", "true", corev1.TaintEffectNoSchedule).Obj()
	tests := []struct {
		name         string
		pool         nodepool.NodePool
		pod          *corev1.Pod
		instanceType requirements.Requirements
		want         bool
	}{
		{name: "no constraints", pool: plain, pod: daemon("ds").Obj(), instanceType: amd64Type(), want: true},
		{name: "does not tolerate the NoSchedule taint (B-153)", pool: tainted, pod: daemon("ds").Obj(), instanceType: p3Type(), want: false},
		{
			name: "tolerates the taint", pool: tainted, instanceType: p3Type(), want: true,
			pod: daemon("ds").Toleration("nvidia.com/gpu", corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule).Obj(),
		},
		{
			name: "an empty-key Exists toleration tolerates every taint (sigs#1749)", pool: tainted, instanceType: p3Type(), want: true,
			pod: daemon("ds").Toleration("", corev1.TolerationOpExists, "", "").Obj(),
		},
		{
			name: "does not tolerate a NoExecute taint", instanceType: amd64Type(), want: false,
			pool: testutil.NodePool("a").Taint("dedicated", "batch", corev1.TaintEffectNoExecute).Obj(),
			pod:  daemon("ds").Obj(),
		},
		{
			name: "PreferNoSchedule never blocks a DaemonSet (B-154)", instanceType: amd64Type(), want: true,
			pool: testutil.NodePool("a").Taint("dedicated", "batch", corev1.TaintEffectPreferNoSchedule).Obj(),
			pod:  daemon("ds").Obj(),
		},
		{
			name: "startup taints are ignored (B-149)", instanceType: amd64Type(), want: true,
			pool: testutil.NodePool("a").StartupTaint("example.com/not-ready", "", corev1.TaintEffectNoSchedule).Obj(),
			pod:  daemon("ds").Obj(),
		},
		{
			name: "the controller's default tolerations apply", instanceType: amd64Type(), want: true,
			pool: testutil.NodePool("a").Taint(corev1.TaintNodeUnschedulable, "", corev1.TaintEffectNoSchedule).Obj(),
			pod:  daemon("ds").Obj(),
		},
		{name: "selects arm64, amd64 type (B-155)", pool: plain, pod: daemon("ds").NodeSelector("kubernetes.io/arch", "arm64").Obj(), instanceType: amd64Type(), want: false},
		{name: "selects arm64, arm64 type (B-155)", pool: plain, pod: daemon("ds").NodeSelector("kubernetes.io/arch", "arm64").Obj(), instanceType: arm64Type(), want: true},
		{
			name: "selects a well-known key neither defines", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").NodeSelector(requirements.LabelWindowsBuild, "10.0.17763").Obj(),
		},
		{
			name: "selects the pool's custom label (B-154)", instanceType: amd64Type(), want: true,
			pool: testutil.NodePool("a").Label("team", "ml").Obj(),
			pod:  daemon("ds").NodeSelector("team", "ml").Obj(),
		},
		{
			name: "selects another value of the pool's custom label", instanceType: amd64Type(), want: false,
			pool: testutil.NodePool("a").Label("team", "ml").Obj(),
			pod:  daemon("ds").NodeSelector("team", "web").Obj(),
		},
		{
			name: "selects a custom label the pool lacks (B-153)", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").NodeSelector("team", "ml").Obj(),
		},
		{
			name: "NotIn on an undefined key (B-154)", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").RequiredTerm(testutil.Expr("foo", corev1.NodeSelectorOpNotIn, "bar")).Obj(),
		},
		{
			name: "matches only via its second required term (B-154)", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").
				RequiredTerm(testutil.Expr("team", corev1.NodeSelectorOpIn, "ml")).
				RequiredTerm(testutil.Expr("kubernetes.io/os", corev1.NodeSelectorOpIn, "linux")).Obj(),
		},
		{
			name: "impossible preferred affinity is ignored (B-154)", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").PreferredTerm(100, testutil.Expr("kubernetes.io/arch", corev1.NodeSelectorOpIn, "s390x")).Obj(),
		},
		{
			name: "requires a nonexistent instance type (B-153)", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").RequiredTerm(testutil.Expr("node.kubernetes.io/instance-type", corev1.NodeSelectorOpIn, "z9.nano")).Obj(),
		},
		{
			name: "requires karpenter.sh/initialized=true (B-156)", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").RequiredTerm(testutil.Expr(requirements.LabelNodeInitialized, corev1.NodeSelectorOpIn, "true")).Obj(),
		},
		{
			name: "requires karpenter.sh/registered=true (B-156)", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").NodeSelector(requirements.LabelNodeRegistered, "true").Obj(),
		},
		{
			name: "requires an uninitialized node", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").NodeSelector(requirements.LabelNodeInitialized, "false").Obj(),
		},
		{
			name: "selects the pool by name", pool: plain, instanceType: amd64Type(), want: true,
			pod: daemon("ds").NodeSelector(requirements.LabelNodePool, "default").Obj(),
		},
		{
			name: "selects another pool", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").NodeSelector(requirements.LabelNodePool, "gpu").Obj(),
		},
		{
			name: "the pool rules out the capacity type it needs", instanceType: amd64Type(), want: false,
			pool: testutil.NodePool("a").Requirement(requirements.LabelCapacityType, corev1.NodeSelectorOpIn, "on-demand").Obj(),
			pod:  daemon("ds").NodeSelector(requirements.LabelCapacityType, "spot").Obj(),
		},
		{
			name: "needs NVMe, the type has none", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").RequiredTerm(testutil.Expr(labelLocalNVMe, corev1.NodeSelectorOpExists)).Obj(),
		},
		{
			name: "invalid nodeSelector: runs nowhere", pool: plain, instanceType: amd64Type(), want: false,
			pod: daemon("ds").NodeSelector("kubernetes.io/os", "not a value").Obj(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmpl := mustTemplate(t, tc.pool)
			ds := mustDaemonSet(t, testutil.DaemonSet("ds", tc.pod))
			if got := tmpl.RunsDaemonSet(ds, tc.instanceType); got != tc.want {
				t.Errorf("RunsDaemonSet = %v, want %v (alternatives %v, skipped %v)", got, tc.want, ds.Alternatives(), ds.SelectorErrors())
			}
		})
	}
}

func TestDaemonSetOverhead(t *testing.T) {
	tmpl := mustTemplate(t, testutil.NodePool("default").Taint("dedicated", "web", corev1.TaintEffectNoSchedule).Obj())
	dss := []nodepool.DaemonSet{
		mustDaemonSet(t, testutil.DaemonSet("everywhere", daemon("a").CPU("100m").Memory("64Mi").
			Toleration("", corev1.TolerationOpExists, "", "").Obj())),
		mustDaemonSet(t, testutil.DaemonSet("arm-only", daemon("b").CPU("1").Memory("1Gi").
			Toleration("dedicated", corev1.TolerationOpExists, "", "").NodeSelector("kubernetes.io/arch", "arm64").Obj())),
		mustDaemonSet(t, testutil.DaemonSet("untolerating", daemon("c").CPU("2").Obj())),
	}
	tests := []struct {
		name         string
		instanceType requirements.Requirements
		want         corev1.ResourceList
		wantNames    []string
	}{
		{name: "amd64", instanceType: amd64Type(), want: list("cpu", "100m", "memory", "64Mi", "pods", "1"), wantNames: []string{"kube-system/everywhere"}},
		{
			name: "arm64", instanceType: arm64Type(),
			want:      list("cpu", "1100m", "memory", "1088Mi", "pods", "2"),
			wantNames: []string{"kube-system/everywhere", "kube-system/arm-only"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := gocmp.Diff(tc.want, tmpl.DaemonSetOverhead(dss, tc.instanceType)); diff != "" {
				t.Errorf("DaemonSetOverhead (-want +got):\n%s", diff)
			}
			var names []string
			for _, ds := range tmpl.RunningDaemonSets(dss, tc.instanceType) {
				names = append(names, ds.String())
			}
			if diff := gocmp.Diff(tc.wantNames, names); diff != "" {
				t.Errorf("RunningDaemonSets (-want +got):\n%s", diff)
			}
		})
	}
	if diff := gocmp.Diff(corev1.ResourceList{}, tmpl.DaemonSetOverhead(dss[2:], amd64Type())); diff != "" {
		t.Errorf("no DaemonSet runs: (-want +got):\n%s", diff)
	}
}

// A DaemonSet's sidecar (an init container with restartPolicy Always) holds
// its host ports as long as the pod runs; a plain init container's ports
// are gone before the containers start (PodHostPorts).
func TestDaemonSetSidecarHostPorts(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	pod := daemon("ds").HostPort(9100, "").Obj()
	pod.Spec.InitContainers = []corev1.Container{
		{Name: "setup", Ports: []corev1.ContainerPort{{ContainerPort: 70, HostPort: 70}}},
		{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{{ContainerPort: 15001, HostPort: 15001}}},
	}
	want := []nodepool.HostPort{{IP: "0.0.0.0", Port: 9100, Protocol: corev1.ProtocolTCP}, {IP: "0.0.0.0", Port: 15001, Protocol: corev1.ProtocolTCP}}
	if diff := gocmp.Diff(want, mustDaemonSet(t, testutil.DaemonSet("mesh", pod)).HostPorts()); diff != "" {
		t.Errorf("HostPorts (-want +got):\n%s", diff)
	}
}
