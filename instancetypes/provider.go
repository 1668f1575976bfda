package instancetypes

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/requirements"
)

// A catalog may name the cloud provider whose label vocabulary it uses
// (the catalog JSON's "provider" field, [WithProvider], or a transform's
// Document.Provider): "aws" for the built-in catalog. The vocabulary — the
// provider's well-known label keys, its aliases (topology.ebs.csi.aws.com/zone
// for topology.kubernetes.io/zone) and its restricted label domains — is
// what the catalog's Schema extends, so a catalog written out with Encode
// and read back plans exactly as the original. This package knows no
// provider: the caller gives each vocabulary with [WithVocabulary] (the
// provider's package has an option for it, such as aws.Vocabulary), and a
// catalog that names a provider whose vocabulary was not given is an error
// rather than a silent fall back to the core vocabulary.

// WithProvider records the provider whose vocabulary the catalog uses,
// overriding the file's "provider". Its vocabulary must be given with
// WithVocabulary, unless WithBaseSchema sets the schema outright.
func WithProvider(name string) CatalogOption {
	return func(c *catalogConfig) { c.provider = name }
}

// WithVocabulary gives the label vocabulary of a provider: a catalog that
// names the provider extends schema (see [Catalog.Schema]). It may be given
// for several providers; it does not make the catalog name one.
func WithVocabulary(provider string, schema requirements.Schema) CatalogOption {
	return func(c *catalogConfig) {
		if c.vocabularies == nil {
			c.vocabularies = map[string]requirements.Schema{}
		}
		c.vocabularies[provider] = schema
	}
}

// Provider returns the provider whose label vocabulary the catalog uses (""
// for the core vocabulary only).
func (c Catalog) Provider() string { return c.provider }

// baseSchema returns the vocabulary the catalog extends: WithBaseSchema's,
// else the provider's, else requirements.DefaultSchema.
func (cfg *catalogConfig) baseSchema() (requirements.Schema, *field.Error) {
	switch {
	case cfg.schema != nil:
		return *cfg.schema, nil
	case cfg.provider == "":
		return requirements.DefaultSchema(), nil
	}
	if s, ok := cfg.vocabularies[cfg.provider]; ok {
		return s, nil
	}
	path := field.NewPath("provider")
	if len(cfg.vocabularies) == 0 {
		return requirements.Schema{}, field.Invalid(path, cfg.provider,
			"no label vocabulary was given for this provider (give it with instancetypes.WithVocabulary, e.g. aws.Vocabulary())")
	}
	return requirements.Schema{}, field.NotSupported(path, cfg.provider, slices.Sorted(maps.Keys(cfg.vocabularies)))
}
