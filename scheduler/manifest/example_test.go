package manifest_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// Load a scenario folder the way `nodeplan solve -f` does and plan it on the
// built-in AWS catalog.
func ExampleLoad() {
	in, err := manifest.Load("../../testdata/examples/gpu-taint")
	if err != nil {
		panic(err) // names the file, document, object and field
	}
	catalog, err := aws.Catalog()
	if err != nil {
		panic(err)
	}
	res, err := in.Solve(catalog)
	if err != nil {
		panic(err)
	}
	for _, nc := range res.NodeClaims {
		fmt.Println(nc.NodePool, nc.InstanceType, nc.CapacityType, nc.Pods)
	}
	// Output:
	// default m1.small spot [default/web]
	// gpu g4dn.xlarge spot [default/mygpupod]
}

// Decode manifests held in memory: a Deployment becomes its pods, a pod with
// spec.nodeName is cluster state, and Options hands that state to Solve.
func ExampleDecode() {
	in, err := manifest.Decode([]manifest.File{{Name: "app.yaml", Data: []byte(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {kubernetes.io/arch: amd64}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
`)}})
	if err != nil {
		panic(err)
	}
	for _, p := range in.Pods {
		fmt.Println(p.Namespace + "/" + p.Name)
	}
	fmt.Println(len(in.Nodes), "node,", len(in.Options()), "option")
	// Output:
	// shop/web-0
	// shop/web-1
	// 1 node, 1 option
}

// A manifest the API server would reject is an error naming the file,
// document, object and field.
func ExampleDecode_error() {
	_, err := manifest.Decode([]manifest.File{{Name: "pods.yaml", Data: []byte(`
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: web, resources: {requests: {cpu: 1x}}}]
`)}})
	fmt.Println(err)
	// Output:
	// pods.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests[cpu]: Invalid value: "1x": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}
