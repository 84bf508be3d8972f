//go:build race

package main

// raceEnabled is true under the race detector, where a sheet takes about
// twenty times longer to draw; the heaviest test is skipped then.
const raceEnabled = true
