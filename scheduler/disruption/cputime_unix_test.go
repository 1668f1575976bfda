//go:build unix

package disruption_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system), ok
// false where it cannot be read.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
