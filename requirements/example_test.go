package requirements_test

import (
	"errors"
	"fmt"

	"github.com/nodeplan/nodeplan/requirements"
)

// Gt and Lt become inclusive bounds, excluded values outside the bounds are
// dropped, and a word never satisfies a bound.
func ExampleRequirement_Intersect() {
	gt1, _ := requirements.New("cpu", requirements.OpGt, "1")
	lt9, _ := requirements.New("cpu", requirements.OpLt, "9")
	notIn, _ := requirements.New("cpu", requirements.OpNotIn, "1", "2")

	bounded := gt1.Intersect(lt9)
	fmt.Println(bounded)
	fmt.Println(bounded.Intersect(notIn))
	fmt.Println(bounded.Intersect(requirements.In("cpu", "1", "4", "9")))
	fmt.Println(bounded.Intersects(requirements.In("cpu", "four")))
	for _, e := range bounded.Expressions() {
		fmt.Println(e.Operator, e.Values)
	}
	// Output:
	// cpu Exists >=2 <=8
	// cpu Exists NotIn [2] >=2 <=8
	// cpu In [4]
	// false
	// Gte [2]
	// Lte [8]
}

// A NodePool that does not mention a well-known key lets the cloud choose any
// value; a custom key must be declared before a pod can require it.
func ExampleRequirements_Compatible() {
	schema := requirements.DefaultSchema()
	nodePool := requirements.NewRequirements(
		requirements.In(requirements.LabelCapacityType, "spot", "on-demand"),
		requirements.In("team", "a"),
	)
	pods := []requirements.Requirements{
		requirements.NewRequirements(requirements.In(requirements.LabelTopologyZone, "us-east-1a")),
		requirements.NewRequirements(requirements.NotIn("team", "b")),
		requirements.NewRequirements(requirements.In("team", "b")),
		requirements.NewRequirements(requirements.Exists("zone")),
	}
	for _, pod := range pods {
		err := nodePool.Compatible(pod, schema)
		var incompatible *requirements.IncompatibleError
		if errors.As(err, &incompatible) {
			fmt.Printf("%s: key %s, undefined %v, hint %q\n", pod, incompatible.Key, incompatible.Undefined, incompatible.Hint)
			continue
		}
		fmt.Printf("%s: compatible\n", pod)
	}
	// Output:
	// topology.kubernetes.io/zone In [us-east-1a]: compatible
	// team NotIn [b]: compatible
	// team In [b]: key team, undefined false, hint ""
	// zone Exists: key zone, undefined true, hint "topology.kubernetes.io/zone"
}

// Deprecated labels read as their stable keys, and a provider adds its own
// aliases on a copy of the default schema.
func ExampleSchema_Normalize() {
	aws := requirements.DefaultSchema().WithAliases(map[string]string{
		"topology.ebs.csi.aws.com/zone": requirements.LabelTopologyZone,
	})
	for _, key := range []string{
		"failure-domain.beta.kubernetes.io/zone",
		"beta.kubernetes.io/arch",
		"topology.ebs.csi.aws.com/zone",
		"team",
	} {
		fmt.Println(key, "->", aws.Normalize(key))
	}
	fmt.Println(requirements.DefaultSchema().Normalize("topology.ebs.csi.aws.com/zone"))
	// Output:
	// failure-domain.beta.kubernetes.io/zone -> topology.kubernetes.io/zone
	// beta.kubernetes.io/arch -> kubernetes.io/arch
	// topology.ebs.csi.aws.com/zone -> topology.kubernetes.io/zone
	// team -> team
	// topology.ebs.csi.aws.com/zone
}
