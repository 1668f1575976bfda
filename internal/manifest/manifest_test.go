package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// summary is what a test compares: the names of what was decoded, in
// order, and the warnings.
type summary struct {
	Pods, BoundPods, Nodes, NodePools, DaemonSets []string
	PVCs, PVs, StorageClasses, Namespaces         []string
	Warnings                                      []string
}

func summarize(in Input) summary {
	var s summary
	for _, p := range in.Pods {
		s.Pods = append(s.Pods, p.Namespace+"/"+p.Name)
	}
	for _, p := range in.BoundPods {
		s.BoundPods = append(s.BoundPods, p.Namespace+"/"+p.Name+"@"+p.Spec.NodeName)
	}
	for _, n := range in.Nodes {
		s.Nodes = append(s.Nodes, n.Name)
	}
	for _, np := range in.NodePools {
		s.NodePools = append(s.NodePools, np.Name)
	}
	for _, ds := range in.DaemonSets {
		s.DaemonSets = append(s.DaemonSets, ds.Namespace+"/"+ds.Name)
	}
	for _, c := range in.PVCs {
		s.PVCs = append(s.PVCs, c.Namespace+"/"+c.Name)
	}
	for _, v := range in.PVs {
		s.PVs = append(s.PVs, v.Name)
	}
	for _, c := range in.StorageClasses {
		s.StorageClasses = append(s.StorageClasses, c.Name)
	}
	for _, n := range in.Namespaces {
		s.Namespaces = append(s.Namespaces, n.Name)
	}
	s.Warnings = in.Warnings
	return s
}

const nodePoolYAML = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot"]
`

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files []File
		want  summary
	}{
		{
			name: "multi-document YAML with comments and empty documents",
			files: []File{{Name: "all.yaml", Data: []byte(`# a cluster
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: app}]}
---
# nothing here
---
` + nodePoolYAML + `---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {team: a}}
`)}},
			want: summary{Pods: []string{"default/web"}, NodePools: []string{"default"}, Namespaces: []string{"team-a"}},
		},
		{
			name: "kind List in YAML, items in order",
			files: []File{{Name: "list.yaml", Data: []byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Pod, metadata: {name: a, namespace: ns}, spec: {containers: [{name: c}]}}
- {apiVersion: v1, kind: Node, metadata: {name: node-1}}
- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {nodeName: node-1, containers: [{name: c}]}}
`)}},
			want: summary{Pods: []string{"ns/a"}, BoundPods: []string{"default/b@node-1"}, Nodes: []string{"node-1"}},
		},
		{
			name: "JSON: a List and a second object in one stream",
			files: []File{{Name: "cluster.json", Data: []byte(`{"apiVersion": "v1", "kind": "PodList", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}}
]}
{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "ebs"}, "provisioner": "ebs.csi.aws.com"}
`)}},
			want: summary{Pods: []string{"default/a"}, StorageClasses: []string{"ebs"}},
		},
		{
			name: "workloads expand into NAME-0, NAME-1, ...; a Job runs min(parallelism, completions)",
			files: []File{{Name: "w.yaml", Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c}]}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec: {template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: wide}
