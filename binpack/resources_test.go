package binpack_test

import (
	"fmt"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/binpack"
)

const gpu corev1.ResourceName = "nvidia.com/gpu"

// dimNames lists the dimensions of d in order.
func dimNames(d binpack.Dims) []corev1.ResourceName {
	out := make([]corev1.ResourceName, d.Len())
	for i := range out {
		out[i] = d.Name(i)
	}
	return out
}

// extraNames returns n distinct resource names beyond cpu, memory and pods.
func extraNames(n int) []corev1.ResourceName {
	out := make([]corev1.ResourceName, n)
	for i := range out {
		out[i] = corev1.ResourceName(fmt.Sprintf("example.com/r%02d", i))
	}
	return out
}

func TestNewDims(t *testing.T) {
	t.Parallel()
	base := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	tests := []struct {
		name    string
		names   []corev1.ResourceName
		want    []corev1.ResourceName
		wantErr bool
	}{
		{name: "none: cpu, memory, pods", want: base},
		{
			name:  "extra names sorted after the base three",
			names: []corev1.ResourceName{gpu, corev1.ResourceEphemeralStorage, "hugepages-2Mi"},
			want:  append(slices.Clone(base), corev1.ResourceEphemeralStorage, "hugepages-2Mi", gpu),
		},
		{
			name:  "base names given again keep their place",
			names: []corev1.ResourceName{corev1.ResourcePods, gpu, corev1.ResourceCPU, corev1.ResourceMemory},
			want:  append(slices.Clone(base), gpu),
		},
		{
			name:  "duplicates count once",
			names: []corev1.ResourceName{gpu, gpu, corev1.ResourceEphemeralStorage, gpu},
			want:  append(slices.Clone(base), corev1.ResourceEphemeralStorage, gpu),
		},
		{
			name:  "exactly MaxDims",
			names: extraNames(binpack.MaxDims - 3),
			want:  append(slices.Clone(base), extraNames(binpack.MaxDims-3)...),
		},
		{
			name:  "MaxDims with duplicates of base names",
			names: append(extraNames(binpack.MaxDims-3), corev1.ResourceCPU, corev1.ResourcePods),
			want:  append(slices.Clone(base), extraNames(binpack.MaxDims-3)...),
		},
		{name: "one past MaxDims", names: extraNames(binpack.MaxDims - 2), wantErr: true},
		{name: "far past MaxDims", names: extraNames(40), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.names)
			d, err := binpack.NewDims(in...)
			if diff := gocmp.Diff(tt.names, in); diff != "" {
				t.Errorf("NewDims changed its argument (-want +got):\n%s", diff)
			}
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewDims: no error, dims %v", dimNames(d))
				}
				return
			}
			require.NoError(t, err)
			if diff := gocmp.Diff(tt.want, dimNames(d)); diff != "" {
				t.Errorf("dimensions (-want +got):\n%s", diff)
			}
			for i, n := range tt.want {
				if got, ok := d.Index(n); !ok || got != i {
					t.Errorf("Index(%s) = %d, %v; want %d, true", n, got, ok, i)
				}
			}
			if _, ok := d.Index("example.com/absent"); ok {
				t.Errorf("Index of an absent name reported ok")
			}
		})
	}
}

