package topology_test

import (
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/internal/testutil"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/topology"
)

const ebsZoneKey = aws.LabelEBSCSIZone

func zones(key string, values ...string) requirements.Requirements {
	return requirements.NewRequirements(requirements.In(key, values...))
}

// classWithKey is a WaitForFirstConsumer class allowing values of one key.
func classWithKey(name, key string, values ...string) *storagev1.StorageClass {
	sc := testutil.WaitForFirstConsumerClass(name)
	sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: key, Values: values}}}}
	return sc
}

func pvWithKey(name, key string, values ...string) *corev1.PersistentVolume {
	pv := testutil.ZonalPV(name)
	pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0] = corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	return pv
}

func immediateClass(name string) *storagev1.StorageClass {
	sc := testutil.WaitForFirstConsumerClass(name)
	mode := storagev1.VolumeBindingImmediate
	sc.VolumeBindingMode = &mode
	return sc
}

func defaultClass(sc *storagev1.StorageClass) *storagev1.StorageClass {
	sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
	return sc
}

// localPV is a local volume pinned to a node by hostname, and to zones when
// given.
func localPV(name, node string, zoneValues ...string) *corev1.PersistentVolume {
	exprs := []corev1.NodeSelectorRequirement{{Key: hostKey, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}
	if len(zoneValues) > 0 {
		exprs = append(exprs, corev1.NodeSelectorRequirement{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: zoneValues})
	}
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
			NodeAffinity:           &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}},
		},
	}
}

func ephemeral(p *corev1.Pod, volume string, class *string) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class}}}}})
	return p
}

