package instancetypes_test

import (
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
)

// m5Large is one valid instance type of the catalog format.
const m5Large = `{"name":"m5.large",` +
	`"labels":{"kubernetes.io/arch":"amd64","karpenter.k8s.aws/instance-cpu":"2"},` +
	`"capacity":{"cpu":"2","memory":"7577Mi","pods":"29"},` +
	`"overhead":{"kubeReserved":{"cpu":"70m","memory":"574Mi"},"systemReserved":{},"evictionThreshold":{"memory":"100Mi"}},` +
	`"offerings":[{"zone":"us-east-1a","zoneID":"use1-az1","capacityType":"on-demand","price":0.096,"available":true},` +
	`{"zone":"us-east-1a","zoneID":"use1-az1","capacityType":"spot","price":0.035,"available":true}]}`

func document(types ...string) string {
	return `{"region":"us-east-1","source":"test","instanceTypes":[` + strings.Join(types, ",\n") + "]}"
}

// edit returns s with old replaced by new once; old must occur.
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	require.Contains(t, s, old)
	return strings.Replace(s, old, new, 1)
}

// fieldErrors lists "Type Field" of each error of an aggregate of field
// errors: tests assert the kind and the path, not the prose.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	var agg utilerrors.Aggregate
	require.ErrorAs(t, err, &agg)
	var out []string
	for _, e := range agg.Errors() {
		var fe *field.Error
		require.ErrorAs(t, e, &fe)
		out = append(out, string(fe.Type)+" "+fe.Field)
	}
	return out
}

func TestDecode(t *testing.T) {
	t.Parallel()
	c, err := instancetypes.Decode([]byte(document(m5Large)))
	require.NoError(t, err)
	it := get(t, c, "m5.large")
	got := map[string]any{
		"region":      c.Region(),
		"source":      c.Source(),
		"labels":      it.Labels,
		"allocatable": it.Allocatable(),
		"offerings":   it.Offerings,
	}
	want := map[string]any{
		"region":      "us-east-1",
		"source":      "test",
		"labels":      map[string]string{"kubernetes.io/arch": "amd64", "karpenter.k8s.aws/instance-cpu": "2"},
		"allocatable": quantities("cpu", "1930m", "memory", "6903Mi", "pods", "29"),
		"offerings": []instancetypes.Offering{ // cheapest first
			{Zone: zoneA, ZoneID: "use1-az1", CapacityType: spot, Price: 0.035},
			{Zone: zoneA, ZoneID: "use1-az1", CapacityType: onDemand, Price: 0.096},
		},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("Decode() (-want +got):\n%s", diff)
	}
}