// TestDimsVector checks units (cpu in millicores, the rest in base units,
// rounded up) and the report of names without a dimension.
func TestDimsVector(t *testing.T) {
	t.Parallel()
	d, err := binpack.NewDims(gpu, corev1.ResourceEphemeralStorage)
	require.NoError(t, err)
	cpu, mem, pods, eph, g := 0, 1, 2, 3, 4
	require.Equal(t, []corev1.ResourceName{"cpu", "memory", "pods", "ephemeral-storage", gpu}, dimNames(d))

	tests := []struct {
		name        string
		list        corev1.ResourceList
		want        map[int]int64 // dimension → value; others zero
		wantUnknown []corev1.ResourceName
	}{
		{name: "nil list", list: nil, want: map[int]int64{}},
		{
			name: "cores to millicores, memory in bytes",
			list: corev1.ResourceList{"cpu": resource.MustParse("1.5"), "memory": resource.MustParse("4Gi"), "pods": resource.MustParse("110")},
			want: map[int]int64{cpu: 1500, mem: 4 << 30, pods: 110},
		},
		{
			name: "millicores stay millicores",
			list: corev1.ResourceList{"cpu": resource.MustParse("250m")},
			want: map[int]int64{cpu: 250},
		},
		{
			name: "fractions round up",
			list: corev1.ResourceList{"cpu": resource.MustParse("0.5m"), "memory": resource.MustParse("1.5"), "pods": resource.MustParse("1.2")},
			want: map[int]int64{cpu: 1, mem: 2, pods: 2},
		},
		{
			name: "decimal memory suffix",
			list: corev1.ResourceList{"memory": resource.MustParse("1G"), "ephemeral-storage": resource.MustParse("20Gi")},
			want: map[int]int64{mem: 1_000_000_000, eph: 20 << 30},
		},
		{
			name: "extended resource",
			list: corev1.ResourceList{gpu: resource.MustParse("2")},
			want: map[int]int64{g: 2},
		},
		{
			name: "unknown names reported sorted",
			list: corev1.ResourceList{
				"cpu":              resource.MustParse("1"),
				"example.com/zeta": resource.MustParse("1"),
				"amd.com/gpu":      resource.MustParse("3"),
				"hugepages-1Gi":    resource.MustParse("1Gi"),
			},
			want:        map[int]int64{cpu: 1000},
			wantUnknown: []corev1.ResourceName{"amd.com/gpu", "example.com/zeta", "hugepages-1Gi"},
		},
		{
			name: "unknown names with zero or negative quantity are not reported",
			list: corev1.ResourceList{
				"memory":           resource.MustParse("1Mi"),
				"amd.com/gpu":      resource.MustParse("0"),
				"example.com/less": resource.MustParse("-1"),
			},
			want: map[int]int64{mem: 1 << 20},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want binpack.Vec
			for i, x := range tt.want {
				want[i] = x
			}
			got, unknown := d.Vector(tt.list)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("Vector (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantUnknown, unknown); diff != "" {
				t.Errorf("unknown (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDimsList checks List's quantities and formats, and that Vector
// inverts it.
func TestDimsList(t *testing.T) {
	t.Parallel()
	d, err := binpack.NewDims(gpu, corev1.ResourceEphemeralStorage, "hugepages-2Mi")
	require.NoError(t, err)
	require.Equal(t, []corev1.ResourceName{"cpu", "memory", "pods", "ephemeral-storage", "hugepages-2Mi", gpu}, dimNames(d))

	tests := []struct {
		name string
		v    binpack.Vec
		want map[corev1.ResourceName]string // String() of each quantity
	}{
		{name: "zero vector is an empty list", v: binpack.Vec{}, want: map[corev1.ResourceName]string{}},
		{
			name: "every dimension",
			v:    binpack.Vec{1500, 1 << 30, 110, 10 << 30, 4 << 20, 2},
			want: map[corev1.ResourceName]string{
				"cpu": "1500m", "memory": "1Gi", "pods": "110", "ephemeral-storage": "10Gi", "hugepages-2Mi": "4Mi", gpu: "2",
			},
		},
		{
			name: "zero dimensions omitted, whole cores",
			v:    binpack.Vec{2000, 0, 0, 0, 0, 1},
			want: map[corev1.ResourceName]string{"cpu": "2", gpu: "1"},
		},
		{
			name: "memory not a power of two stays in bytes",
			v:    binpack.Vec{0, 1_000_000_000},
			want: map[corev1.ResourceName]string{"memory": "1000000000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			list := d.List(tt.v)
			got := map[corev1.ResourceName]string{}
			for n, q := range list {
				got[n] = q.String()
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("List (-want +got):\n%s", diff)
			}
			back, unknown := d.Vector(list)
			if diff := gocmp.Diff(tt.v, back); diff != "" {
				t.Errorf("Vector(List(v)) (-want +got):\n%s", diff)
			}
			if len(unknown) != 0 {
				t.Errorf("Vector(List(v)) reported unknown names %v", unknown)
			}
		})
	}
}

func TestDimsFormat(t *testing.T) {
	t.Parallel()
	d, err := binpack.NewDims(gpu, corev1.ResourceEphemeralStorage, "hugepages-2Mi")
	require.NoError(t, err)
	tests := []struct {
		name string
		dim  corev1.ResourceName
		x    int64
		want string
	}{
		{name: "cpu millicores", dim: "cpu", x: 1500, want: "1500m"},
		{name: "cpu whole cores", dim: "cpu", x: 2000, want: "2"},
		{name: "cpu zero", dim: "cpu", x: 0, want: "0"},
		{name: "cpu thousands of cores", dim: "cpu", x: 1000 * 1000, want: "1000"},
		{name: "memory Gi", dim: "memory", x: 4 << 30, want: "4Gi"},
		{name: "memory Mi", dim: "memory", x: 1536 << 20, want: "1536Mi"},
		{name: "memory odd bytes", dim: "memory", x: 123456789, want: "123456789"},
		{name: "ephemeral-storage binary", dim: "ephemeral-storage", x: 20 << 30, want: "20Gi"},
		{name: "hugepages binary", dim: "hugepages-2Mi", x: 4 << 20, want: "4Mi"},
		{name: "pods decimal", dim: "pods", x: 110, want: "110"},
		{name: "extended decimal", dim: gpu, x: 8, want: "8"},
		{name: "extended is not binary", dim: gpu, x: 1 << 30, want: "1073741824"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			i, ok := d.Index(tt.dim)
			require.True(t, ok)
			if got := d.Format(i, tt.x); got != tt.want {
				t.Errorf("Format(%s, %d) = %q, want %q", tt.dim, tt.x, got, tt.want)
			}
		})
	}
}

func TestVecArithmetic(t *testing.T) {
	t.Parallel()
	a := binpack.Vec{1000, 4 << 30, 1, 0, 5}
	b := binpack.Vec{500, 1 << 30, 1, 7, -2}
	a0, b0 := a, b

	if diff := gocmp.Diff(binpack.Vec{1500, 5 << 30, 2, 7, 3}, a.Add(b)); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(binpack.Vec{500, 3 << 30, 0, -7, 7}, a.Sub(b)); diff != "" {
		t.Errorf("Sub (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(binpack.Vec{1000, 4 << 30, 1, 7, 5}, a.Max(b)); diff != "" {
		t.Errorf("Max (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(a.Max(b), b.Max(a)); diff != "" {
		t.Errorf("Max is not commutative (-a.Max(b) +b.Max(a)):\n%s", diff)
	}
	if diff := gocmp.Diff(a, a.Add(b).Sub(b)); diff != "" {
		t.Errorf("a+b-b (-want +got):\n%s", diff)
	}
	if a != a0 || b != b0 {
		t.Errorf("arithmetic changed its operands: a %v, b %v", a, b)
	}
}

// TestVecFits checks Fits, FitsSum and FirstShort, and that FitsSum is
// Fits of the sum.
func TestVecFits(t *testing.T) {
	t.Parallel()
	capacity := binpack.Vec{2000, 8 << 30, 10, 0, 1}
	tests := []struct {
		name          string
		v, o          binpack.Vec
		wantFits      bool // v fits capacity
		wantFirst     int  // v.FirstShort(capacity)
		wantFitsSum   bool // v + o fits capacity
		wantFirstLoad int  // (v + o).FirstShort(capacity)
	}{
		{name: "zero", wantFits: true, wantFirst: -1, wantFitsSum: true, wantFirstLoad: -1},
		{name: "exactly full", v: capacity, wantFits: true, wantFirst: -1, wantFitsSum: true, wantFirstLoad: -1},
		{
			name: "sum exactly full", v: binpack.Vec{1000, 4 << 30, 5, 0, 1}, o: binpack.Vec{1000, 4 << 30, 5},
			wantFits: true, wantFirst: -1, wantFitsSum: true, wantFirstLoad: -1,
		},
		{
			name: "cpu short by one millicore", v: binpack.Vec{2001}, wantFirst: 0, wantFirstLoad: 0,
		},
		{
			name: "sum short on memory only", v: binpack.Vec{1000, 5 << 30}, o: binpack.Vec{500, 3<<30 + 1},
			wantFits: true, wantFirst: -1, wantFirstLoad: 1,
		},
		{
			name: "first short is the lowest dimension", v: binpack.Vec{0, 9 << 30, 11, 1, 2},
			wantFirst: 1, wantFirstLoad: 1,
		},
		{
			name: "zero-capacity dimension", v: binpack.Vec{0, 0, 0, 1}, wantFirst: 3, wantFirstLoad: 3,
		},
		{
			name: "last dimension", v: binpack.Vec{1, 1, 1, 0, 1}, o: binpack.Vec{0, 0, 0, 0, 1},
			wantFits: true, wantFirst: -1, wantFirstLoad: 4,
		},
		{
			name: "negative addend frees room", v: binpack.Vec{3000}, o: binpack.Vec{-1000},
			wantFirst: 0, wantFitsSum: true, wantFirstLoad: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.v.Fits(capacity); got != tt.wantFits {
				t.Errorf("Fits = %v, want %v", got, tt.wantFits)
			}
			if got := tt.v.FirstShort(capacity); got != tt.wantFirst {
				t.Errorf("FirstShort = %d, want %d", got, tt.wantFirst)
			}
			if got := tt.v.FitsSum(&tt.o, &capacity); got != tt.wantFitsSum {
				t.Errorf("FitsSum = %v, want %v", got, tt.wantFitsSum)
			}
			if got := tt.o.FitsSum(&tt.v, &capacity); got != tt.wantFitsSum {
				t.Errorf("FitsSum with operands swapped = %v, want %v", got, tt.wantFitsSum)
			}
			sum := tt.v.Add(tt.o)
			if got := sum.Fits(capacity); got != tt.wantFitsSum {
				t.Errorf("Add then Fits = %v, want %v (as FitsSum)", got, tt.wantFitsSum)
			}
			if got := sum.FirstShort(capacity); got != tt.wantFirstLoad {
				t.Errorf("FirstShort of the sum = %d, want %d", got, tt.wantFirstLoad)
			}
		})
	}
}

func TestVecPredicates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		v                binpack.Vec
		wantZero, wantNe bool
	}{
		{name: "zero", v: binpack.Vec{}, wantZero: true},
		{name: "positive first", v: binpack.Vec{1}},
		{name: "positive last", v: binpack.Vec{binpack.MaxDims - 1: 1}},
		{name: "negative last", v: binpack.Vec{binpack.MaxDims - 1: -1}, wantNe: true},
		{name: "mixed", v: binpack.Vec{5, -1, 3}, wantNe: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.v.IsZero(); got != tt.wantZero {
				t.Errorf("IsZero = %v, want %v", got, tt.wantZero)
			}
			if got := tt.v.AnyNegative(); got != tt.wantNe {
				t.Errorf("AnyNegative = %v, want %v", got, tt.wantNe)
			}
		})
	}
}
