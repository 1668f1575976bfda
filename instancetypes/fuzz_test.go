package instancetypes_test

import (
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/nodeplan/nodeplan/instancetypes"
)

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// survives a round trip: Encode succeeds, Decode accepts the result, and a
// second Encode gives the same bytes (parse → render → parse is stable).
// Seeds: testdata/fuzz/FuzzDecode/ and the cases below.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(document(m5Large)))
	f.Add([]byte(document(m5Large, `{"name":"r","capacity":{"cpu":1},"offerings":[{"zone":"z","capacityType":"reserved","price":0,"reservationID":"cr-1","reservationCapacity":3}]}`)))
	f.Add([]byte(`{"region":"\u00e9\ud83d\ude00","instanceTypes":[{"name":"a\\b","labels":null}]}`))
	f.Add([]byte(`{"instanceTypes":[{"capacity":{"cpu":"2x"}},"x",1,null]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := instancetypes.Decode(data)
		// A transform that changes nothing changes no outcome.
		if _, terr := instancetypes.Decode(data, instancetypes.WithTransform(func(*instancetypes.Document) error { return nil })); (err == nil) != (terr == nil) {
			t.Fatalf("Decode error %v, with an identity transform %v", err, terr)
		}
		if err != nil {
			return
		}
		out, err := instancetypes.Encode(c)
		if err != nil {
			t.Fatalf("Encode of a decoded catalog: %v", err)
		}
		c2, err := instancetypes.Decode(out)
		if err != nil {
			t.Fatalf("Decode(Encode(c)): %v\n%s", err, out)
		}
		out2, err := instancetypes.Encode(c2)
		if err != nil {
			t.Fatalf("Encode(Decode(Encode(c))): %v", err)
		}
		if diff := gocmp.Diff(string(out), string(out2)); diff != "" {
			t.Fatalf("round trip not stable (-first +second):\n%s", diff)
		}
	})
}
