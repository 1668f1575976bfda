package manifest

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// What the API server would reject is an input error naming the file, the
// document, the object and the field, never a pod left for the solver.
func TestDecodeRejectsWhatTheAPIServerRejects(t *testing.T) {
	t.Parallel()
	in, err := Decode([]File{{Name: "bad.yaml", Data: []byte(`apiVersion: v1
kind: Pod
metadata: {name: negative}
spec:
  containers: [{name: c, resources: {requests: {cpu: "-2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: exists}
spec:
  containers: [{name: c}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: team, operator: Exists, values: [a]}, {key: cpu, operator: Gt, values: ["4.5"]}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: "a b"}}
spec:
  taints: [{key: gpu, effect: Never}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    metadata: {labels: {"app/": web}}
    spec:
      containers: [{name: c, resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}]
      tolerations: [{key: a, operator: Exists, value: b}]
---
apiVersion: v1
kind: Namespace
metadata: {name: team, labels: {tier: "-x"}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec:
  nodeAffinity:
    required:
      nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Lt, values: ["1", "2"]}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: valid}
spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
`)}})
	require.Error(t, err)
	var errs Errors
	require.ErrorAs(t, err, &errs)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	const term = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
	want := []string{
		`bad.yaml: document 1 (Pod default/negative): spec.containers[0].resources.requests[cpu]: Invalid value: "-2": must be greater than or equal to 0`,
		`bad.yaml: document 2 (Pod default/exists): ` + term + ".matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
		`bad.yaml: document 2 (Pod default/exists): ` + term + `.matchExpressions[1].values[0]: Invalid value: "4.5": must be an integer when ` + "`operator` is 'Lt' or 'Gt'",
		`bad.yaml: document 3 (Node n1): metadata.labels[zone]: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		`bad.yaml: document 3 (Node n1): spec.taints[0].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		`bad.yaml: document 4 (Deployment default/web): spec.template.metadata.labels[app/]: Invalid value: "app/": name part must be non-empty`,
		`bad.yaml: document 4 (Deployment default/web): spec.template.metadata.labels[app/]: Invalid value: "app/": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		"bad.yaml: document 4 (Deployment default/web): spec.template.spec.tolerations[0].value: Invalid value: \"b\": value must be empty when `operator` is 'Exists'",
		`bad.yaml: document 4 (Deployment default/web): spec.template.spec.containers[0].resources.requests[memory]: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi`,
		`bad.yaml: document 5 (Namespace team): metadata.labels[tier]: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		"bad.yaml: document 6 (PersistentVolume pv): spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'",
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Decode() errors (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{"valid"}, podNames(in)); diff != "" {
		t.Errorf("only the valid pod is decoded (-want +got):\n%s", diff)
	}
}

func podNames(in Input) []string {
	var out []string
	for _, p := range in.Pods {
		out = append(out, p.Name)
	}
	return out
}
