package fake

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/typevet/typevet-go/judgment"
)

// EnvDistributions names the environment variable that holds the path of
// the distributions JSON file.
const EnvDistributions = "TYPEVET_FAKE__DISTRIBUTIONS"

// Settings configures [Open]. The zero value means no distributions file:
// every question is answered uniformly.
type Settings struct {
	// DistributionsPath is the distributions JSON file ("" = none); see
	// [ParseDistributions].
	DistributionsPath string
}

// SettingsFromEnv builds Settings from lookup (pass os.LookupEnv). An unset
// or empty TYPEVET_FAKE__DISTRIBUTIONS means no file; a whitespace-only
// value is an error. Errors name the variable, never its value.
func SettingsFromEnv(lookup func(string) (string, bool)) (Settings, error) {
	v, ok := lookup(EnvDistributions)
	if !ok || v == "" {
		return Settings{}, nil
	}
	if strings.TrimSpace(v) == "" {
		return Settings{}, errors.New(EnvDistributions + " must be a file path when set")
	}
	return Settings{DistributionsPath: v}, nil
}

// Open reads the distributions file of s, if any, and returns the fake
// port ([New]).
func Open(s Settings) (judgment.Port, error) {
	if s.DistributionsPath == "" {
		return New(nil), nil
	}
	f, err := os.Open(s.DistributionsPath)
	if err != nil {
		return nil, fmt.Errorf("fake: open distributions file: %w", err)
	}
	defer f.Close()
	d, err := ParseDistributions(f)
	if err != nil {
		return nil, fmt.Errorf("fake: %s: %w", s.DistributionsPath, err)
	}
	return New(d), nil
}
