package disruption_test

import (
	"testing"

	"github.com/nodeplan/nodeplan/scheduler/disruption"
)

func BenchmarkZZBig(b *testing.B) {
	b.Run("global/nodes=10000", func(b *testing.B) { benchConsolidate(b, 10000, disruption.SearchGlobal) })
	b.Run("global/nodes=2500", func(b *testing.B) { benchConsolidate(b, 2500, disruption.SearchGlobal) })
}
