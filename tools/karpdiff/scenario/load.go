package scenario

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
)

// Scenario is one decoded scenario: the manifests and the catalog.
type Scenario struct {
	// Files are the manifest files as read, for a consumer that decodes
	// them itself (nodeplan's command line does, without defaulting).
	Files []manifest.File
	// Input holds the decoded manifests, pods defaulted as the API server
	// stores them.
	Input manifest.Input
	// Catalog is the instance-type catalog of the run.
	Catalog instancetypes.Catalog
	// Builtin says the catalog is nodeplan's built-in AWS one (no
	// --catalog), whose label vocabulary is the AWS provider's.
	Builtin bool
}

// Load reads the manifests of paths (files or folders) and the catalog file
// (empty: the built-in AWS catalog of us-east-1, as `nodeplan solve`).
// Decoding errors name the file, document and field.
func Load(paths []string, catalogFile string) (*Scenario, error) {
	var files []manifest.File
	for _, p := range paths {
		fs, err := readPath(p)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	in, err := manifest.Decode(files)
	if err != nil {
		return nil, fmt.Errorf("decoding manifests: %w", err)
	}
	DefaultPods(&in)
	s := &Scenario{Files: files, Input: in}
	if catalogFile == "" {
		s.Catalog, err = aws.Catalog()
		s.Builtin = true
	} else {
		s.Catalog, err = LoadCatalog(catalogFile)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// LoadCatalog reads a catalog file in the library's JSON format.
func LoadCatalog(name string) (instancetypes.Catalog, error) {
	data, err := readFile(name)
	if err != nil {
		return instancetypes.Catalog{}, err
	}
	cat, err := instancetypes.Decode(data, aws.Vocabulary())
	if err != nil {
		return instancetypes.Catalog{}, fmt.Errorf("%s: %w", name, err)
	}
	return cat, nil
}

// readPath returns the files a path stands for: the file itself, or the
// *.yaml, *.yml and *.json files (also gzipped) of a folder, in name order,
// not recursing.
func readPath(p string) ([]manifest.File, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	names := []string{p}
	if info.IsDir() {
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		names = names[:0]
		for _, e := range entries {
			base := strings.TrimSuffix(strings.ToLower(e.Name()), ".gz")
			if !e.IsDir() && slices.Contains([]string{".yaml", ".yml", ".json"}, filepath.Ext(base)) {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		slices.Sort(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no .yaml, .yml or .json file in the folder", p)
		}
	}
	out := make([]manifest.File, 0, len(names))
	for _, n := range names {
		data, err := readFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, manifest.File{Name: n, Data: data})
	}
	return out, nil
}

// readFile reads a file, decompressing it when its name ends in ".gz".
func readFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(filepath.Ext(name), ".gz") {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, errors.Join(err, zr.Close()))
	}
	return out, nil
}
