package disruption_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/nodepool"
	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

func TestSmoke(t *testing.T) {
	b := newCluster(t)
	b.node("n1", "default", "m.large", "zone-a", "on-demand")
	b.node("n2", "default", "m.large", "zone-a", "on-demand")
	b.node("n3", "default", "m.medium", "zone-b", "on-demand")
	b.node("n4", "default", "m.small", "zone-b", "on-demand")
	b.pod("a", "n1", "1")
	b.pod("b", "n2", "1")
	b.pod("c", "n3", "500m")
	res, err := disruption.Plan(b.c, []nodepool.NodePool{defaultPool()}, b.catalog, testNow())
	require.NoError(t, err)
	out, _ := json.MarshalIndent(res, "", " ")
	fmt.Println(string(out))
}
