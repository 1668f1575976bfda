package aws

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/big"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// readmeFactor is the spot factor of data/README.md: round(0.30 + 0.15 ×
// u, 4), u the first 8 bytes of sha256("spot-factor:" + family) as a
// big-endian integer over 2^64.
func readmeFactor(family string) float64 {
	sum := sha256.Sum256([]byte("spot-factor:" + family))
	u, _ := new(big.Float).SetPrec(200).Quo(
		new(big.Float).SetPrec(200).SetUint64(binary.BigEndian.Uint64(sum[:8])),
		new(big.Float).SetPrec(200).SetFloat64(math.Exp2(64))).Float64()
	return round(0.30+0.15*u, 4)
}

// TestSpotFactors checks that the factors recovered from the data are the
// README's model, and reproduce every spot price of the data exactly.
func TestSpotFactors(t *testing.T) {
	t.Parallel()
	raw, err := readData(catalogFile)
	require.NoError(t, err)
	// The data as shipped: decode without the package's options.
	c, err := instancetypes.Decode(raw)
	require.NoError(t, err)
	types := make([]instancetypes.InstanceType, 0, c.Len())
	for _, it := range c.Types() {
		types = append(types, *it)
	}
	factors := spotFactors(types)
	require.Len(t, factors, 169)
	got, want := map[string]float64{}, map[string]float64{}
	for family, f := range factors {
		got[family], want[family] = f, readmeFactor(family)
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("factors (-README +recovered):\n%s", diff)
	}
	if diff := gocmp.Diff([]float64{0.367, 0.3545, 0.3238, 0.3745, 0.445},
		[]float64{factors["m5"], factors["c5"], factors["t3"], factors["m7g"], factors["p5"]}); diff != "" {
		t.Errorf("README's example factors (-want +got):\n%s", diff)
	}
	for i := range types {
		it := &types[i]
		od, _ := offeringPrice(it, requirements.CapacityTypeOnDemand)
		for _, o := range it.Offerings {
			if o.CapacityType != requirements.CapacityTypeSpot {
				continue
			}
			if want := round(od*factors[it.Labels[LabelInstanceFamily]], 6); o.Price != want {
				t.Errorf("%s %s: spot %v, want round(%v × factor, 6) = %v", it.Name, o.Zone, o.Price, od, want)
			}
		}
	}
}

func TestZoneTableCoversPriceTable(t *testing.T) {
	t.Parallel()
	prices, err := onDemandPrices()
	require.NoError(t, err)
	for region := range prices {
		if _, ok := zonesOf(region); !ok {
			t.Errorf("region %s of the price table has no zone table entry", region)
		}
	}
	for _, region := range []string{"us-east-1", "us-gov-east-1", "us-gov-west-1"} {
		if _, ok := prices[region]; !ok {
			t.Errorf("zone table region %s has no prices", region)
		}
	}
}
