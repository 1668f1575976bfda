package manifest

import (
	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
)

// FileError is a file that cannot be read or decoded: its name and the
// cause (for a catalog, the aggregate of every problem instancetypes.Decode
// found, each naming the instance type and field).
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *FileError) Unwrap() error { return e.Err }

// LoadCatalog reads an instance-type catalog file in the format of
// docs/CATALOG.md (gzipped when its name ends in ".gz") and decodes it with
// instancetypes.Decode, the vocabularies of the built-in providers (a file
// that says "provider": "aws" gets the AWS labels, aliases and restricted
// domain), then opts. The error is a *[FileError].
func LoadCatalog(path string, opts ...instancetypes.CatalogOption) (instancetypes.Catalog, error) {
	data, err := readFile(path)
	if err != nil {
		return instancetypes.Catalog{}, &FileError{File: path, Err: err}
	}
	cat, err := instancetypes.Decode(data, append(builtinVocabularies(), opts...)...)
	if err != nil {
		return instancetypes.Catalog{}, &FileError{File: path, Err: err}
	}
	return cat, nil
}

// builtinVocabularies gives the label vocabulary of every provider whose
// catalog is built in.
func builtinVocabularies() []instancetypes.CatalogOption {
	return []instancetypes.CatalogOption{aws.Vocabulary()}
}
