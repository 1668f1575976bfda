package scheduler_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/scheduler"
)

// planJSON solves in with extra options and renders the plan as JSON.
func planJSON(t *testing.T, in propertyInput, extra ...scheduler.Option) string {
	t.Helper()
	res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, append(in.options(), extra...)...)
	require.NoError(t, err)
	data, err := json.Marshal(res)
	require.NoError(t, err)
	return string(data)
}

// preparedCatalogs prepares every property catalog once, by name.
func preparedCatalogs(t *testing.T, cats []propertyCatalog) map[string]*scheduler.PreparedCatalog {
	t.Helper()
	out := map[string]*scheduler.PreparedCatalog{}
	for _, c := range cats {
		p, err := scheduler.Prepare(c.cat)
		require.NoError(t, err)
		out[c.name] = p
	}
	return out
}

// TestWithPreparedSamePlan solves generated inputs (reservations, topology,
// limits, existing nodes, DaemonSets, volumes) with a catalog prepared
// once and shared by every case, which run in parallel, and requires the
// plan Solve makes when it prepares the catalog itself, byte for byte.
func TestWithPreparedSamePlan(t *testing.T) {
	cats := propertyCatalogs(t)
	prepared := preparedCatalogs(t, cats)
	cases := 40
	if testing.Short() {
		cases = 10
	}
	for i := range cases {
		t.Run(fmt.Sprintf("case-%03d", i), func(t *testing.T) {
			t.Parallel()
			in := genInput(rand.New(rand.NewPCG(propertySeed, uint64(i))), cats)
			want := planJSON(t, in)
			if diff := gocmp.Diff(want, planJSON(t, in, scheduler.WithPrepared(prepared[in.catalog.name]))); diff != "" {
				t.Errorf("plan with a prepared catalog differs (-prepared by Solve +WithPrepared):\n%s", diff)
			}
		})
	}
}

// TestPreparedConcurrentSolves solves two inputs on one prepared catalog
// from two goroutines at once, each several times, and requires the plans
// made one at a time. Run it with -race: a prepared catalog is read-only.
func TestPreparedConcurrentSolves(t *testing.T) {
	t.Parallel()
	cats := propertyCatalogs(t)
	prepared := preparedCatalogs(t, cats)
	var ins []propertyInput
	for i := uint64(0); len(ins) < 2; i++ { // the first two inputs on catalog "mixed"
		if in := genInput(rand.New(rand.NewPCG(propertySeed, i)), cats); in.catalog.name == "mixed" {
			ins = append(ins, in)
		}
	}
	p := prepared["mixed"]
	want := make([]string, len(ins))
	for i, in := range ins {
		want[i] = planJSON(t, in, scheduler.WithPrepared(p))
	}
	const rounds = 3
	got := make([][]string, len(ins))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, in := range ins {
		wg.Go(func() {
			<-start
			for range rounds {
				res, err := scheduler.Solve(in.pods, in.pools, in.catalog.cat, append(in.options(), scheduler.WithPrepared(p))...)
				if err != nil {
					got[i] = append(got[i], err.Error())
					continue
				}
				data, _ := json.Marshal(res)
				got[i] = append(got[i], string(data))
			}
		})
	}
	close(start)
	wg.Wait()
	for i := range ins {
		for r, g := range got[i] {
			if diff := gocmp.Diff(want[i], g); diff != "" {
				t.Errorf("input %d, round %d (-alone +concurrent):\n%s", i, r, diff)
			}
		}
	}
}

// TestWithPreparedCatalogCheck checks which catalogs a PreparedCatalog
// serves: its own and copies of the value; another catalog, even one
// decoded from the same bytes, is an *InputError naming the option; nil is
// no option.
func TestWithPreparedCatalogCheck(t *testing.T) {
	t.Parallel()
	cats := propertyCatalogs(t)
	in := genInput(rand.New(rand.NewPCG(propertySeed, 0)), cats)
	own := in.catalog.cat
	p, err := scheduler.Prepare(own)
	require.NoError(t, err)
	twin, err := instancetypes.NewCatalog(derefTypes(own), instancetypes.WithBaseSchema(own.Schema()))
	require.NoError(t, err)
	copied := own
	for _, tt := range []struct {
		name      string
		catalog   instancetypes.Catalog
		prepared  *scheduler.PreparedCatalog
		wantError bool
	}{
		{"its own catalog", own, p, false},
		{"a copy of the value", copied, p, false},
		{"nil: Solve prepares its own", own, nil, false},
		{"an equal catalog built apart", twin, p, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scheduler.Solve(in.pods, in.pools, tt.catalog, append(in.options(), scheduler.WithPrepared(tt.prepared))...)
			var ie *scheduler.InputError
			switch {
			case !tt.wantError && err != nil:
				t.Errorf("Solve: %v", err)
			case tt.wantError && (!errors.As(err, &ie) || ie.Field != "WithPrepared"):
				t.Errorf("Solve error = %v, want an *InputError of WithPrepared", err)
			}
		})
	}
	if got := p.Catalog().Len(); got != own.Len() {
		t.Errorf("Catalog().Len() = %d, want %d", got, own.Len())
	}
}

// derefTypes copies a catalog's instance types.
func derefTypes(c instancetypes.Catalog) []instancetypes.InstanceType {
	out := make([]instancetypes.InstanceType, 0, c.Len())
	for _, it := range c.Types() {
		out = append(out, *it)
	}
	return out
}
