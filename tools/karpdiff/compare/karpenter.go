package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nodeplan/nodeplan/tools/karpdiff/plan"
)

// errKarpenterCrash marks a Karpenter run that died (a panic, a signal, a
// timeout) rather than one that rejected its input.
var errKarpenterCrash = errors.New("karpenter crashed")

// solveKarpenter runs `karpdiff karpenter` in a child process on the
// scenario folder (Karpenter's label vocabulary is process-wide state) and
// decodes its plan.
func solveKarpenter(ctx context.Context, self, dir string, runs int, timeout time.Duration) (plan.Plan, float64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, self, "karpenter", "-f", dir, "--catalog", filepath.Join(dir, "catalog.json"), "-o", "json", "--runs", strconv.Itoa(runs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	seconds := time.Since(start).Seconds()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 && ctx.Err() == nil {
			return plan.Plan{}, seconds, fmt.Errorf("karpenter rejects the input: %s", lastLine(stderr.String()))
		}
		return plan.Plan{}, seconds, fmt.Errorf("%w: %v: %s", errKarpenterCrash, err, firstPanicLine(stderr.String()))
	}
	p, err := plan.Decode(stdout.Bytes())
	return p, seconds, err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// firstPanicLine returns the panic message of a Go crash, or the last line.
func firstPanicLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			return l
		}
	}
	return lastLine(s)
}
