//go:build race

package disruption_test

// raceEnabled: the tests run under the race detector (ten times slower),
// where the measurements of quality are skipped.
const raceEnabled = true
