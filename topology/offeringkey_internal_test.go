package topology

import (
	"testing"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/requirements"
)

// The keys an offering decides are the catalog's: a renamed zone ID label
// would otherwise read as a label nodes may lack.
func TestOfferingKeys(t *testing.T) {
	for _, k := range []string{requirements.LabelTopologyZone, requirements.LabelCapacityType, instancetypes.LabelZoneID} {
		if !offeringKey(k) {
			t.Errorf("offeringKey(%q) = false, want true", k)
		}
	}
	for _, k := range []string{requirements.LabelHostname, requirements.LabelInstanceType, "gpu-name", "team"} {
		if offeringKey(k) {
			t.Errorf("offeringKey(%q) = true, want false", k)
		}
	}
}
