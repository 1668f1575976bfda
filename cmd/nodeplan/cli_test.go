package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// writeFiles writes name → content into a fresh folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

const validNodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["spot", "on-demand"]
`

const validPod = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: nginx
      resources:
        requests:
          cpu: 500m
          memory: 512Mi
`

// TestSolveInvalidInput runs `nodeplan solve` on broken inputs: the exit
// status is 2, stdout stays empty, and stderr has one "error: " line per
// problem naming the file, the document, the object and the field.
func TestSolveInvalidInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		// args are appended after "solve -f DIR"; {dir} is replaced.
		args []string
		want []string
	}{
		{
			name:  "missing file",
			files: map[string]string{"nodepool.yaml": validNodePool},
			args:  []string{"-f", "{dir}/missing.yaml"},
			want:  []string{"error: {dir}/missing.yaml: no such file or directory"},
		},
		{
			name: "YAML syntax error",
			files: map[string]string{"nodepool.yaml": validNodePool, "pods.yaml": validPod + `---
apiVersion: v1
kind: Pod
metadata:
  name: api
    labels: {app: api}
`},
			want: []string{"error: {dir}/pods.yaml: document 2: yaml: line 18: mapping values are not allowed in this context"},
		},
		{
			name: "unknown operator",
			files: map[string]string{"nodepool.yaml": validNodePool, "pods.yaml": validPod + `  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - key: topology.kubernetes.io/zone
                operator: IsIn
                values: [us-east-1a]
`},
			want: []string{`error: {dir}/pods.yaml: document 1 (Pod default/web): spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "IsIn": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`},
		},
		{
			name:  "unparsable quantity",
			files: map[string]string{"nodepool.yaml": validNodePool, "pods.yaml": strings.Replace(validPod, "cpu: 500m", "cpu: 500 m", 1)},
			want: []string{`error: {dir}/pods.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests[cpu]: Invalid value: "500 m": ` +
				`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`},
		},
		{
			name: "NodePool failing validation",
			files: map[string]string{"pods.yaml": validPod, "nodepool.yaml": strings.Replace(validNodePool, "spec:\n  template:", "spec:\n  weight: 0\n  template:", 1) +
				"      taints:\n        - key: gpu\n          effect: NoScheduleAtAll\n"},
			want: []string{
				`error: {dir}/nodepool.yaml: document 1 (NodePool default): spec.weight: Invalid value: 0: must be within 1..100`,
				`error: {dir}/nodepool.yaml: document 1 (NodePool default): spec.template.spec.taints[0].effect: Unsupported value: "NoScheduleAtAll": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			},
		},
		{
			name:  "misspelled NodePool field",
			files: map[string]string{"pods.yaml": validPod, "nodepool.yaml": strings.Replace(validNodePool, "requirements:", "requirments:", 1)},
			want:  []string{`error: {dir}/nodepool.yaml: document 1 (NodePool default): spec.template.spec.requirments: Forbidden: unknown field (did you mean "requirements"?)`},
		},
		{
			name:  "every problem of every file in one pass",
			files: map[string]string{"a.yaml": strings.Replace(validPod, "512Mi", "512MB!", 1), "b.yaml": "kind: Pod\nmetadata: {namespace: x}\n"},
			args:  []string{"-f", "{dir}/nope"},
			want: []string{
				"error: {dir}/nope: no such file or directory",
				`error: {dir}/a.yaml: document 1 (Pod default/web): spec.containers[0].resources.requests[memory]: Invalid value: "512MB!": ` +
					`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
				"error: {dir}/b.yaml: document 1 (Pod): metadata.name: Required value: every object needs a name",
			},
		},
		{
			name:  "empty folder",
			files: map[string]string{"notes.txt": "nothing to see"},
			want:  []string{"error: {dir}: no .yaml, .yml or .json file in the folder (its sub-folders are read only with -R)"},
		},
		{
			name:  "bad catalog file",
			files: map[string]string{"pods.yaml": validPod, "nodepool.yaml": validNodePool, "cat/catalog.json": `{"region": "x", "instanceTypes": [{"name": ""}]`},
			args:  []string{"--catalog", "{dir}/cat/catalog.json"},
		},
		{
			name:  "bad flag values",
			files: map[string]string{"pods.yaml": validPod},
			args:  []string{"-o", "xml", "--preference-policy", "Sometimes", "--min-values-policy", "Lax"},
			want: []string{
				`error: -o "xml": want table, json or yaml`,
				`error: --preference-policy "Sometimes": want Respect, Honor, Ignore or WhileFree`,
				`error: --min-values-policy "Lax": want Strict or BestEffort`,
			},
		},
		{
			name:  "unknown zone of the built-in catalog",
			files: map[string]string{"pods.yaml": validPod, "nodepool.yaml": validNodePool},
			args:  []string{"--zones", "us-east-1z"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeFiles(t, tt.files)
			args := []string{"solve", "-f", dir, "-o", "json"}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != exitInvalid {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitInvalid, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if strings.HasPrefix(l, "error: ") {
					got = append(got, strings.ReplaceAll(l, dir, "{dir}"))
				}
			}
			if tt.want == nil {
				require.NotEmpty(t, got, "want at least one error line; stderr:\n%s", stderr.String())
				return
			}
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error lines mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// tinyCatalog is a catalog file with two instance types.
const tinyCatalog = `{"region": "test-1", "source": "tests", "instanceTypes": [
{"name": "small.2x", "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "small.2x", "example.com/cpu": "2"},
 "capacity": {"cpu": "2", "memory": "4Gi", "pods": "20"}, "overhead": {"kubeReserved": {"cpu": "100m", "memory": "512Mi"}},
 "offerings": [{"zone": "test-1a", "capacityType": "on-demand", "price": 0.1, "available": true},
               {"zone": "test-1b", "capacityType": "spot", "price": 0.03, "available": true}]},
{"name": "big.8x", "labels": {"kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "big.8x", "example.com/cpu": "8"},
 "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}, "overhead": {"kubeReserved": {"cpu": "200m", "memory": "1Gi"}},
 "offerings": [{"zone": "test-1a", "capacityType": "on-demand", "price": 0.4, "available": true},
               {"zone": "test-1b", "capacityType": "spot", "price": 0.12, "available": false}]}
]}`

func TestSolveOutputs(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"pods.yaml":          validPod,
		"nodepool.yaml":      validNodePool,
		"more/notes.yaml":    "# only a comment\n",
		"more/ec2class.yaml": "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: default}\n",
		"catalog.json.txt":   tinyCatalog,
	})
	cat := filepath.Join(dir, "catalog.json.txt")

	var jsonOut, stderr bytes.Buffer
	code := run([]string{"solve", "-f", dir, "-R", "--catalog", cat, "-o", "json", "--stats"}, &jsonOut, &stderr)
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
	var plan map[string]any
	require.NoError(t, json.Unmarshal(jsonOut.Bytes(), &plan), "stdout must be the plan alone")
	for _, key := range []string{"nodeClaims", "existingNodes", "podErrors", "summary"} {
		if _, ok := plan[key]; !ok {
			t.Errorf("plan lacks %q", key)
		}
	}
	if !strings.HasPrefix(jsonOut.String(), "{\n  \"nodeClaims\": [") || !strings.HasSuffix(jsonOut.String(), "}\n") {
		t.Errorf("plan is not indented by two spaces:\n%s", jsonOut.String())
	}

	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	wantWarnings := []string{
		"warning: " + filepath.Join(dir, "more/ec2class.yaml") + ": document 1: skipped kind EC2NodeClass",
		"warning: " + filepath.Join(dir, "more/notes.yaml") + ": no documents",
	}
	if diff := gocmp.Diff(wantWarnings, lines[:len(lines)-1]); diff != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", diff)
	}
	var stats map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &stats), "the last stderr line is the --stats JSON")
	var keys []string
	for _, f := range strings.Split(strings.Trim(lines[len(lines)-1], "{}"), ",") {
		keys = append(keys, strings.Trim(strings.SplitN(f, ":", 2)[0], `"`))
	}
	if diff := gocmp.Diff([]string{"pods", "loadSeconds", "solveSeconds", "podsPerSecond", "nodeClaims", "pricePerHour", "priceLowerBound"}, keys); diff != "" {
		t.Errorf("stats keys mismatch (-want +got):\n%s", diff)
	}
	if stats["pods"] != float64(1) {
		t.Errorf("stats pods = %v, want 1", stats["pods"])
	}

	// -o yaml is the same document.
	var yamlOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"solve", "-R", dir, "--catalog", cat, "-o", "yaml"}, &yamlOut, &bytes.Buffer{}))
	require.Contains(t, yamlOut.String(), "nodeClaims:\n")
	require.Contains(t, yamlOut.String(), "- default/web\n")

	// The default output is the table; positional paths work like -f.
	var table bytes.Buffer
	require.Equal(t, exitOK, run([]string{"solve", filepath.Join(dir, "pods.yaml"), "--catalog", cat, filepath.Join(dir, "nodepool.yaml")}, &table, &bytes.Buffer{}))
	require.Contains(t, table.String(), "NAME       NODEPOOL  INSTANCE TYPE")
	require.Contains(t, table.String(), "Pods:   1 of 1 scheduled")

	// --zones restricts a catalog file too.
	var zoned bytes.Buffer
	require.Equal(t, exitOK, run([]string{"solve", "-f", dir, "-R", "--catalog", cat, "--zones", "test-1a", "-o", "json"}, &zoned, &bytes.Buffer{}))
	require.Contains(t, zoned.String(), `"zone": "test-1a"`)
	require.NotContains(t, zoned.String(), `"zone": "test-1b"`)
}

