//go:build race

package backendhttp

// raceEnabled is true when the tests run under the race detector, whose
// sync.Pool drops a quarter of what is put back.
const raceEnabled = true
