package gen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// Scenario is one generated scenario.
type Scenario struct {
	Seed uint64
	// Family is the catalog family.
	Family string
	// Objects are the manifests, in output order.
	Objects []any
	// Catalog is the instance-type catalog.
	Catalog instancetypes.Catalog
	// Pods is the number of pending pods the workloads expand to.
	Pods int
}

// Generate returns the scenario of a seed.
func Generate(seed uint64) (*Scenario, error) {
	g := newRNG(seed)
	fam := pick(g, families())
	types, err := fam.build(g)
	if err != nil {
		return nil, fmt.Errorf("seed %d: catalog %s: %w", seed, fam.name, err)
	}
	cat, err := instancetypes.NewCatalog(types, instancetypes.WithSource(fmt.Sprintf("karpdiff gen seed %d, family %s", seed, fam.name)))
	if err != nil {
		return nil, fmt.Errorf("seed %d: catalog %s: %w", seed, fam.name, err)
	}
	b := newBuilder(g, newVocab(types))
	b.build()
	return &Scenario{Seed: seed, Family: fam.name, Objects: b.objects(), Catalog: cat, Pods: b.pods}, nil
}

// Files renders the scenario: scenario.yaml (documents separated by
// "---") and catalog.json.
func (s *Scenario) Files() (scenarioYAML, catalogJSON []byte, err error) {
	var buf bytes.Buffer
	for i, o := range s.Objects {
		y, err := yaml.Marshal(o)
		if err != nil {
			return nil, nil, fmt.Errorf("seed %d: object %d: %w", s.Seed, i, err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(y)
	}
	cj, err := instancetypes.Encode(s.Catalog)
	if err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), cj, nil
}

// Write writes the scenario into dir (created): scenario.yaml and
// catalog.json.
func (s *Scenario) Write(dir string) error {
	sy, cj, err := s.Files()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), sy, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "catalog.json"), cj, 0o644)
}

// DirName is the folder name of a seed's scenario.
func DirName(seed uint64) string { return fmt.Sprintf("seed-%06d", seed) }
