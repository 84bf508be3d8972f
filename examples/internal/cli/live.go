package cli

import "strings"

// RequireLiveEnv makes an opt-in live test fail instead of skipping when
// its receipt variable is unset.
const RequireLiveEnv = "TYPEVET_REQUIRE_LIVE"

// RequireLive reports whether TYPEVET_REQUIRE_LIVE (stripped, lower-cased)
// is 1, true, yes or on.
func RequireLive(lookup func(string) (string, bool)) bool {
	v, _ := lookup(RequireLiveEnv)
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// TB is the part of testing.TB that [LiveReceipt] uses. It is declared
// here so the commands' binaries do not link package testing.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// LiveReceipt applies typevet's live-test rule to the
// receipt variable env: it returns the stripped path when set; when unset
// or blank it skips t with "<env> not set", or fails it when
// [RequireLive] is true. Pass the live test's *testing.T.
func LiveReceipt(t TB, env string, lookup func(string) (string, bool)) string {
	t.Helper()
	path, _ := lookup(env)
	path = strings.TrimSpace(path)
	if path == "" {
		if RequireLive(lookup) {
			t.Fatalf("%s not set and %s is on", env, RequireLiveEnv)
		}
		t.Skip(env + " not set")
	}
	return path
}