func TestDecodeOptionsOverrideFile(t *testing.T) {
	t.Parallel()
	c, err := instancetypes.Decode([]byte(document(m5Large)), instancetypes.WithRegion("eu-west-1"),
		instancetypes.WithBaseSchema(requirements.DefaultSchema().WithWellKnown("example.com/x")))
	require.NoError(t, err)
	got := []any{c.Region(), c.Source(), c.Schema().IsWellKnown("example.com/x")}
	if diff := gocmp.Diff([]any{"eu-west-1", "test", true}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDecodeLeniency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		typ     string
		wantCPU string
		wantOff instancetypes.Offering
	}{
		{
			name:    "available absent means true",
			typ:     `{"name":"a","capacity":{"cpu":"2","memory":"4Gi"},"offerings":[{"zone":"z","capacityType":"spot","price":0.5}]}`,
			wantCPU: "2",
			wantOff: instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 0.5},
		},
		{
			name:    "a quantity may be a JSON number, as resource.Quantity's own decoding allows",
			typ:     `{"name":"a","capacity":{"cpu":2.5,"memory":4294967296},"offerings":[{"zone":"z","capacityType":"spot","price":1e-1,"available":false}]}`,
			wantCPU: "2500m",
			wantOff: instancetypes.Offering{Zone: "z", CapacityType: spot, Price: 0.1, Unavailable: true},
		},
		{
			name: "null reads as absent; escapes are decoded",
			typ: `{"name":"\u0061","labels":null,"overhead":null,"capacity":{"cpu":"1","memory":"1Gi"},` +
				`"offerings":[{"zone":"\u007a","zoneID":null,"capacityType":"on-demand","price":2,"available":null}]}`,
			wantCPU: "1",
			wantOff: instancetypes.Offering{Zone: "z", CapacityType: onDemand, Price: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := instancetypes.Decode([]byte(document(tc.typ)))
			require.NoError(t, err)
			it := get(t, c, "a")
			got := []any{it.Capacity.Cpu().String(), it.Offerings[0]}
			if diff := gocmp.Diff([]any{tc.wantCPU, tc.wantOff}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeErrors has one case per error Decode reports; each names the
// instance type and the field.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	const it = "instanceTypes[m5.large]"
	tests := []struct {
		name string
		doc  func(t *testing.T) string
		want []string
	}{
		{
			name: "duplicate names",
			doc:  func(t *testing.T) string { return document(m5Large, m5Large) },
			want: []string{"FieldValueDuplicate " + it + ".name"},
		},
		{
			name: "unparsable quantity",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"cpu":"2"`, `"cpu":"2x"`)) },
			want: []string{"FieldValueInvalid " + it + ".capacity[cpu]"},
		},
		{
			name: "unparsable overhead quantity",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"cpu":"70m"`, `"cpu":"seventy"`)) },
			want: []string{"FieldValueInvalid " + it + ".overhead.kubeReserved[cpu]"},
		},
		{
			name: "a quantity of the wrong JSON type",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"pods":"29"`, `"pods":[29]`)) },
			want: []string{"FieldValueInvalid " + it + ".capacity[pods]"},
		},
		{
			name: "negative capacity",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"pods":"29"`, `"pods":"-1"`)) },
			want: []string{"FieldValueInvalid " + it + ".capacity[pods]"},
		},
		{
			name: "negative price",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"price":0.096`, `"price":-0.096`)) },
			want: []string{"FieldValueInvalid " + it + ".offerings[0].price"},
		},
		{
			name: "price as a string",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"price":0.096`, `"price":"0.096"`)) },
			want: []string{"FieldValueInvalid " + it + ".offerings[0].price"},
		},
		{
			name: "price out of range",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"price":0.096`, `"price":1e999`)) },
			want: []string{"FieldValueInvalid " + it + ".offerings[0].price"},
		},
		{
			name: "missing price",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"price":0.096,`, ``)) },
			want: []string{"FieldValueRequired " + it + ".offerings[0].price"},
		},
		{
			name: "offering without zone",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"zone":"us-east-1a",`, ``)) },
			want: []string{"FieldValueRequired " + it + ".offerings[0].zone"},
		},
		{
			name: "offering without capacity type",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"capacityType":"on-demand",`, ``)) },
			want: []string{"FieldValueRequired " + it + ".offerings[0].capacityType"},
		},
		{
			name: "unknown capacity type",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"on-demand"`, `"ondemand"`)) },
			want: []string{"FieldValueNotSupported " + it + ".offerings[0].capacityType"},
		},
		{
			name: "overhead larger than capacity",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"memory":"574Mi"`, `"memory":"7500Mi"`)) },
			want: []string{"FieldValueInvalid " + it + ".overhead[memory]"},
		},
		{
			name: "overhead of a resource without capacity",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"systemReserved":{}`, `"systemReserved":{"ephemeral-storage":"1Gi"}`))
			},
			want: []string{"FieldValueInvalid " + it + ".overhead[ephemeral-storage]"},
		},
		{
			name: "reserved offering without reservation ID",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"capacityType":"spot","price":0.035,`, `"capacityType":"reserved","price":0.035,"reservationCapacity":2,`))
			},
			want: []string{"FieldValueRequired " + it + ".offerings[1].reservationID"},
		},
		{
			name: "reserved offering without reservation capacity",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"capacityType":"spot","price":0.035,`, `"capacityType":"reserved","price":0.035,"reservationID":"cr-1",`))
			},
			want: []string{"FieldValueRequired " + it + ".offerings[1].reservationCapacity"},
		},
		{
			name: "reservation ID on a spot offering",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"capacityType":"spot","price":0.035,`, `"capacityType":"spot","price":0.035,"reservationID":"cr-1",`))
			},
			want: []string{"FieldValueInvalid " + it + ".offerings[1].reservationID"},
		},
		{
			name: "reservation capacity not an integer",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"capacityType":"spot","price":0.035,`, `"capacityType":"reserved","price":0.035,"reservationID":"cr-1","reservationCapacity":1.5,`))
			},
			want: []string{"FieldValueInvalid " + it + ".offerings[1].reservationCapacity"},
		},
		{
			name: "two offerings with the same zone and capacity type",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"capacityType":"spot"`, `"capacityType":"on-demand"`))
			},
			want: []string{"FieldValueDuplicate " + it + ".offerings[1]"},
		},
		{
			name: "zone as a label",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"kubernetes.io/arch":"amd64"`, `"kubernetes.io/arch":"amd64","topology.kubernetes.io/zone":"us-east-1a"`))
			},
			want: []string{"FieldValueForbidden " + it + ".labels[topology.kubernetes.io/zone]"},
		},
		{
			name: "invalid label value",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"amd64"`, `"amd 64"`)) },
			want: []string{"FieldValueInvalid " + it + ".labels[kubernetes.io/arch]"},
		},
		{
			name: "invalid label key",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"kubernetes.io/arch"`, `"kubernetes.io/arch/x"`))
			},
			want: []string{"FieldValueInvalid " + it + ".labels[kubernetes.io/arch/x]"},
		},
		{
			name: "label value of the wrong JSON type",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"karpenter.k8s.aws/instance-cpu":"2"`, `"karpenter.k8s.aws/instance-cpu":2`))
			},
			want: []string{"FieldValueInvalid " + it + ".labels[karpenter.k8s.aws/instance-cpu]"},
		},
		{
			name: "a label repeated in the object",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `"kubernetes.io/arch":"amd64"`, `"kubernetes.io/arch":"amd64","kubernetes.io/arch":"arm64"`))
			},
			want: []string{"FieldValueDuplicate " + it + ".labels[kubernetes.io/arch]"},
		},
		{
			name: "a field repeated in the object",
			doc: func(t *testing.T) string {
				return document(edit(t, m5Large, `{"name":"m5.large",`, `{"name":"m5.large","name":"m5.xlarge",`))
			},
			want: []string{"FieldValueDuplicate " + it + ".name"},
		},
		{
			name: "unknown fields at every level",
			doc: func(t *testing.T) string {
				s := edit(t, m5Large, `"labels":`, `"labelz":{},"labels":`)
				s = edit(t, s, `"systemReserved"`, `"systemReserve":{},"systemReserved"`)
				s = edit(t, s, `"zoneID"`, `"zoneid":"x","zoneID"`)
				return edit(t, document(s), `"source"`, `"sauce":1,"source"`)
			},
			want: []string{
				"FieldValueInvalid sauce",
				"FieldValueInvalid " + it + ".labelz",
				"FieldValueInvalid " + it + ".overhead.systemReserve",
				"FieldValueInvalid " + it + ".offerings[0].zoneid",
			},
		},
		{
			name: "an error before the name is known still names the type",
			doc: func(t *testing.T) string {
				return document(`{"capacity":{"cpu":"2x","memory":"1Gi"},"offerings":[],"name":"late"}`)
			},
			want: []string{"FieldValueInvalid instanceTypes[late].capacity[cpu]", "FieldValueRequired instanceTypes[late].offerings"},
		},
		{
			name: "a type without name is named by index",
			doc:  func(t *testing.T) string { return document(m5Large, `{"capacity":{"cpu":"2x"}}`) },
			want: []string{"FieldValueInvalid instanceTypes[1].capacity[cpu]", "FieldValueRequired instanceTypes[1].name",
				"FieldValueRequired instanceTypes[1].capacity[memory]", "FieldValueRequired instanceTypes[1].offerings"},
		},
		{
			name: "an instance type that is not an object",
			doc:  func(t *testing.T) string { return document(m5Large, `"m5.xlarge"`) },
			want: []string{"FieldValueInvalid instanceTypes[1]"},
		},
		{
			name: "an offering that is not an object",
			doc:  func(t *testing.T) string { return document(edit(t, m5Large, `"offerings":[`, `"offerings":[1,`)) },
			want: []string{"FieldValueInvalid " + it + ".offerings[0]"},
		},
		{
			name: "missing instanceTypes",
			doc:  func(t *testing.T) string { return `{"region":"us-east-1"}` },
			want: []string{"FieldValueRequired instanceTypes"},
		},
		{
			name: "every error in one pass, in document order",
			doc: func(t *testing.T) string {
				a := edit(t, m5Large, `"cpu":"2"`, `"cpu":"2x"`)
				a = edit(t, a, `"price":0.035`, `"price":-1`)
				b := edit(t, edit(t, m5Large, `"m5.large"`, `"m5.xlarge"`), `"spot"`, `"flex"`)
				return document(a, b)
			},
			want: []string{
				"FieldValueInvalid " + it + ".capacity[cpu]",
				"FieldValueInvalid " + it + ".offerings[1].price",
				"FieldValueNotSupported instanceTypes[m5.xlarge].offerings[1].capacityType",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := []byte(tc.doc(t))
			_, err := instancetypes.Decode(data)
			require.Error(t, err)
			if diff := gocmp.Diff(tc.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("Decode() errors (-want +got):\n%s\nerror: %v", diff, err)
			}
			// The same input gives the same error text, whatever map order.
			_, again := instancetypes.Decode(data)
			if diff := gocmp.Diff(err.Error(), again.Error()); diff != "" {
				t.Errorf("Decode() error not deterministic (-first +second):\n%s", diff)
			}
		})
	}
}

