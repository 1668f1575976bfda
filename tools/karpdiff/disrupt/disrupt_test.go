package disrupt

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/benchcluster"
	imanifest "github.com/nodeplan/nodeplan/internal/manifest"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/tools/karpdiff/karp"
)

var paths = flag.Int("paths", 3, "generated clusters TestGeneratedPath follows (1 with -short)")

func TestMain(m *testing.M) {
	cat, err := aws.Catalog()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	karp.RegisterVocabulary(cat, true)
	os.Exit(m.Run())
}

// karpenterRuns is how many times Karpenter runs on one cluster before a
// difference counts (its ties fall by map order).
const karpenterRuns = 4

func logStep(t *testing.T, prefix string, s Step) {
	t.Helper()
	t.Logf("%s (%d nodes): %s: nodeplan %v", prefix, s.Nodes, s.Verdict, s.Nodeplan)
	if s.Verdict != Same {
		for _, k := range s.Karpenter {
			t.Logf("    karpenter %v", k)
		}
	}
}

// TestExamples: on every example of testdata/consolidate, nodeplan's whole
// Karpenter-faithful plan agrees with Karpenter's code step by step.
func TestExamples(t *testing.T) {
	cat, err := aws.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	argFiles, err := filepath.Glob("../../../testdata/consolidate/*/args")
	if err != nil || len(argFiles) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, args := range argFiles {
		dir := filepath.Dir(args)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(args)
			if err != nil {
				t.Fatal(err)
			}
			var now time.Time
			var o Options
			f := strings.Fields(string(data))
			for i := 0; i < len(f); i++ {
				switch f[i] {
				case "--now":
					i++
					if now, err = time.Parse(time.RFC3339, f[i]); err != nil {
						t.Fatal(err)
					}
				case "--spot-to-spot":
					o.SpotToSpot = true
				default:
					t.Fatalf("args: unknown %q", f[i])
				}
			}
			files, err := manifest.ReadFiles([]string{dir}, false)
			if err != nil {
				t.Fatal(err)
			}
			in, err := imanifest.DecodeCluster(files)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			err = Follow(in.RunningCluster(), in.NodePools, cat, now, o, 0, karpenterRuns, func(s Step) {
				n++
				logStep(t, fmt.Sprintf("step %d", n), s)
				if s.Verdict != Same && s.Verdict != Tie {
					t.Errorf("step %d: %s", n, s.Verdict)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGeneratedPath follows nodeplan's Karpenter-faithful plan on small
// generated clusters (a solved aws-mixed plan as running nodes, scaled
// down, with PDBs, do-not-disrupt pods, bound volumes and drifted nodes):
// every step agrees with Karpenter's code, or differs only because
// Karpenter's simulation cannot place pods nodeplan's Solve places
// (Packs), never in a rule. Odd seeds turn SpotToSpotConsolidation on.
func TestGeneratedPath(t *testing.T) {
	seeds, steps := *paths, 0
	if testing.Short() {
		seeds, steps = 1, 6
	}
	tally := map[Verdict]int{}
	for seed := range seeds {
		g, err := benchcluster.Generate(benchcluster.Options{Nodes: 10 + 4*seed, Seed: uint64(100 + seed)})
		if err != nil {
			t.Fatal(err)
		}
		n, o := 0, Options{SpotToSpot: seed%2 == 1}
		err = Follow(g.Cluster, g.NodePools, g.Catalog, g.Now, o, steps, karpenterRuns, func(s Step) {
			n++
			tally[s.Verdict]++
			logStep(t, fmt.Sprintf("seed %d (spot-to-spot %t) step %d", 100+seed, o.SpotToSpot, n), s)
			if s.Verdict == Differ || s.Verdict == SameNodes {
				t.Errorf("seed %d step %d: %s", 100+seed, n, s.Verdict)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%v", tally)
}
