package aws_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
)

// The built-in catalog names its provider, and written out and read back
// with aws.Vocabulary it is the same catalog: same bytes, same vocabulary.
func TestCatalogRoundTripKeepsVocabulary(t *testing.T) {
	t.Parallel()
	c, err := aws.Catalog()
	require.NoError(t, err)
	require.Equal(t, aws.Provider, c.Provider())
	out, err := instancetypes.Encode(c)
	require.NoError(t, err)
	back, err := instancetypes.Decode(out, aws.Vocabulary())
	require.NoError(t, err)
	again, err := instancetypes.Encode(back)
	require.NoError(t, err)
	require.True(t, string(out) == string(again), "Encode(Decode(Encode(builtin))) differs from Encode(builtin)")
	type vocabulary struct {
		WellKnown  []string
		Aliases    map[string]string
		Restricted bool
	}
	of := func(c instancetypes.Catalog) vocabulary {
		s := c.Schema()
		return vocabulary{s.WellKnownKeys(), s.Aliases(), s.IsRestricted(aws.Domain + "/custom")}
	}
	if diff := gocmp.Diff(of(c), of(back)); diff != "" {
		t.Errorf("vocabulary after the round trip (-builtin +read back):\n%s", diff)
	}
	if _, err := instancetypes.Decode(out); err == nil {
		t.Errorf("decoding the built-in catalog without its vocabulary succeeded; want an error naming the provider")
	}
}
