package aws_test

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/requirements"
)

// rawType is the data file read with encoding/json, independently of
// instancetypes.Decode, so tests can compute expectations from it.
type rawType struct {
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels"`
	Capacity  map[string]string `json:"capacity"`
	Offerings []struct {
		Zone         string  `json:"zone"`
		CapacityType string  `json:"capacityType"`
		Price        float64 `json:"price"`
	} `json:"offerings"`
}

func rawTypes(t *testing.T) []rawType {
	t.Helper()
	b, err := os.ReadFile("data/us-east-1.json")
	require.NoError(t, err)
	var doc struct {
		InstanceTypes []rawType `json:"instanceTypes"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	return doc.InstanceTypes
}

// rawPrices reads data/prices-on-demand.csv: region → type → price.
func rawPrices(t *testing.T) map[string]map[string]float64 {
	t.Helper()
	b, err := os.ReadFile("data/prices-on-demand.csv")
	require.NoError(t, err)
	out := map[string]map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Split(line, ",")
		p, err := strconv.ParseFloat(f[2], 64)
		require.NoError(t, err)
		if out[f[0]] == nil {
			out[f[0]] = map[string]float64{}
		}
		out[f[0]][f[1]] = p
	}
	return out
}

func load(t *testing.T, opts ...aws.Option) instancetypes.Catalog {
	t.Helper()
	c, err := aws.Catalog(opts...)
	require.NoError(t, err)
	return c
}

func get(t *testing.T, c instancetypes.Catalog, name string) *instancetypes.InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	require.True(t, ok, "no type %s", name)
	return it
}

func names(types []*instancetypes.InstanceType) []string {
	out := []string{}
	for _, it := range types {
		out = append(out, it.Name)
	}
	return out
}

func mustReq(t *testing.T, key string, op requirements.Operator, values ...string) requirements.Requirement {
	t.Helper()
	r, err := requirements.New(key, op, values...)
	require.NoError(t, err)
	return r
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	c := load(t)
	raw := rawTypes(t)
	var want []string
	for _, r := range raw {
		want = append(want, r.Name)
	}
	got := names(c.Types())
	if diff := gocmp.Diff(1345, len(got)); diff != "" {
		t.Errorf("Len (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("types in file order (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff("us-east-1", c.Region()); diff != "" {
		t.Errorf("Region() (-want +got):\n%s", diff)
	}
	require.Contains(t, c.Source(), "karpenter-provider-aws@1d927085")
}

// TestFacts checks real facts of the data (see data/README.md).
func TestFacts(t *testing.T) {
	t.Parallel()
	c := load(t)
	tests := []struct {
		name            string
		wantAllocatable map[corev1.ResourceName]string
		wantCapacity    map[corev1.ResourceName]string
		wantLabels      map[string]string
	}{
		{
			name: "m5.large",
			wantAllocatable: map[corev1.ResourceName]string{
				"cpu": "1930m", "memory": "6903Mi", "pods": "29", "ephemeral-storage": "17Gi", "vpc.amazonaws.com/pod-eni": "9",
			},
			wantLabels: map[string]string{
				aws.LabelInstanceFamily: "m5", aws.LabelInstanceCategory: "m", aws.LabelInstanceGeneration: "5",
				aws.LabelInstanceCPU: "2", aws.LabelInstanceMemory: "8192", aws.LabelInstancePods: "29",
				requirements.LabelArch: "amd64", requirements.LabelTopologyRegion: "us-east-1",
				aws.LabelInstanceLocalNVMe: "", aws.LabelInstanceGPUCount: "",
			},
		},
		{
			name:            "g5.xlarge",
			wantAllocatable: map[corev1.ResourceName]string{"cpu": "3920m", "nvidia.com/gpu": "1"},
			wantCapacity:    map[corev1.ResourceName]string{"nvidia.com/gpu": "1", "memory": "15155Mi", "pods": "58"},
			wantLabels: map[string]string{
				aws.LabelInstanceGPUName: "a10g", aws.LabelInstanceGPUManufacturer: "nvidia", aws.LabelInstanceGPUCount: "1",
				aws.LabelInstanceGPUMemory: "22888", aws.LabelInstanceLocalNVMe: "250", aws.LabelInstancePods: "58",
			},
		},
		{
			name:            "m7g.large",
			wantAllocatable: map[corev1.ResourceName]string{"cpu": "1930m", "memory": "6844Mi"}, // 7518Mi after the 64Mi Graviton CMA
			wantLabels:      map[string]string{requirements.LabelArch: "arm64", aws.LabelInstanceCPUManufacturer: "aws"},
		},
		{
			name:       "m5d.large",
			wantLabels: map[string]string{aws.LabelInstanceLocalNVMe: "75", requirements.LabelArch: "amd64"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			it := get(t, c, tc.name)
			// Only the listed resources and labels are compared.
			var alloc, capacity map[corev1.ResourceName]string
			var labels map[string]string
			for name := range tc.wantAllocatable {
				if alloc == nil {
					alloc = map[corev1.ResourceName]string{}
				}
				if q, ok := it.Allocatable()[name]; ok {
					alloc[name] = q.String()
				}
			}
			for name := range tc.wantCapacity {
				if capacity == nil {
					capacity = map[corev1.ResourceName]string{}
				}
				if q, ok := it.Capacity[name]; ok {
					capacity[name] = q.String()
				}
			}
			for k := range tc.wantLabels {
				if labels == nil {
					labels = map[string]string{}
				}
				labels[k] = it.Labels[k] // "" when absent
			}
			if diff := gocmp.Diff(tc.wantAllocatable, alloc); diff != "" {
				t.Errorf("allocatable (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tc.wantCapacity, capacity); diff != "" {
				t.Errorf("capacity (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tc.wantLabels, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOnDemandPrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		region string
		want   float64
		// spot = on-demand × 0.367, the m5 family's factor (README), rounded
		// to 6 decimals; 0.035232 in us-east-1 is the data's own.
		wantSpot float64
	}{
		{region: "us-east-1", want: 0.096, wantSpot: 0.035232},     // prices-on-demand.csv: us-east-1,m5.large,0.096
		{region: "us-gov-east-1", want: 0.121, wantSpot: 0.044407}, // prices-on-demand.csv: us-gov-east-1,m5.large,0.121
		{region: "us-gov-west-1", want: 0.121, wantSpot: 0.044407}, // prices-on-demand.csv: us-gov-west-1,m5.large,0.121
	}
	for _, tc := range tests {
		t.Run(tc.region, func(t *testing.T) {
			t.Parallel()
			it := get(t, load(t, aws.WithRegion(tc.region)), "m5.large")
			prices := map[string]float64{}
			for _, o := range it.Offerings {
				prices[o.Zone+" "+o.CapacityType] = o.Price
			}
			want := map[string]float64{}
			zones, err := aws.Zones(tc.region)
			require.NoError(t, err)
			for _, z := range zones {
				want[z+" on-demand"] = tc.want
				want[z+" spot"] = tc.wantSpot
			}
			if diff := gocmp.Diff(want, prices); diff != "" {
				t.Errorf("m5.large prices (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterMatchesData compares Filter with a scan of the raw JSON labels.
func TestFilterMatchesData(t *testing.T) {
	t.Parallel()
	c := load(t)
	raw := rawTypes(t)
	tests := []struct {
		key       string
		threshold int64
		wantCount int // counted with a one-off script over the JSON
	}{
		{key: aws.LabelInstanceLocalNVMe, threshold: 99, wantCount: 494},
		{key: aws.LabelInstanceNetworkBandwidth, threshold: 49999, wantCount: 395},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			var want []string
			for _, r := range raw {
				v, ok := r.Labels[tc.key]
				if !ok {
					continue
				}
				n, err := strconv.ParseInt(v, 10, 64)
				require.NoError(t, err)
				if n > tc.threshold {
					want = append(want, r.Name)
				}
			}
			require.Len(t, want, tc.wantCount)
			got := names(c.Filter(requirements.NewRequirements(mustReq(t, tc.key, requirements.OpGt, strconv.FormatInt(tc.threshold, 10)))))
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("Filter(%s Gt %d) (-want +got):\n%s", tc.key, tc.threshold, diff)
			}
		})
	}
}

func TestWithZones(t *testing.T) {
	t.Parallel()
	c := load(t, aws.WithZones("us-east-1c", "us-east-1a"))
	require.Equal(t, 1345, c.Len())
	zones := map[string]int{}
	for _, it := range c.Types() {
		for _, o := range it.Offerings {
			zones[o.Zone]++
		}
	}
	if diff := gocmp.Diff([]string{"us-east-1a", "us-east-1c"}, slices.Sorted(maps.Keys(zones))); diff != "" {
		t.Errorf("zones offered (-want +got):\n%s", diff)
	}
	got := get(t, c, "m5.large").Requirements().Get(requirements.LabelTopologyZone)
	if diff := gocmp.Diff(requirements.In(requirements.LabelTopologyZone, "us-east-1a", "us-east-1c").String(), got.String()); diff != "" {
		t.Errorf("m5.large zone requirement (-want +got):\n%s", diff)
	}
}

func TestWithoutSpot(t *testing.T) {
	t.Parallel()
	c := load(t, aws.WithoutSpot())
	require.Equal(t, 1345, c.Len())
	capacityTypes := map[string]int{}
	for _, it := range c.Types() {
		for _, o := range it.Offerings {
			capacityTypes[o.CapacityType]++
		}
	}
	if diff := gocmp.Diff(map[string]int{"on-demand": 1345 * 6}, capacityTypes); diff != "" {
		t.Errorf("offerings per capacity type (-want +got):\n%s", diff)
	}
	if got := c.Filter(requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot))); len(got) != 0 {
		t.Errorf("Filter(spot) = %d types, want none", len(got))
	}
}

func TestWithSpotPriceFactor(t *testing.T) {
	t.Parallel()
	it := get(t, load(t, aws.WithSpotPriceFactor(0.5), aws.WithRegion("us-gov-west-1")), "m5.large")
	o, ok := it.CheapestOffering(requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot)))
	require.True(t, ok)
	if diff := gocmp.Diff(0.0605, o.Price); diff != "" { // 0.121 × 0.5
		t.Errorf("spot price (-want +got):\n%s", diff)
	}
}

func TestWithUnavailable(t *testing.T) {
	t.Parallel()
	spotIn := func(zone string) requirements.Requirements {
		return requirements.NewRequirements(
			requirements.In(requirements.LabelTopologyZone, zone),
			requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot))
	}
	base := get(t, load(t), "m5.large")
	_, ok := base.CheapestOffering(spotIn("us-east-1a"))
	require.True(t, ok, "precondition: m5.large has spot in us-east-1a")

	c := load(t,
		aws.WithUnavailable(aws.OfferingKey{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: requirements.CapacityTypeSpot}),
		aws.WithUnavailableFunc(func(k aws.OfferingKey) bool {
			return strings.HasPrefix(k.InstanceType, "c5.") && k.CapacityType == requirements.CapacityTypeSpot
		}))
	it := get(t, c, "m5.large")
	if _, ok := it.CheapestOffering(spotIn("us-east-1a")); ok {
		t.Errorf("m5.large spot in us-east-1a is still available")
	}
	if _, ok := it.CheapestOffering(spotIn("us-east-1b")); !ok {
		t.Errorf("m5.large spot in us-east-1b became unavailable")
	}
	if diff := gocmp.Diff(len(base.Offerings), len(it.Offerings)); diff != "" {
		t.Errorf("unavailable offerings must stay in the catalog (-want +got):\n%s", diff)
	}
	c5Spot := c.Filter(requirements.NewRequirements(
		requirements.In(aws.LabelInstanceFamily, "c5"),
		requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot)))
	if diff := gocmp.Diff([]string{}, names(c5Spot)); diff != "" {
		t.Errorf("c5 types with spot (-want +got):\n%s", diff)
	}
}

func TestWithMaxPods(t *testing.T) {
	t.Parallel()
	const n = 110
	base := load(t)
	c := load(t, aws.WithMaxPods(n))
	memMi := func(q resource.Quantity) int64 { return q.Value() >> 20 }
	var dropped []string
	for _, b := range base.Types() {
		pods := b.Capacity[corev1.ResourcePods]
		// Independently: the type keeps room for 11Mi × n + 255Mi
		// kube-reserved plus the 100Mi eviction threshold.
		fits := memMi(b.Capacity[corev1.ResourceMemory]) >= 11*n+255+100
		it, ok := c.Get(b.Name)
		if !fits {
			if ok {
				t.Errorf("%s: kept, but its memory cannot hold the reservation for %d pods", b.Name, n)
			}
			dropped = append(dropped, b.Name)
			continue
		}
		require.True(t, ok, "%s dropped", b.Name)
		got := []int64{
			it.Capacity.Pods().Value(),
			memMi(it.Allocatable()[corev1.ResourceMemory]) - memMi(b.Allocatable()[corev1.ResourceMemory]),
		}
		want := []int64{n, -11 * (n - pods.Value())}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("%s: pods, allocatable memory change in Mi (-want +got):\n%s", b.Name, diff)
		}
		if it.Labels[aws.LabelInstancePods] != "110" {
			t.Errorf("%s: label %s = %q, want 110", b.Name, aws.LabelInstancePods, it.Labels[aws.LabelInstancePods])
		}
	}
	require.NotEmpty(t, dropped, "precondition: some small types cannot hold 110 pods")
	if diff := gocmp.Diff(base.Len()-len(dropped), c.Len()); diff != "" {
		t.Errorf("Len (-want +got):\n%s", diff)
	}
	got := get(t, c, "m5.large").Allocatable()[corev1.ResourceMemory]
	if diff := gocmp.Diff("6012Mi", got.String()); diff != "" { // 6903Mi − 11Mi × (110 − 29)
		t.Errorf("m5.large allocatable memory (-want +got):\n%s", diff)
	}
}

func TestWithRegion(t *testing.T) {
	t.Parallel()
	prices := rawPrices(t)
	raw := rawTypes(t)
	tests := []struct {
		region      string
		wantZones   []string
		wantZoneIDs []string
	}{
		{region: "us-gov-east-1", wantZones: []string{"us-gov-east-1a", "us-gov-east-1b", "us-gov-east-1c"}, wantZoneIDs: []string{"usge1-az1", "usge1-az2", "usge1-az3"}},
		{region: "us-gov-west-1", wantZones: []string{"us-gov-west-1a", "us-gov-west-1b", "us-gov-west-1c"}, wantZoneIDs: []string{"usgw1-az1", "usgw1-az2", "usgw1-az3"}},
	}
	for _, tc := range tests {
		t.Run(tc.region, func(t *testing.T) {
			t.Parallel()
			c := load(t, aws.WithRegion(tc.region))
			var want []string
			for _, r := range raw {
				if _, ok := prices[tc.region][r.Name]; ok {
					want = append(want, r.Name)
				}
			}
			if diff := gocmp.Diff(want, names(c.Types())); diff != "" {
				t.Errorf("types (those priced in the region, in data order) (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tc.region, c.Region()); diff != "" {
				t.Errorf("Region() (-want +got):\n%s", diff)
			}
			for _, it := range c.Types() {
				zones, zoneIDs := map[string]bool{}, map[string]bool{}
				for _, o := range it.Offerings {
					zones[o.Zone], zoneIDs[o.ZoneID] = true, true
					if o.CapacityType == requirements.CapacityTypeOnDemand && o.Price != prices[tc.region][it.Name] {
						t.Errorf("%s %s: on-demand price %v, want %v", it.Name, o.Zone, o.Price, prices[tc.region][it.Name])
					}
				}
				got := []any{slices.Sorted(maps.Keys(zones)), slices.Sorted(maps.Keys(zoneIDs)), it.Labels[requirements.LabelTopologyRegion]}
				if diff := gocmp.Diff([]any{tc.wantZones, tc.wantZoneIDs, tc.region}, got); diff != "" {
					t.Fatalf("%s: zones, zone IDs, region label (-want +got):\n%s", it.Name, diff)
				}
			}
		})
	}
}

// TestSpotRatioCarriesOver checks the gov spot price against the us-east-1
// ratio of every type with spot: equal up to the 6-decimal rounding of
// both prices.
func TestSpotRatioCarriesOver(t *testing.T) {
	t.Parallel()
	east := load(t)
	gov := load(t, aws.WithRegion("us-gov-east-1"))
	spotReq := requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeSpot))
	odReq := requirements.NewRequirements(requirements.In(requirements.LabelCapacityType, requirements.CapacityTypeOnDemand))
	checked := 0
	for _, it := range gov.Types() {
		eastType := get(t, east, it.Name)
		eastSpot, ok := eastType.CheapestOffering(spotReq)
		if !ok {
			continue
		}
		eastOD, _ := eastType.CheapestOffering(odReq)
		govSpot, ok := it.CheapestOffering(spotReq)
		require.True(t, ok, "%s: no spot in the gov region", it.Name)
		govOD, _ := it.CheapestOffering(odReq)
		want := govOD.Price * eastSpot.Price / eastOD.Price
		// 5e-7 from rounding the gov price, plus the us-east-1 rounding
		// error of the ratio scaled to the gov price.
		tolerance := 5e-7 + 5e-7*govOD.Price/eastOD.Price + 1e-12
		if math.Abs(govSpot.Price-want) > tolerance {
			t.Errorf("%s: gov spot %v, want %v ± %v", it.Name, govSpot.Price, want, tolerance)
		}
		checked++
	}
	require.Greater(t, checked, 400)
}

func TestInstancePodsLabel(t *testing.T) {
	t.Parallel()
	for _, it := range load(t).Types() {
		if got, want := it.Labels[aws.LabelInstancePods], it.Capacity.Pods().String(); got != want {
			t.Errorf("%s: label %s = %q, want %q (capacity pods)", it.Name, aws.LabelInstancePods, got, want)
		}
	}
}

func TestCatalogIsFresh(t *testing.T) {
	t.Parallel()
	a, b := load(t), load(t)
	ea, err := instancetypes.Encode(a)
	require.NoError(t, err)
	eb, err := instancetypes.Encode(b)
	require.NoError(t, err)
	if diff := gocmp.Diff(string(ea), string(eb)); diff != "" {
		t.Errorf("two loads differ (-first +second):\n%s", diff)
	}
	get(t, a, "m5.large").Labels["example.com/x"] = "changed"
	get(t, a, "m5.large").Offerings[0].Price = 1000
	it := get(t, b, "m5.large")
	if _, ok := it.Labels["example.com/x"]; ok || it.Offerings[0].Price == 1000 {
		t.Errorf("two calls to Catalog share data")
	}
}

func TestRegions(t *testing.T) {
	t.Parallel()
	var fromCSV []string
	for r := range rawPrices(t) {
		fromCSV = append(fromCSV, r)
	}
	slices.Sort(fromCSV)
	if diff := gocmp.Diff([]string{"us-east-1", "us-gov-east-1", "us-gov-west-1"}, aws.Regions()); diff != "" {
		t.Errorf("Regions() (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(fromCSV, aws.Regions()); diff != "" {
		t.Errorf("Regions() vs the CSV (-want +got):\n%s", diff)
	}
	// TestOnDemandPrice loads the catalog in each region.
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []aws.Option
		want []string // "Type Field"
		// wantText must appear in the error (the known values listed)
		wantText string
	}{
		{
			name:     "unknown region lists the known ones",
			opts:     []aws.Option{aws.WithRegion("eu-west-1")},
			want:     []string{"FieldValueNotSupported WithRegion"},
			wantText: `supported values: "us-east-1", "us-gov-east-1", "us-gov-west-1"`,
		},
		{
			name:     "zone of another region",
			opts:     []aws.Option{aws.WithRegion("us-gov-east-1"), aws.WithZones("us-gov-east-1a", "us-east-1a")},
			want:     []string{"FieldValueNotSupported WithZones[1]"},
			wantText: `"us-gov-east-1a", "us-gov-east-1b", "us-gov-east-1c"`,
		},
		{
			name: "a zone the gov region lacks",
			opts: []aws.Option{aws.WithRegion("us-gov-west-1"), aws.WithZones("us-gov-west-1d")},
			want: []string{"FieldValueNotSupported WithZones[0]"},
		},
		{name: "no zones", opts: []aws.Option{aws.WithZones()}, want: []string{"FieldValueRequired WithZones"}},
		{name: "spot factor 0", opts: []aws.Option{aws.WithSpotPriceFactor(0)}, want: []string{"FieldValueInvalid WithSpotPriceFactor"}},
		{name: "spot factor above 1", opts: []aws.Option{aws.WithSpotPriceFactor(1.5)}, want: []string{"FieldValueInvalid WithSpotPriceFactor"}},
		{name: "spot factor NaN", opts: []aws.Option{aws.WithSpotPriceFactor(math.NaN())}, want: []string{"FieldValueInvalid WithSpotPriceFactor"}},
		{name: "max pods 0", opts: []aws.Option{aws.WithMaxPods(0)}, want: []string{"FieldValueInvalid WithMaxPods"}},
		{name: "nil unavailable func", opts: []aws.Option{aws.WithUnavailableFunc(nil)}, want: []string{"FieldValueRequired WithUnavailableFunc[0]"}},
		{
			name: "every field of an unavailable key is checked",
			opts: []aws.Option{aws.WithUnavailable(
				aws.OfferingKey{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot"},
				aws.OfferingKey{InstanceType: "m5.lrage", Zone: "us-east-1z", CapacityType: "Spot"},
			)},
			want: []string{
				"FieldValueNotFound WithUnavailable[1].instanceType",
				"FieldValueNotSupported WithUnavailable[1].zone",
				"FieldValueNotSupported WithUnavailable[1].capacityType",
			},
		},
		{
			name: "errors of several options together",
			opts: []aws.Option{aws.WithMaxPods(-1), aws.WithSpotPriceFactor(-1), aws.WithZones("x"), aws.WithUnavailable(aws.OfferingKey{InstanceType: "x", Zone: "us-east-1a", CapacityType: "spot"})},
			want: []string{
				"FieldValueNotSupported WithZones[0]", "FieldValueInvalid WithSpotPriceFactor", "FieldValueInvalid WithMaxPods",
				"FieldValueNotFound WithUnavailable[0].instanceType",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := aws.Catalog(tc.opts...)
			require.Error(t, err)
			if diff := gocmp.Diff(tc.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nerror: %v", diff, err)
			}
			require.Contains(t, err.Error(), tc.wantText)
		})
	}
}
