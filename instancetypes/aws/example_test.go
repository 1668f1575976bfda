package aws_test

import (
	"fmt"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/requirements"
)

func ExampleCatalog() {
	c, err := aws.Catalog(aws.WithRegion("us-gov-west-1"), aws.WithoutSpot())
	if err != nil {
		fmt.Println(err)
		return
	}
	gen, _ := requirements.New(aws.LabelInstanceGeneration, requirements.OpGt, "6")
	it, o, _ := c.Cheapest(requirements.NewRequirements(
		requirements.In(requirements.LabelArch, "arm64"),
		requirements.In(aws.LabelInstanceCPU, "2"),
		gen))
	// prices-on-demand.csv: us-gov-west-1,c7g.large,0.0867
	fmt.Println(c.Len(), it.Name, o.Zone, o.ZoneID, o.Price)
	// Output:
	// 743 c7g.large us-gov-west-1a usgw1-az1 0.0867
}