func TestVolumesFor(t *testing.T) {
	t.Parallel()
	gp3 := "gp3"
	tests := []struct {
		name      string
		awsSchema bool // aws.Schema, else requirements.DefaultSchema
		pvcs      []*corev1.PersistentVolumeClaim
		pvs       []*corev1.PersistentVolume
		classes   []*storagev1.StorageClass
		pod       *corev1.Pod
		want      []requirements.Requirements
	}{
		{
			name: "no volumes: no constraint",
			pod:  testutil.Pod("p").Obj(),
		},
		{
			name: "bound claim: the volume's node affinity",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:  []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneA, zoneB)},
			pod:  testutil.Pod("p").PVC("data").Obj(),
			want: []requirements.Requirements{zones(zoneKey, zoneA, zoneB)},
		},
		{
			name:      "bound claim: the EBS CSI zone key is the zone under the AWS schema",
			awsSchema: true,
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:       []*corev1.PersistentVolume{pvWithKey("pv-1", ebsZoneKey, zoneB)},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			want:      []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name: "bound volume without node affinity: no constraint",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:  []*corev1.PersistentVolume{{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}}},
			pod:  testutil.Pod("p").PVC("data").Obj(),
		},
		{
			name: "local volume: the hostname part is dropped",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:  []*corev1.PersistentVolume{localPV("pv-1", "node-1", zoneC)},
			pod:  testutil.Pod("p").PVC("data").Obj(),
			want: []requirements.Requirements{zones(zoneKey, zoneC)},
		},
		{
			name: "local volume with an alternative pinned by hostname only: no constraint",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs: []*corev1.PersistentVolume{func() *corev1.PersistentVolume {
				pv := localPV("pv-1", "node-1", zoneC)
				terms := &pv.Spec.NodeAffinity.Required.NodeSelectorTerms
				*terms = append(*terms, corev1.NodeSelectorTerm{MatchExpressions: (*terms)[0].MatchExpressions[:1]})
				return pv
			}()},
			pod: testutil.Pod("p").PVC("data").Obj(),
		},
		{
			name: "bound volume with two node-affinity terms: alternatives",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs: []*corev1.PersistentVolume{func() *corev1.PersistentVolume {
				pv := testutil.ZonalPV("pv-1", zoneA)
				terms := &pv.Spec.NodeAffinity.Required.NodeSelectorTerms
				*terms = append(*terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: zoneKey, Operator: corev1.NodeSelectorOpIn, Values: []string{zoneC}}}})
				return pv
			}()},
			pod:  testutil.Pod("p").PVC("data").Obj(),
			want: []requirements.Requirements{zones(zoneKey, zoneA), zones(zoneKey, zoneC)},
		},
		{
			name: "local volume pinned by hostname only: no constraint",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:  []*corev1.PersistentVolume{localPV("pv-1", "node-1")},
			pod:  testutil.Pod("p").PVC("data").Obj(),
		},
		{
			name:    "unbound claim, WaitForFirstConsumer: the allowed zones",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneA, zoneC)},
			pod:     testutil.Pod("p").PVC("data").Obj(),
			want:    []requirements.Requirements{zones(zoneKey, zoneA, zoneC)},
		},
		{
			name:      "unbound claim, WaitForFirstConsumer: the EBS CSI zone key is the zone under the AWS schema",
			awsSchema: true,
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes:   []*storagev1.StorageClass{classWithKey("gp3", ebsZoneKey, zoneA)},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			want:      []requirements.Requirements{zones(zoneKey, zoneA)},
		},
		{
			name:    "unbound claim, WaitForFirstConsumer: the default schema does not know the EBS CSI key",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes: []*storagev1.StorageClass{classWithKey("gp3", ebsZoneKey, zoneA)},
			pod:     testutil.Pod("p").PVC("data").Obj(),
			want:    []requirements.Requirements{zones(ebsZoneKey, zoneA)},
		},
		{
			name:    "unbound claim, WaitForFirstConsumer: deprecated zone key normalised",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes: []*storagev1.StorageClass{classWithKey("gp3", "failure-domain.beta.kubernetes.io/zone", zoneB)},
			pod:     testutil.Pod("p").PVC("data").Obj(),
			want:    []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name:    "unbound claim, WaitForFirstConsumer without allowedTopologies: no constraint",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3")},
			pod:     testutil.Pod("p").PVC("data").Obj(),
		},
		{
			name: "unbound claim, several topology terms: alternatives",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "gp3")},
			classes: []*storagev1.StorageClass{func() *storagev1.StorageClass {
				sc := testutil.WaitForFirstConsumerClass("gp3", zoneA)
				sc.AllowedTopologies = append(sc.AllowedTopologies, corev1.TopologySelectorTerm{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
					{Key: zoneKey, Values: []string{zoneC}}}})
				return sc
			}()},
			pod:  testutil.Pod("p").PVC("data").Obj(),
			want: []requirements.Requirements{zones(zoneKey, zoneA), zones(zoneKey, zoneC)},
		},
		{
			name:    "unbound claim without a class: the default class",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "")},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("other", zoneA), defaultClass(testutil.WaitForFirstConsumerClass("std", zoneB))},
			pod:     testutil.Pod("p").PVC("data").Obj(),
			want:    []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name:    "two volumes: their topologies intersect",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", ""), testutil.PVC("scratch", "", "gp3")},
			pvs:     []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneA, zoneB)},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneB, zoneC)},
			pod:     testutil.Pod("p").PVC("data").PVC("scratch").Obj(),
			want:    []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name: "claim in the pod's namespace",
			pvcs: []*corev1.PersistentVolumeClaim{func() *corev1.PersistentVolumeClaim {
				c := testutil.PVC("data", "", "gp3")
				c.Namespace = "team"
				return c
			}()},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneC)},
			pod:     testutil.Pod("p").Namespace("team").PVC("data").Obj(),
			want:    []requirements.Requirements{zones(zoneKey, zoneC)},
		},
		{
			name: "a pod without a namespace uses claims in default",
			pvcs: []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:  []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneB)},
			pod:  testutil.Pod("p").Namespace("").PVC("data").Obj(),
			want: []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name:    "generic ephemeral volume whose claim <pod>-<volume> exists: that claim's volume",
			pvcs:    []*corev1.PersistentVolumeClaim{testutil.PVC("p-scratch", "pv-1", "gp3")},
			pvs:     []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneB)},
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneA)},
			pod:     ephemeral(testutil.Pod("p").Obj(), "scratch", &gp3),
			want:    []requirements.Requirements{zones(zoneKey, zoneB)},
		},
		{
			name:    "generic ephemeral volume: its template's class",
			classes: []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneA)},
			pod:     ephemeral(testutil.Pod("p").Obj(), "scratch", &gp3),
			want:    []requirements.Requirements{zones(zoneKey, zoneA)},
		},
		{
			name:    "generic ephemeral volume without a class: the default class",
			classes: []*storagev1.StorageClass{defaultClass(testutil.WaitForFirstConsumerClass("std", zoneC))},
			pod:     ephemeral(testutil.Pod("p").Obj(), "scratch", nil),
			want:    []requirements.Requirements{zones(zoneKey, zoneC)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := requirements.DefaultSchema()
			if tc.awsSchema {
				schema = aws.Schema()
			}
			got, err := topology.NewVolumes(schema, tc.pvcs, tc.pvs, tc.classes).For(tc.pod)
			require.NoError(t, err)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("For (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVolumesForErrors(t *testing.T) {
	t.Parallel()
	deleting := func(c *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
		now := metav1.Unix(0, 0)
		c.DeletionTimestamp = &now
		return c
	}
	lost := testutil.PVC("data", "pv-1", "")
	lost.Status.Phase = corev1.ClaimLost
	tests := []struct {
		name    string
		pvcs    []*corev1.PersistentVolumeClaim
		pvs     []*corev1.PersistentVolume
		classes []*storagev1.StorageClass
		pod     *corev1.Pod
		// The error's claim, and words its message must hold.
		wantClaim string
		wantWords []string
	}{
		{
			name:      "missing claim is named",
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{"not found"},
		},
		{
			name:      "a claim of the same name in another namespace is not the pod's",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pvs:       []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneA)},
			pod:       testutil.Pod("p").Namespace("team").PVC("data").Obj(),
			wantClaim: "team/data", wantWords: []string{"not found"},
		},
		{
			name:      "region key in allowedTopologies",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "regional")},
			classes:   []*storagev1.StorageClass{classWithKey("regional", requirements.LabelTopologyRegion, "us-east-1")},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data",
			wantWords: []string{`storage class "regional"`, "allowedTopologies[0].matchLabelExpressions[0]", requirements.LabelTopologyRegion, "not supported", zoneKey},
		},
		{
			name:      "deprecated region key in allowedTopologies names the key as written",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "regional")},
			classes:   []*storagev1.StorageClass{classWithKey("regional", "failure-domain.beta.kubernetes.io/region", "us-east-1")},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data",
			wantWords: []string{"failure-domain.beta.kubernetes.io/region", "not supported"},
		},
		{
			name:      "bound volume missing",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "pv-1", "")},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{"bound volume pv-1 not found"},
		},
		{
			name:      "claim being deleted",
			pvcs:      []*corev1.PersistentVolumeClaim{deleting(testutil.PVC("data", "pv-1", ""))},
			pvs:       []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneA)},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{"being deleted"},
		},
		{
			name:      "lost claim",
			pvcs:      []*corev1.PersistentVolumeClaim{lost},
			pvs:       []*corev1.PersistentVolume{testutil.ZonalPV("pv-1", zoneA)},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{"Lost"},
		},
		{
			name:      "unbound claim of an Immediate class",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "fast")},
			classes:   []*storagev1.StorageClass{immediateClass("fast")},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{`"fast"`, "Immediately"},
		},
		{
			name:      "unbound claim of an unknown class",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "nope")},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{`storage class "nope" not found`},
		},
		{
			name:      "unbound claim without a class and no default class",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("data", "", "")},
			classes:   []*storagev1.StorageClass{testutil.WaitForFirstConsumerClass("gp3", zoneA)},
			pod:       testutil.Pod("p").PVC("data").Obj(),
			wantClaim: "default/data", wantWords: []string{"no default storage class"},
		},
		{
			name:      "volumes in disjoint zones",
			pvcs:      []*corev1.PersistentVolumeClaim{testutil.PVC("a", "pv-a", ""), testutil.PVC("b", "pv-b", "")},
			pvs:       []*corev1.PersistentVolume{testutil.ZonalPV("pv-a", zoneA), testutil.ZonalPV("pv-b", zoneB)},
			pod:       testutil.Pod("p").PVC("a").PVC("b").Obj(),
			wantClaim: "", wantWords: []string{"do not intersect", zoneA, zoneB},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := topology.NewVolumes(requirements.DefaultSchema(), tc.pvcs, tc.pvs, tc.classes).For(tc.pod)
			require.Error(t, err)
			require.Nil(t, got)
			var ve *topology.VolumeError
			require.True(t, errors.As(err, &ve), "error %v is not a *VolumeError", err)
			if diff := gocmp.Diff(tc.wantClaim, ve.Claim); diff != "" {
				t.Errorf("Claim (-want +got):\n%s", diff)
			}
			for _, w := range tc.wantWords {
				if !strings.Contains(ve.Message, w) {
					t.Errorf("Message %q does not contain %q", ve.Message, w)
				}
			}
			if tc.wantClaim != "" && !strings.HasPrefix(err.Error(), "volume claim "+tc.wantClaim+": ") {
				t.Errorf("Error() = %q, want it to name claim %s", err.Error(), tc.wantClaim)
			}
		})
	}
}

