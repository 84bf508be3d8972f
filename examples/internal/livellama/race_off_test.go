//go:build !race

package livellama

const raceEnabled = false
