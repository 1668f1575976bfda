package nodepool_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/requirements"
)

func ExampleNewTemplate() {
	np, err := nodepool.Decode([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: reserved-instance
spec:
  weight: 50
  limits:
    cpu: 100
  template:
    spec:
      requirements:
        - key: "node.kubernetes.io/instance-type"
          operator: In
          values: ["c4.large"]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tmpl, err := nodepool.NewTemplate(np, requirements.DefaultSchema())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tmpl.Name, tmpl.Weight)
	fmt.Println(tmpl.Requirements)

	used := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("98")}
	c4large := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	c4xlarge := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}
	for _, capacity := range []corev1.ResourceList{c4large, c4xlarge} {
		exceeded, ok := nodepool.FitsLimits(tmpl.Remaining(used), capacity)
		fmt.Printf("fits=%v exceeded=%q\n", ok, exceeded)
	}
	// Output:
	// reserved-instance 50
	// karpenter.sh/nodepool In [reserved-instance], node.kubernetes.io/instance-type In [c4.large]
	// fits=true exceeded=""
	// fits=false exceeded="cpu"
}

func ExampleDecode_unknownField() {
	_, err := nodepool.Decode([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  weigth: 10
  template:
    spec:
      requirements: []
`))
	fmt.Println(err)
	// Output:
	// nodepool "default": spec.weigth: Forbidden: unknown field (did you mean "weight"?)
}
