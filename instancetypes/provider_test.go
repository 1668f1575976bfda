package instancetypes_test

import (
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// vendorSchema is a provider vocabulary: one alias and one restricted domain.
func vendorSchema() requirements.Schema {
	return requirements.DefaultSchema().
		WithAliases(map[string]string{"vendor.example/zone": requirements.LabelTopologyZone}).
		WithRestrictedDomains("vendor.example")
}

func withProvider(provider string) string {
	return `{"region":"r","source":"s","provider":"` + provider + `","instanceTypes":[` + m5Large + `]}`
}

func TestProviderVocabulary(t *testing.T) {
	t.Parallel()
	vendor := instancetypes.WithVocabulary("vendor", vendorSchema())
	tests := []struct {
		name      string
		doc       string
		opts      []instancetypes.CatalogOption
		wantErr   string
		provider  string
		wantAlias bool // vendor.example/zone normalises to the zone
	}{
		{name: "no provider: the core vocabulary", doc: document(m5Large), opts: []instancetypes.CatalogOption{vendor}},
		{name: "the file's provider picks its vocabulary", doc: withProvider("vendor"), opts: []instancetypes.CatalogOption{vendor},
			provider: "vendor", wantAlias: true},
		{name: "WithProvider overrides the file", doc: document(m5Large),
			opts: []instancetypes.CatalogOption{vendor, instancetypes.WithProvider("vendor")}, provider: "vendor", wantAlias: true},
		{name: "WithBaseSchema wins over the provider", doc: withProvider("vendor"),
			opts: []instancetypes.CatalogOption{vendor, instancetypes.WithBaseSchema(requirements.DefaultSchema())}, provider: "vendor"},
		{name: "a provider without a vocabulary is an error, not the core vocabulary", doc: withProvider("vendor"),
			wantErr: `provider: Invalid value: "vendor": no label vocabulary was given for this provider`},
		{name: "an unknown provider names the known ones", doc: withProvider("other"), opts: []instancetypes.CatalogOption{vendor},
			wantErr: `provider: Unsupported value: "other": supported values: "vendor"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := instancetypes.Decode([]byte(tt.doc), tt.opts...)
			if tt.wantErr != "" {
				require.Error(t, err)
				if !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("error %q, want it to start with %q", err, tt.wantErr)
				}
				return
			}
			require.NoError(t, err)
			got := []any{c.Provider(), c.Schema().Normalize("vendor.example/zone") == requirements.LabelTopologyZone}
			if diff := gocmp.Diff([]any{tt.provider, tt.wantAlias}, got); diff != "" {
				t.Errorf("provider, alias (-want +got):\n%s", diff)
			}
		})
	}
}

// Encode writes the provider, and the file reads back with it.
func TestEncodeProvider(t *testing.T) {
	t.Parallel()
	vendor := instancetypes.WithVocabulary("vendor", vendorSchema())
	c, err := instancetypes.Decode([]byte(withProvider("vendor")), vendor)
	require.NoError(t, err)
	out, err := instancetypes.Encode(c)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "{\"region\":\"r\",\n\"source\":\"s\",\n\"provider\":\"vendor\",\n"), "%s", out)
	back, err := instancetypes.Decode(out, vendor)
	require.NoError(t, err)
	again, err := instancetypes.Encode(back)
	require.NoError(t, err)
	if diff := gocmp.Diff(string(out), string(again)); diff != "" {
		t.Errorf("Encode(Decode(Encode(c))) (-want +got):\n%s", diff)
	}
	if !back.Schema().IsRestricted("vendor.example/other") {
		t.Errorf("the vocabulary's restricted domain is lost after the round trip")
	}

	// A catalog that names no provider writes no provider field.
	plain, err := instancetypes.Decode([]byte(document(m5Large)))
	require.NoError(t, err)
	out, err = instancetypes.Encode(plain)
	require.NoError(t, err)
	require.NotContains(t, string(out), `"provider"`)
}