func TestVolumesClaim(t *testing.T) {
	t.Parallel()
	withModes := func(c *corev1.PersistentVolumeClaim, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
		c.Spec.AccessModes = modes
		return c
	}
	pvcs := []*corev1.PersistentVolumeClaim{
		withModes(testutil.PVC("rwo-bound", "pv-1", ""), corev1.ReadWriteOnce),
		withModes(testutil.PVC("rwop", "", "gp3"), corev1.ReadWriteOncePod),
		withModes(testutil.PVC("rwx", "", "gp3"), corev1.ReadWriteMany, corev1.ReadOnlyMany),
	}
	type claim struct {
		Key        string
		RWO, Bound bool
	}
	tests := []struct {
		id   string
		want claim
	}{
		{id: "default/rwo-bound", want: claim{Key: "default/rwo-bound", RWO: true, Bound: true}},
		{id: "default/rwop", want: claim{Key: "default/rwop", RWO: true}},
		{id: "default/rwx", want: claim{Key: "default/rwx"}},
		{id: "default/missing", want: claim{}},
		{id: "team/rwx", want: claim{}},
	}
	v := topology.NewVolumes(requirements.DefaultSchema(), pvcs, nil, nil)
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			var got claim
			got.Key, got.RWO, got.Bound = v.Claim(tc.id)
			if diff := gocmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Claim (-want +got):\n%s", diff)
			}
		})
	}
}
