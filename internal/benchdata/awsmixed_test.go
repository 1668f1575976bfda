package benchdata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// awsMixedGolden holds the SHA-256 and length of workload.json as written by
//
//	python3 testdata/bench/gen-aws-mixed.py --pods N --seed=S --out DIR
//
// with CPython 3.11, so the port is checked where python3 is absent.
// TestAWSMixedMatchesPython re-derives them when the script is present.
func awsMixedGolden() []struct {
	pods   int
	seed   int64
	size   int
	sha256 string
} {
	return []struct {
		pods   int
		seed   int64
		size   int
		sha256 string
	}{
		{0, 7, 43627, "102c2d1b6132ad82f2ceb6993bdc1da7bf28734ac45a1e79e7448ab40a8afbed"},
		{1, 7, 43627, "102c2d1b6132ad82f2ceb6993bdc1da7bf28734ac45a1e79e7448ab40a8afbed"},
		{100, 7, 48103, "5c490bab895510d4c634dc3687c84f7945a1d36c1e52bbe89479ebc60936ef39"},
		{333, 7, 60439, "9e1ef1b2e9e1f801601a0ba5653104a86f178ddabc122d233ad9075cc69cddce"},
		{1000, 7, 98614, "982c5376154342888374703a8297b4b19d6a6f6063445ed3ac63fa82ee5041c1"},
		{5000, 7, 323500, "9898367aa650a469428ed4037163607776740968b8ad03693ad047413979a344"},
		{20000, 7, 1167250, "b637a4ca4abc5bb2facf32d0a7c0e5ee827927f14d5256e4a176a4b492cc4359"},
		{100000, 7, 5679286, "885c441d8d60501667a7b40c60c59ea68fcce1c3f65f41129a0f505af91975b9"},
		{1000, 12345, 98610, "75f458c52934c5a7918fc0f51827e1bba8f9d773d82fa96742c9135eecf23d8b"},
		{100, 0, 48092, "d1b27378b9019884a03e78a9f72a76e4d755d50940128dd2ea6c8f350593a006"},
		{100, -3, 48095, "781f146bda741b675edb47410bbda9d0f6fedfb00b2bac523fa6df420848cf50"},
		{5000, 1<<40 + 3, 323490, "188ffa4039cf9b34f472ad978bb8178507582791fc7dfee114c80f781d459b46"},
		{1000, -1 << 63, 98598, "e98522c44343c3589c55ea31fad953dc457b076bae8c22ae0a1d08fc2daeb0b4"},
	}
}

func caseName(pods int, seed int64) string {
	return "pods=" + strconv.Itoa(pods) + "/seed=" + strconv.FormatInt(seed, 10)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestAWSMixedGolden(t *testing.T) {
	t.Parallel()
	if got := AWSMixedDefaultSeed(); got != 7 {
		t.Errorf("AWSMixedDefaultSeed() = %d, want 7 (the script's --seed default)", got)
	}
	for _, tt := range awsMixedGolden() {
		t.Run(caseName(tt.pods, tt.seed), func(t *testing.T) {
			t.Parallel()
			got := AWSMixed(tt.pods, tt.seed)
			if len(got) != tt.size || digest(got) != tt.sha256 {
				t.Errorf("AWSMixed(%d, %d): %d bytes, sha256 %s; want %d bytes, sha256 %s",
					tt.pods, tt.seed, len(got), digest(got), tt.size, tt.sha256)
			}
		})
	}
}

// TestAWSMixedMatchesPython compares bytes with the script itself
// (testdata/bench/gen-aws-mixed.py) when python3 is available, and checks
// that the script still produces the committed digests.
func TestAWSMixedMatchesPython(t *testing.T) {
	t.Parallel()
	script := filepath.Join("..", "..", "testdata", "bench", "gen-aws-mixed.py")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("reference script not available: %v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("python3 not available: %v", err)
	}
	for _, tt := range awsMixedGolden() {
		if tt.pods > 5000 {
			continue // covered by the digests; keeps the test fast
		}
		t.Run(caseName(tt.pods, tt.seed), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.CommandContext(t.Context(), python, script,
				"--pods", strconv.Itoa(tt.pods), "--seed="+strconv.FormatInt(tt.seed, 10), "--out", dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", cmd, err, out)
			}
			want, err := os.ReadFile(filepath.Join(dir, "workload.json"))
			if err != nil {
				t.Fatal(err)
			}
			if d := digest(want); d != tt.sha256 {
				t.Errorf("script output changed: sha256 %s, golden %s; update awsMixedGolden and the port", d, tt.sha256)
			}
			if got := AWSMixed(tt.pods, tt.seed); !bytes.Equal(got, want) {
				line, g, w := firstDiffLine(got, want)
				t.Errorf("AWSMixed(%d, %d) differs from the script at line %d:\ngot:  %q\nwant: %q",
					tt.pods, tt.seed, line, g, w)
			}
		})
	}
}

// firstDiffLine returns the 1-based number of the first line where got and
// want differ, and that line of each.
func firstDiffLine(got, want []byte) (int, []byte, []byte) {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(g), len(w)) {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return i + 1, gl, wl
		}
	}
	return 0, nil, nil
}

// TestAWSMixedSizes counts what the script prints: "N objects, P pods", where
// P sums Deployment replicas and Job parallelism, plus the db Pods.
func TestAWSMixedSizes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pods, wantObjects, wantPods int
	}{
		{0, 46, 37},
		{333, 76, 328},
		{1000, 144, 1000},
		{5000, 544, 5000},
		{20000, 2044, 20000},
		{100000, 10044, 100000},
	}
	for _, tt := range tests {
		t.Run("pods="+strconv.Itoa(tt.pods), func(t *testing.T) {
			t.Parallel()
			var list struct {
				Items []struct {
					Kind string
					Spec struct{ Replicas, Parallelism int }
				}
			}
			if err := json.Unmarshal(AWSMixed(tt.pods, AWSMixedDefaultSeed()), &list); err != nil {
				t.Fatal(err)
			}
			pods := 0
			for _, it := range list.Items {
				switch it.Kind {
				case "Deployment", "Job":
					pods += it.Spec.Replicas + it.Spec.Parallelism
				case "Pod":
					pods++
				}
			}
			if len(list.Items) != tt.wantObjects || pods != tt.wantPods {
				t.Errorf("AWSMixed(%d): %d objects, %d pods; want %d objects, %d pods",
					tt.pods, len(list.Items), pods, tt.wantObjects, tt.wantPods)
			}
		})
	}
}

func BenchmarkAWSMixed(b *testing.B) {
	for _, pods := range []int{1000, 20000} {
		b.Run("pods="+strconv.Itoa(pods), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				AWSMixed(pods, AWSMixedDefaultSeed())
			}
		})
	}
}
