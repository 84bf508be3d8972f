//go:build race

package livellama

// raceEnabled: the live test runs once, in the non-race pass of CI; the
// real server's work would only double under the race detector.
const raceEnabled = true
