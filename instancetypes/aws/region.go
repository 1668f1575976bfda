package aws

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// DefaultRegion is the region of the built-in data.
const DefaultRegion = "us-east-1"

// regionZones describes the zones of a region: count of them, named
// <region>a, <region>b, ..., with zone IDs <idPrefix>-az1, -az2, ...
type regionZones struct {
	count    int
	idPrefix string
}

// zonesOf returns the zones of a region of the price table. The zone to
// zone-ID pairing is per AWS account; like the data's (see data/README.md),
// it is modeled in order.
func zonesOf(region string) (regionZones, bool) {
	switch region {
	case "us-east-1":
		return regionZones{count: 6, idPrefix: "use1"}, true
	case "us-gov-east-1":
		return regionZones{count: 3, idPrefix: "usge1"}, true
	case "us-gov-west-1":
		return regionZones{count: 3, idPrefix: "usgw1"}, true
	}
	return regionZones{}, false
}

func (z regionZones) zone(region string, i int) string { return region + string(rune('a'+i)) }
func (z regionZones) zoneID(i int) string              { return z.idPrefix + "-az" + strconv.Itoa(i+1) }

// Regions returns the regions the built-in catalog can be priced for (the
// regions of its on-demand price table), sorted.
func Regions() []string {
	prices, err := onDemandPrices()
	if err != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(prices))
}

// Zones returns the zone names of a region of the built-in catalog, in
// order (us-east-1: us-east-1a..us-east-1f; the GovCloud regions: a..c).
func Zones(region string) ([]string, error) {
	z, ok := zonesOf(region)
	if !ok {
		return nil, unknownRegionError(region)
	}
	out := make([]string, z.count)
	for i := range out {
		out[i] = z.zone(region, i)
	}
	return out, nil
}

func unknownRegionError(region string) error {
	return fmt.Errorf("unknown AWS region %q: the built-in catalog knows %v", region, Regions())
}

// onDemandPrices reads the embedded price table: region → instance type →
// on-demand price (USD per hour).
func onDemandPrices() (map[string]map[string]float64, error) {
	b, err := readData(pricesFile)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]float64{}
	for n, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte{'\n'}) {
		if n == 0 {
			if string(line) != "region,instanceType,pricePerHour" {
				return nil, fmt.Errorf("built-in AWS catalog: %s: unexpected header %q", pricesFile, line)
			}
			continue
		}
		fields := bytes.Split(line, []byte{','})
		if len(fields) != 3 {
			return nil, fmt.Errorf("built-in AWS catalog: %s:%d: want 3 fields, got %d", pricesFile, n+1, len(fields))
		}
		price, err := strconv.ParseFloat(string(fields[2]), 64)
		if err != nil {
			return nil, fmt.Errorf("built-in AWS catalog: %s:%d: %w", pricesFile, n+1, err)
		}
		region := string(fields[0])
		if out[region] == nil {
			out[region] = map[string]float64{}
		}
		out[region][string(fields[1])] = price
	}
	return out, nil
}