func TestSolveGzipInput(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"nodepool.yaml": validNodePool, "catalog.json": tinyCatalog})
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(validPod))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	gz := filepath.Join(dir, "pods.yaml.gz")
	require.NoError(t, os.WriteFile(gz, buf.Bytes(), 0o644))
	var out, stderr bytes.Buffer
	code := run([]string{"solve", "-f", gz, "-f", filepath.Join(dir, "nodepool.yaml"), "--catalog", filepath.Join(dir, "catalog.json"), "-o", "json"}, &out, &stderr)
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
	require.Contains(t, out.String(), `"default/web"`)

	// A folder gives its gzipped manifests too (testdata/bench's pods.yaml.gz).
	folder := writeFiles(t, map[string]string{"nodepool.yaml": validNodePool})
	require.NoError(t, os.WriteFile(filepath.Join(folder, "pods.yaml.gz"), buf.Bytes(), 0o644))
	out.Reset()
	stderr.Reset()
	code = run([]string{"solve", "-f", folder, "--catalog", filepath.Join(dir, "catalog.json"), "-o", "json"}, &out, &stderr)
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
	require.Contains(t, out.String(), `"default/web"`)
}

func TestCatalogCommand(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"catalog.json": tinyCatalog})
	cat := filepath.Join(dir, "catalog.json")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name: "every type, cheapest first",
			args: []string{"--catalog", cat},
			wantStdout: `NAME      ARCH   VCPU  CPU  MEMORY  PODS  $/HOUR   CAPACITY   ZONE
small.2x  amd64  2     1.9  3.5Gi   20    $0.0300  spot       test-1b
big.8x    arm64  8     7.8  31Gi    110   $0.4000  on-demand  test-1a
`,
		},
		{
			name: "filters are requirements",
			args: []string{"--catalog", cat, "--filter", "example.com/cpu>3", "--filter", "kubernetes.io/arch=arm64,amd64", "--filter", "karpenter.sh/capacity-type!=spot"},
			wantStdout: `NAME    ARCH   VCPU  CPU  MEMORY  PODS  $/HOUR   CAPACITY   ZONE
big.8x  arm64  8     7.8  31Gi    110   $0.4000  on-demand  test-1a
`,
		},
		{
			name: "zones",
			args: []string{"--catalog", cat, "--zones", "test-1a", "--filter", "!example.com/accelerator"},
			wantStdout: `NAME      ARCH   VCPU  CPU  MEMORY  PODS  $/HOUR   CAPACITY   ZONE
small.2x  amd64  2     1.9  3.5Gi   20    $0.1000  on-demand  test-1a
big.8x    arm64  8     7.8  31Gi    110   $0.4000  on-demand  test-1a
`,
			wantStderr: "warning: --filter \"!example.com/accelerator\": no instance type has the label \"example.com/accelerator\"\n",
		},
		{
			name:       "nothing matches",
			args:       []string{"--catalog", cat, "--filter", "example.com/cpu<=1"},
			wantStdout: "NAME  ARCH  VCPU  CPU  MEMORY  PODS  $/HOUR  CAPACITY  ZONE\n",
			wantStderr: "warning: no instance type satisfies the filters\n",
		},
		{
			name:       "a filter that is not a requirement",
			args:       []string{"--catalog", cat, "--filter", "example.com/cpu>two"},
			wantCode:   exitInvalid,
			wantStderr: "error: --filter \"example.com/cpu>two\": example.com/cpu.values[0]: Invalid value: \"two\": key \"example.com/cpu\": operator Gt needs a non-negative integer\n",
		},
		{
			name:       "region of a catalog file",
			args:       []string{"--catalog", cat, "--region", "eu-west-1"},
			wantCode:   exitInvalid,
			wantStderr: "error: " + cat + ": the catalog is of region test-1, not eu-west-1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"catalog"}, tt.args...), &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if diff := gocmp.Diff(tt.wantStdout, stdout.String()); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
			if diff := gocmp.Diff(tt.wantStderr, stderr.String()); diff != "" {
				t.Errorf("stderr mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuiltinCatalog(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run([]string{"catalog", "--zones", "us-east-1b", "--filter", "node.kubernetes.io/instance-type=m5.large,c4.large"}, &stdout, &stderr)
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 3, stdout.String())
	for _, l := range lines[1:] {
		require.Contains(t, l, "us-east-1b")
	}
}

func TestUsageAndVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // prefix
		wantStderr string // prefix
	}{
		{name: "no command", wantCode: exitInvalid, wantStderr: "nodeplan plans the nodes"},
		{name: "unknown command", args: []string{"plan"}, wantCode: exitInvalid, wantStderr: `nodeplan: unknown command "plan"`},
		{name: "help", args: []string{"help"}, wantStdout: "nodeplan plans the nodes"},
		{name: "solve help", args: []string{"solve", "-h"}, wantStderr: "Usage: nodeplan solve"},
		{name: "solve without input", args: []string{"solve"}, wantCode: exitInvalid, wantStderr: "error: no input: give manifests with -f PATH\n"},
		{name: "unknown flag", args: []string{"solve", "--fast"}, wantCode: exitInvalid, wantStderr: "flag provided but not defined: -fast"},
		{name: "version", args: []string{"version"}, wantStdout: "nodeplan " + version + "\ngo: go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d", code, tt.wantCode)
			}
			if !strings.HasPrefix(stdout.String(), tt.wantStdout) || (tt.wantStdout == "" && stdout.Len() > 0) {
				t.Errorf("stdout = %q, want it to start with %q", stdout.String(), tt.wantStdout)
			}
			if !strings.HasPrefix(stderr.String(), tt.wantStderr) || (tt.wantStderr == "" && stderr.Len() > 0) {
				t.Errorf("stderr = %q, want it to start with %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	t.Parallel()
	var f solveFlags
	fs := newSolveFlagSet(&f, &bytes.Buffer{})
	positional, err := parseFlags(fs, []string{"a.yaml", "-o", "json", "b", "-R", "--", "-c.yaml", "-o"})
	require.NoError(t, err)
	if diff := gocmp.Diff([]string{"a.yaml", "b", "-c.yaml", "-o"}, positional); diff != "" {
		t.Errorf("positional mismatch (-want +got):\n%s", diff)
	}
	if f.output != "json" || !f.recursive {
		t.Errorf("flags not parsed: -o %q, -R %v", f.output, f.recursive)
	}
}

func TestSolveExistingNodes(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{
		"catalog.json":  tinyCatalog,
		"nodepool.yaml": validNodePool,
		"pods.yaml":     validPod,
		"cluster.yaml": `apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    node.kubernetes.io/instance-type: small.2x
    topology.kubernetes.io/zone: test-1a
status:
  allocatable: {cpu: 1900m, memory: 3584Mi, pods: "20"}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: kube-system}
spec:
  nodeName: node-a
  containers: [{name: c, resources: {requests: {cpu: 500m}}}]
`,
	})
	var out, stderr bytes.Buffer
	code := run([]string{"solve", "-f", dir, "--catalog", filepath.Join(dir, "catalog.json"), "-o", "json"}, &out, &stderr)
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr.String())
	var plan struct {
		ExistingNodes []struct {
			Name string   `json:"name"`
			Pods []string `json:"pods"`
		} `json:"existingNodes"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
	if diff := gocmp.Diff(`[{node-a [default/web]}]`, fmt.Sprint(plan.ExistingNodes)); diff != "" {
		t.Errorf("existing nodes mismatch (-want +got):\n%s", diff)
	}
	var table bytes.Buffer
	require.Equal(t, exitOK, run([]string{"solve", "-f", dir, "--catalog", filepath.Join(dir, "catalog.json")}, &table, &bytes.Buffer{}))
	require.Contains(t, table.String(), "No new nodes.\n\nEXISTING NODE  PODS  NAMES\nnode-a         1     default/web\n")
}

// TestSolveVerify checks that --verify checks the plan it prints: every
// seed example's plan is valid, so the exit status stays 0 and nothing is
// reported.
func TestSolveVerify(t *testing.T) {
	t.Parallel()
	for _, ex := range []string{"topology-spread", "reserved-instance", "ebs-volume-topology"} {
		var out, stderr bytes.Buffer
		code := run([]string{"solve", "-f", filepath.Join("..", "..", "testdata", "examples", ex), "--verify", "-o", "json"}, &out, &stderr)
		require.Equal(t, exitOK, code, "%s: stderr:\n%s", ex, stderr.String())
		require.NotContains(t, stderr.String(), "violation:", ex)
		require.Contains(t, out.String(), `"nodeClaims"`, ex)
		require.Regexp(t, `(?m)^verify: plan valid \(\d+ pods, \d+ NodeClaims\)$`, stderr.String(), ex)
	}
}
