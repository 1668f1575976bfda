package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/nodeplan/nodeplan/instancetypes"
	"github.com/nodeplan/nodeplan/instancetypes/aws"
	"github.com/nodeplan/nodeplan/scheduler"
	"github.com/nodeplan/nodeplan/scheduler/manifest"
	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
)

// solveNodeplan solves the scenario folder with nodeplan in process, the way
// `nodeplan solve -f DIR --catalog DIR/catalog.json -o json` does with its
// default options (preference policy Respect, minValues Strict): the same
// manifest decoding, catalog decoding, options and plan JSON. A panic is an
// error.
func solveNodeplan(files []manifest.File, catalogJSON []byte) (p plan.Plan, seconds float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("nodeplan panicked: %v", r)
		}
	}()
	in, err := manifest.Decode(files)
	if err != nil {
		return plan.Plan{}, 0, fmt.Errorf("nodeplan rejects the input: %w", err)
	}
	cat, err := instancetypes.Decode(catalogJSON, aws.Vocabulary())
	if err != nil {
		return plan.Plan{}, 0, fmt.Errorf("nodeplan rejects the catalog: %w", err)
	}
	prepared, err := scheduler.Prepare(cat) // outside the timing, as the command line loads it
	if err != nil {
		return plan.Plan{}, 0, err
	}
	opts := append(in.Options(), scheduler.WithPrepared(prepared),
		scheduler.WithPreferencePolicy(scheduler.PreferenceRespect),
		scheduler.WithMinValuesPolicy(scheduler.MinValuesStrict))
	start := time.Now()
	res, err := scheduler.Solve(in.Pods, in.NodePools, cat, opts...)
	seconds = time.Since(start).Seconds()
	if err != nil {
		return plan.Plan{}, seconds, fmt.Errorf("nodeplan: %w", err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return plan.Plan{}, seconds, err
	}
	p, err = plan.Decode(data)
	return p, seconds, err
}

// solveNodeplanBinary runs a nodeplan binary on the scenario folder.
func solveNodeplanBinary(ctx context.Context, bin, dir string) (plan.Plan, float64, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "solve", "-f", dir, "--catalog", filepath.Join(dir, "catalog.json"), "-o", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	seconds := time.Since(start).Seconds()
	if err != nil {
		return plan.Plan{}, seconds, fmt.Errorf("%s: %w: %s", bin, err, lastLine(stderr.String()))
	}
	p, err := plan.Decode(stdout.Bytes())
	return p, seconds, err
}