spec: {parallelism: 4, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: short}
spec: {parallelism: 4, completions: 2, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: stopped}
spec: {replicas: 0, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec: {template: {spec: {containers: [{name: c}]}}}
`)}},
			want: summary{
				Pods: []string{"shop/web-0", "shop/web-1", "shop/web-2", "default/rs-0", "default/once-0",
					"default/wide-0", "default/wide-1", "default/wide-2", "default/wide-3", "default/short-0", "default/short-1"},
				DaemonSets: []string{"kube-system/agent"},
			},
		},
		{
			name: "StatefulSet claims: generated unless the input defines them",
			files: []File{{Name: "sts.yaml", Data: []byte(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  template: {spec: {containers: [{name: c}]}}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {storageClassName: ebs, resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-1}
spec: {storageClassName: ebs, volumeName: pv-1, resources: {requests: {storage: 1Gi}}}
`)}},
			want: summary{Pods: []string{"default/db-0", "default/db-1"}, PVCs: []string{"default/data-db-1", "default/data-db-0"}},
		},
		{
			name: "bound, finished and DaemonSet pods",
			files: []File{{Name: "pods.yaml", Data: []byte(`apiVersion: v1
kind: Pod
metadata: {name: running}
spec: {nodeName: node-a, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: done}
spec: {nodeName: node-a, containers: [{name: c}]}
status: {phase: Succeeded}
---
apiVersion: v1
kind: Pod
metadata:
  name: agent-x
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u, controller: true}]
spec: {containers: [{name: c}]}
`)}},
			want: summary{BoundPods: []string{"default/running@node-a"}, Warnings: []string{
				"pods.yaml: document 2 (Pod default/done): skipped: the pod has finished (phase Succeeded)",
				"pods.yaml: document 3 (Pod default/agent-x): skipped: a pending DaemonSet pod (give the DaemonSet itself; it counts as overhead on every new node)",
				`1 pod(s) bound to node "node-a", which is not in the input; they are ignored`,
			}},
		},
		{
			name: "skipped documents and lenient decoding, each with a warning",
			files: []File{{Name: "mixed.yaml", Data: []byte(`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
---
notes: no kind here
---
{"region": "us-east-1", "instanceTypes": []}
---
{"nodeClaims": [], "summary": {}}
---
- just
- a list
---
apiVersion: v1
kind: Deployment
metadata: {name: team-a}
spec:
  replicas: 1
  template: {spec: {nodeSelector: {company.com/team: team-a}}}
---
apiVersion: v1
kind: Pod
metadata: {name: typo}
spec: {containers: [{name: c, resource: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: twice, name: twice}
spec: {containers: [{name: c}]}
`)}},
			want: summary{
				Pods: []string{"default/team-a-0", "default/typo", "default/twice"},
				Warnings: []string{
					"mixed.yaml: document 1: skipped kind EC2NodeClass",
					"mixed.yaml: document 2: skipped: no kind",
					"mixed.yaml: document 3: skipped: an instance-type catalog, not a manifest (a catalog is given separately)",
					"mixed.yaml: document 4: skipped: a plan (solver output), not a manifest",
					"mixed.yaml: document 5: not an object; skipped",
					`mixed.yaml: document 6 (Deployment default/team-a): apiVersion "v1" is not an apiVersion of Deployment; decoded as apps/v1 Deployment`,
					`mixed.yaml: document 7 (Pod default/typo): unknown field "spec.containers[0].resource" (ignored)`,
					`mixed.yaml: document 8: yaml: unmarshal errors: line 28: key "name" already set in map (the last value is used)`,
				},
			},
		},
		{
			name:  "an empty file",
			files: []File{{Name: "empty.yaml", Data: []byte("# nothing\n---\n")}},
			want:  summary{Warnings: []string{"empty.yaml: no documents"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := Decode(tt.files)
			require.NoError(t, err)
			if diff := gocmp.Diff(tt.want, summarize(in)); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeWorkloadPods(t *testing.T) {
	t.Parallel()
	in, err := Decode([]File{{Name: "w.yaml", Data: []byte(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data, labels: {ignored: "yes"}}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}, annotations: {a: b}}
    spec:
      containers: [{name: c, resources: {requests: {cpu: 500m}}}]
      tolerations: [{key: dedicated, operator: Exists}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {storageClassName: ebs, resources: {requests: {storage: 1Gi}}}
`)}})
	require.NoError(t, err)
	require.Len(t, in.Pods, 2)
	p0, p1 := in.Pods[0], in.Pods[1]
	controller := true
	want := corev1.Pod{}
	want.APIVersion, want.Kind = "v1", "Pod"
	want.Name, want.Namespace = "db-1", "data"
	want.Labels = map[string]string{"app": "db"}
	want.Annotations = map[string]string{"a": "b"}
	want.OwnerReferences = append(want.OwnerReferences, ownerRef("apps/v1", "StatefulSet", "db", &controller))
	want.Spec = corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m")}}}},
		Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-db-1"}}}},
	}
	if diff := gocmp.Diff(&want, p1); diff != "" {
		t.Errorf("second pod mismatch (-want +got):\n%s", diff)
	}
	// Each pod owns its copy of the template.
	p0.Labels["app"] = "changed"
	p0.Spec.Containers[0].Name = "changed"
	if p1.Labels["app"] != "db" || p1.Spec.Containers[0].Name != "c" {
		t.Errorf("pods share the template: %v %v", p1.Labels, p1.Spec.Containers[0].Name)
	}
	require.Len(t, in.PVCs, 2)
	if diff := gocmp.Diff([]string{"data-db-0", "data-db-1"}, []string{in.PVCs[0].Name, in.PVCs[1].Name}); diff != "" {
		t.Errorf("claims mismatch (-want +got):\n%s", diff)
	}
}

// TestDecodeManyReplicas expands a workload large enough to be built on
// several workers: the pods come in ordinal order, each with its own
// claim and its own copy of the template.
func TestDecodeManyReplicas(t *testing.T) {
	t.Parallel()
	in, err := Decode([]File{{Name: "w.yaml", Data: []byte(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 2500
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {resources: {requests: {storage: 1Gi}}}
`)}})
	require.NoError(t, err)
	require.Len(t, in.Pods, 2500)
	require.Len(t, in.PVCs, 2500)
	var bad []string
	for i, p := range in.Pods {
		name := fmt.Sprintf("db-%d", i)
		claim := fmt.Sprintf("data-db-%d", i)
		if p.Name != name || in.PVCs[i].Name != claim || len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != claim {
			bad = append(bad, fmt.Sprintf("%d: pod %s, claim %s, volumes %v", i, p.Name, in.PVCs[i].Name, p.Spec.Volumes))
		}
	}
	if len(bad) > 0 {
		t.Errorf("pods out of order or with the wrong claims:\n%s", strings.Join(bad[:min(len(bad), 5)], "\n"))
	}
	in.Pods[0].Spec.Containers[0].Name = "changed"
	in.Pods[0].Labels["app"] = "changed"
	if p := in.Pods[len(in.Pods)-1]; p.Spec.Containers[0].Name != "c" || p.Labels["app"] != "db" {
		t.Errorf("pods share the template: %v %v", p.Labels, p.Spec.Containers[0].Name)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files []File
		want  []string
	}{
		{
			name:  "YAML syntax, with the line in the file",
			files: []File{{Name: "bad.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata:\n  name: b\n  labels: a: b\n")}},
			want:  []string{`bad.yaml: document 2: yaml: line 8: mapping values are not allowed in this context`},
		},
		{
			name: "unparsable quantities, all of them, with field paths",
			files: []File{{Name: "pods.yaml", Data: []byte(`apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: 1x, memory: 1Gi}, limits: {memory: lots}}
`)}},
			want: []string{
				`pods.yaml: document 1 (Pod default/web): spec.containers[0].resources.limits[memory]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
				`pods.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests[cpu]: Invalid value: "1x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
			},
		},
		{
			name: "wrong JSON types",
			files: []File{
				{Name: "d.json", Data: []byte(`{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
 "spec": {"replicas": "three", "template": {"spec": {"containers": {"name": "c"}}}}}`)},
				{Name: "n.yaml", Data: []byte("apiVersion: v1\nkind: Node\nmetadata: {name: no}\n")},
			},
			want: []string{
				`d.json: document 1 (Deployment default/d): spec.replicas: Invalid value: "three": want integer, got string`,
				`d.json: document 1 (Deployment default/d): spec.template.spec.containers: Invalid value: want list, got object`,
				`n.yaml: document 1 (Node): metadata.name: Invalid value: false: want string, got boolean (YAML reads an unquoted yes, no, on, off, y or n as a boolean: quote it)`,
			},
		},
		{
			name: "unknown operators in a pod, a workload and a NodePool",
			files: []File{{Name: "ops.yaml", Data: []byte(`apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: Inn, values: [a]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers: [{name: c}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes, labelSelector: {matchExpressions: [{key: app, operator: Equals}]}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      requirements: [{key: zone, operator: Within, values: [a]}]
`)}},
			want: []string{
				`ops.yaml: document 1 (Pod default/p): spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Inn": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
				`ops.yaml: document 2 (Deployment default/d): spec.template.spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`,
				`ops.yaml: document 2 (Deployment default/d): spec.template.spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator: Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist"`,
				`ops.yaml: document 3 (NodePool np): spec.template.spec.requirements[0].operator: Unsupported value: "Within": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"`,
			},
		},
		{
			name: "a NodePool that fails validation, and a misspelled field",
			files: []File{{Name: "np.yaml", Data: []byte(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: big}
spec:
  weight: 500
  template: {spec: {requirements: []}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: typo}
spec:
  template:
    spec:
      requirement: [{key: zone, operator: In, values: [a]}]
`)}},
			want: []string{
				`np.yaml: document 1 (NodePool big): spec.weight: Invalid value: 500: must be within 1..100`,
				`np.yaml: document 2 (NodePool typo): spec.template.spec.requirement: Forbidden: unknown field (did you mean "requirements"?)`,
			},
		},
		{
			name: "missing names, negative replicas, duplicates, a List item",
			files: []File{
				{Name: "a.yaml", Data: []byte(`apiVersion: v1
kind: Pod
metadata: {namespace: x}
spec: {containers: [{name: c}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: -1, template: {spec: {containers: [{name: c}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: api-0}
spec: {containers: [{name: c}]}
`)},
				{Name: "b.json", Data: []byte(`{"kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"},
 "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}}]}`)},
			},
			want: []string{
				`a.yaml: document 1 (Pod): metadata.name: Required value: every object needs a name`,
				`a.yaml: document 2 (Deployment default/web): spec.replicas: Invalid value: -1: must not be negative`,
				`b.json: document 1, items[0] (Deployment default/api): Pod default/api-0 is defined twice (first in a.yaml: document 3)`,
			},
		},
		{
			name:  "JSON syntax",
			files: []File{{Name: "bad.json", Data: []byte("{\"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\"}\n,,}")}},
			want:  []string{`bad.json: document 1: line 3: invalid character ',' looking for beginning of object key string`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Decode(tt.files)
			var errs Errors
			require.ErrorAs(t, err, &errs)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode() errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorsAreFieldErrors(t *testing.T) {
	t.Parallel()
	_, err := Decode([]File{{Name: "p.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: x}}}]}\n")}})
	var fe *field.Error
	require.ErrorAs(t, err, &fe)
	if diff := gocmp.Diff("spec.containers[0].resources.requests[cpu]", fe.Field); diff != "" {
		t.Errorf("field mismatch (-want +got):\n%s", diff)
	}
	var me *Error
	require.True(t, errors.As(err, &me))
	if diff := gocmp.Diff(Error{File: "p.yaml", Document: 1, Kind: "Pod", Namespace: "default", Name: "p", Err: fe}, *me,
		gocmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("location mismatch (-want +got):\n%s", diff)
	}
}

func ownerRef(apiVersion, kind, name string, controller *bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: controller}
}

func TestDecodeEmptyList(t *testing.T) {
	t.Parallel()
	in, err := Decode([]File{{Name: "l.yaml", Data: []byte("apiVersion: v1\nkind: List\n---\nkind: List\nitems: null\n")}})
	require.NoError(t, err)
	if diff := gocmp.Diff(summary{}, summarize(in)); diff != "" {
		t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
	}
	_, err = Decode([]File{{Name: "l.yaml", Data: []byte("kind: List\nitems: {a: 1}\n")}})
	require.EqualError(t, err, "l.yaml: document 1 (List): items: Invalid value: want a list of objects")
}