func TestDecodeErrorNamesField(t *testing.T) {
	t.Parallel()
	_, err := instancetypes.Decode([]byte(document(edit(t, m5Large, `"cpu":"2"`, `"cpu":"2x"`))))
	require.Error(t, err)
	want := `instanceTypes[m5.large].capacity[cpu]: Invalid value: "2x": quantities must match the regular expression`
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Decode() error = %q, want prefix %q", err, want)
	}
}

func TestDecodeSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     string
		wantLine int
		wantCol  int
	}{
		{name: "empty", data: "", wantLine: 1, wantCol: 1},
		{name: "not an object", data: `[]`, wantLine: 1, wantCol: 1},
		{name: "truncated", data: "{\"instanceTypes\":[\n{\"name\":\"a\"", wantLine: 2, wantCol: 12},
		{name: "missing comma", data: "{\"region\":\"r\"\n \"source\":\"s\"}", wantLine: 2, wantCol: 2},
		{name: "trailing data", data: `{"instanceTypes":[]} x`, wantLine: 1, wantCol: 22},
		{name: "bad literal", data: `{"instanceTypes":nul}`, wantLine: 1, wantCol: 18},
		{name: "bad number", data: `{"instanceTypes":[{"offerings":[{"price":01}]}]}`, wantLine: 1, wantCol: 43},
		{name: "invalid UTF-8", data: "{\"region\":\"\xff\"}", wantLine: 1, wantCol: 12},
		{name: "control character in string", data: "{\"region\":\"a\tb\"}", wantLine: 1, wantCol: 13},
		{name: "bad escape", data: `{"region":"\x"}`, wantLine: 1, wantCol: 12},
		{name: "too deep", data: `{"sauce":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, wantLine: 1, wantCol: 74},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := instancetypes.Decode([]byte(tc.data))
			var se *instancetypes.SyntaxError
			require.True(t, errors.As(err, &se), "error %v is not a *SyntaxError", err)
			if diff := gocmp.Diff([]int{tc.wantLine, tc.wantCol}, []int{se.Line, se.Column}); diff != "" {
				t.Errorf("line, column (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	reserved := edit(t, edit(t, m5Large, `"m5.large"`, `"r"`), `"capacityType":"spot","price":0.035,`,
		`"capacityType":"reserved","price":0.035,"reservationID":"cr-1","reservationCapacity":0,`)
	odd := `{"name":"odd \"name\"\n","labels":{"example.com/empty":""},"capacity":{"cpu":"1.5","memory":"1e9"},` +
		`"offerings":[{"zone":"z","capacityType":"spot","price":1e-7,"available":false},{"zone":"z","capacityType":"on-demand","price":123456789012345678901234,"available":true}]}`
	c1, err := instancetypes.Decode([]byte(document(m5Large, reserved, odd)))
	require.NoError(t, err)
	out1, err := instancetypes.Encode(c1)
	require.NoError(t, err)
	c2, err := instancetypes.Decode(out1)
	require.NoError(t, err, "decoding %s", out1)
	out2, err := instancetypes.Encode(c2)
	require.NoError(t, err)
	if diff := gocmp.Diff(string(out1), string(out2)); diff != "" {
		t.Errorf("Encode(Decode(Encode(c))) differs from Encode(c) (-want +got):\n%s", diff)
	}
	// Requirements and allocatable are compared by their Equal methods.
	if diff := gocmp.Diff(c1.Types(), c2.Types(), gocmp.AllowUnexported(instancetypes.InstanceType{})); diff != "" {
		t.Errorf("round trip changed the types (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff([]string{c1.Region(), c1.Source()}, []string{c2.Region(), c2.Source()}); diff != "" {
		t.Errorf("round trip changed region or source (-want +got):\n%s", diff)
	}
}

func TestEncodeFormat(t *testing.T) {
	t.Parallel()
	c, err := instancetypes.Decode([]byte(document(m5Large)))
	require.NoError(t, err)
	got, err := instancetypes.Encode(c)
	require.NoError(t, err)
	want := `{"region":"us-east-1",
"source":"test",
"instanceTypes":[
{"name":"m5.large","labels":{"karpenter.k8s.aws/instance-cpu":"2","kubernetes.io/arch":"amd64"},` +
		`"capacity":{"cpu":"2","memory":"7577Mi","pods":"29"},` +
		`"overhead":{"kubeReserved":{"cpu":"70m","memory":"574Mi"},"systemReserved":{},"evictionThreshold":{"memory":"100Mi"}},` +
		`"offerings":[{"zone":"us-east-1a","zoneID":"use1-az1","capacityType":"spot","price":0.035,"available":true},` +
		`{"zone":"us-east-1a","zoneID":"use1-az1","capacityType":"on-demand","price":0.096,"available":true}]}
]}
`
	if diff := gocmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Encode() (-want +got):\n%s", diff)
	}
	empty, err := instancetypes.Encode(instancetypes.Catalog{})
	require.NoError(t, err)
	if diff := gocmp.Diff("{\"region\":\"\",\n\"source\":\"\",\n\"instanceTypes\":[]}\n", string(empty)); diff != "" {
		t.Errorf("Encode(Catalog{}) (-want +got):\n%s", diff)
	}
}

func TestWithTransform(t *testing.T) {
	t.Parallel()
	data := []byte(document(m5Large, edit(t, m5Large, `"m5.large"`, `"m5.xlarge"`)))
	var seen []string
	c, err := instancetypes.Decode(data, instancetypes.WithRegion("eu-west-1"), instancetypes.WithTransform(func(doc *instancetypes.Document) error {
		seen = []string{doc.Region, doc.Source}
		doc.InstanceTypes = doc.InstanceTypes[:1] // drop m5.xlarge
		doc.InstanceTypes[0].Labels["example.com/added"] = "yes"
		doc.InstanceTypes[0].Capacity[corev1.ResourcePods] = quantities("pods", "110")["pods"]
		doc.Source += " (edited)"
		return nil
	}))
	require.NoError(t, err)
	it := get(t, c, "m5.large")
	pods := it.Allocatable()[corev1.ResourcePods]
	got := []any{seen, c.Len(), c.Region(), c.Source(), it.Labels["example.com/added"], pods.String(), c.Schema().IsWellKnown("example.com/added")}
	want := []any{[]string{"eu-west-1", "test"}, 1, "eu-west-1", "test (edited)", "yes", "110", true}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWithTransformErrors(t *testing.T) {
	t.Parallel()
	errStop := errors.New("stop")
	tests := []struct {
		name      string
		data      string
		transform func(*instancetypes.Document) error
		wantErr   error
		want      []string
	}{
		{
			name:      "the transform's error is returned as is",
			data:      document(m5Large),
			transform: func(*instancetypes.Document) error { return errStop },
			wantErr:   errStop,
		},
		{
			name: "what the transform leaves is validated",
			data: document(m5Large),
			transform: func(doc *instancetypes.Document) error {
				doc.InstanceTypes[0].Offerings[1].Price = -1
				return nil
			},
			want: []string{"FieldValueInvalid instanceTypes[m5.large].offerings[1].price"},
		},
		{
			name:      "a file with errors is reported as written, without running the transform",
			data:      document(edit(t, m5Large, `"cpu":"2"`, `"cpu":"2x"`)),
			transform: func(*instancetypes.Document) error { return errStop },
			want:      []string{"FieldValueInvalid instanceTypes[m5.large].capacity[cpu]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := instancetypes.Decode([]byte(tc.data), instancetypes.WithTransform(tc.transform))
			require.Error(t, err)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("Decode() error = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if diff := gocmp.Diff(tc.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("Decode() errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewCatalogWithTransform(t *testing.T) {
	t.Parallel()
	in := []instancetypes.InstanceType{testutil.InstanceType("a").CPU("2").Memory("4Gi").Label(labelCPU, "2").Offering(zoneA, onDemand, 1).Obj()}
	c, err := instancetypes.NewCatalog(in, instancetypes.WithTransform(func(doc *instancetypes.Document) error {
		doc.InstanceTypes[0].Labels[labelCPU] = "4" // the catalog's copy, not in
		doc.Region = "r"
		return nil
	}))
	require.NoError(t, err)
	got := []string{in[0].Labels[labelCPU], c.Types()[0].Labels[labelCPU], c.Region()}
	if diff := gocmp.Diff([]string{"2", "4", "r"}, got); diff != "" {
		t.Errorf("input label, catalog label, region (-want +got):\n%s", diff)
	}
}
