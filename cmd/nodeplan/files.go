package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nodeplan/nodeplan/internal/manifest"
)

// manifestExts are the extensions taken from a folder (SCENARIO.md).
func manifestExts() []string { return []string{".yaml", ".yml", ".json"} }

// readInputs reads the files named by paths: a file is read whatever its
// name; a folder gives its *.yaml, *.yml and *.json files (gzipped or not)
// in name order
// (and those of its sub-folders with recursive, skipping hidden folders). A
// file named twice is read once. A file whose name ends in ".gz" is
// decompressed. Every path that cannot be read is an error; the others are
// still read, so all problems are reported in one pass.
func readInputs(paths []string, recursive bool) ([]manifest.File, []string) {
	var files []manifest.File
	var errs []string
	seen := map[string]bool{}
	for _, p := range paths {
		names, err := expand(p, recursive)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for _, name := range names {
			key, err := filepath.Abs(name)
			if err != nil {
				key = filepath.Clean(name)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			data, err := readFile(name)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			files = append(files, manifest.File{Name: name, Data: data})
		}
	}
	return files, errs
}

// expand returns the files a path stands for.
func expand(p string, recursive bool) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, pathError(p, err)
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var names []string
	err = filepath.WalkDir(p, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return pathError(name, err)
		}
		if d.IsDir() {
			if name == p {
				return nil
			}
			if !recursive || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		base := strings.ToLower(name)
		base = strings.TrimSuffix(base, ".gz") // pods.yaml.gz too: it is decompressed
		if slices.Contains(manifestExts(), filepath.Ext(base)) {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		hint := ""
		if !recursive {
			hint = " (-R reads sub-folders)"
		}
		return nil, fmt.Errorf("%s: no .yaml, .yml or .json file in the folder%s", p, hint)
	}
	return names, nil
}

// readFile reads a file, decompressing it when its name ends in ".gz".
func readFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, pathError(name, err)
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
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// pathError renders "PATH: no such file or directory" rather than Go's
// "open PATH: ...".
func pathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
