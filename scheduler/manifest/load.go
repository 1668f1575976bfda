package manifest

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
)

// Load reads the manifests of files and folders, as `nodeplan solve -f PATH`
// does, and decodes them (see [ReadFiles] and [Decode]). The error joins
// every path that cannot be read and every problem of the manifests; the
// Input must then not be solved.
func Load(paths ...string) (Input, error) {
	files, readErr := ReadFiles(paths, false)
	in, err := Decode(files)
	if readErr != nil {
		return in, errors.Join(readErr, err)
	}
	return in, err
}

// ReadFiles reads the files named by paths: a file is read whatever its
// name; a folder gives its *.yaml, *.yml and *.json files, gzipped (*.gz) or
// not, in name order (and those of its sub-folders with recursive, skipping
// hidden folders). A file named twice is read once; a *.gz file is
// decompressed. Every path that cannot be read is a *[FileError] (joined
// with errors.Join, one per path); the others are still read and returned, so
// every problem is reported in one pass.
func ReadFiles(paths []string, recursive bool) ([]File, error) {
	var files []File
	var errs []error
	seen := map[string]bool{}
	for _, p := range paths {
		names, err := expand(p, recursive)
		if err != nil {
			errs = append(errs, err)
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
				errs = append(errs, &FileError{File: name, Err: err})
				continue
			}
			files = append(files, File{Name: name, Data: data})
		}
	}
	return files, errors.Join(errs...)
}

// manifestExts are the extensions taken from a folder.
func manifestExts() []string { return []string{".yaml", ".yml", ".json"} }

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
		base := strings.TrimSuffix(strings.ToLower(name), ".gz") // pods.yaml.gz too: it is decompressed
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
			hint = " (its sub-folders are read only when recursive)"
		}
		return nil, &FileError{File: p, Err: fmt.Errorf("no .yaml, .yml or .json file in the folder%s", hint)}
	}
	return names, nil
}

// readFile reads a file, decompressing it when its name ends in ".gz". The
// error is the bare cause (no file name).
func readFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if !strings.EqualFold(filepath.Ext(name), ".gz") {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// pathError is a path that cannot be read: "PATH: no such file or
// directory" rather than Go's "stat PATH: ...".
func pathError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &FileError{File: name, Err: err}
}
