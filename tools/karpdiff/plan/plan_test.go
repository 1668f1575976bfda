package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nodeplanJSON is a plan as `nodeplan solve -o json` prints it.
const nodeplanJSON = `{
  "nodeClaims": [
    {
      "name": "default-1",
      "nodePool": "default",
      "instanceType": "m5.large",
      "zone": "us-east-1a",
      "capacityType": "spot",
      "price": 0.035,
      "instanceTypeOptions": [
        "m5.large"
      ],
      "labels": {
        "karpenter.sh/nodepool": "default"
      },
      "requirements": [
        {
          "key": "node.kubernetes.io/instance-type",
          "operator": "In",
          "values": [
            "m5.large"
          ]
        }
      ],
      "requests": {
        "cpu": "1500m",
        "pods": "2"
      },
      "pods": [
        "default/web-0",
        "default/web-1"
      ]
    }
  ],
  "existingNodes": [
    {
      "name": "node-a",
      "pods": [
        "default/api-3"
      ]
    }
  ],
  "podErrors": [
    {
      "pod": "default/big-0",
      "reason": "no instance type has 200 cpu"
    }
  ],
  "summary": {
    "pods": 4,
    "scheduled": 3,
    "nodeClaims": 1,
    "pricePerHour": 0.035,
    "priceLowerBound": 0.03
  }
}
`

// TestRoundTrip: a nodeplan plan decodes and encodes back byte for byte,
// and its totals read as the summary says.
func TestRoundTrip(t *testing.T) {
	p, err := Decode([]byte(nodeplanJSON))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	out, err := Encode(p)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if diff := cmp.Diff(nodeplanJSON, string(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{3, 0.035}, []float64{float64(p.Placed()), p.Price()}); diff != "" {
		t.Errorf("placed, price (-want +got):\n%s", diff)
	}
}

// TestEncodeEmpty: an empty plan shows [] and zero totals, never null.
func TestEncodeEmpty(t *testing.T) {
	out, err := Encode(Plan{})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"nodeClaims\": [],\n  \"existingNodes\": [],\n  \"podErrors\": [],\n  \"summary\": {\n    \"pods\": 0,\n    \"scheduled\": 0,\n    \"nodeClaims\": 0,\n    \"pricePerHour\": 0,\n    \"priceLowerBound\": 0\n  }\n}\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
