// Package cmdtest builds the commands under examples/ for the tests that
// drive them as child processes, once per test binary, into a directory
// kept between test runs: go build leaves a binary whose build ID is
// already the one it would write alone, so a second `go test` of an
// unchanged tree links nothing (linking the ten commands costs about 16 s
// of CPU on the 2-core test machine), and a changed tree relinks exactly
// the commands the change reaches ([Build], [Exe]).
//
// A test that must kill or stop the command mid-run (SIGKILL, SIGTERM) and
// read what it left on disk runs it instead as a child process of its own
// test binary: the command's TestMain calls [RunChild] first with its main
// body, and [StartChild] starts the test binary again as the command.
// It is internal and only for tests.
package cmdtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// module is the import path of the commands' module.
const module = "github.com/typevet/typevet-go"

// EnvDir names a directory to build the commands in instead of the kept
// one under the user cache directory.
const EnvDir = "TYPEVET_TEST_COMMANDS_DIR"

var (
	mu    sync.Mutex
	built = map[string]error{} // by command name
)

// Build builds the commands named (directories under examples/) with the
// go on PATH into [Dir] and returns that directory. Each command is built
// at most once per process; go build relinks it only when its code
// changed since the last test run. A build that fails returns go build's
// output in the error.
func Build(names ...string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	mu.Lock()
	defer mu.Unlock()
	var todo []string
	for _, n := range names {
		if err, ok := built[n]; ok {
			if err != nil {
				return "", err
			}
			continue
		}
		todo = append(todo, n)
	}
	if len(todo) == 0 {
		return dir, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go on PATH to build the commands: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	args := []string{"build", "-o", dir + string(os.PathSeparator)}
	for _, n := range todo {
		args = append(args, module+"/examples/"+n)
	}
	out, err := exec.Command(goBin, args...).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("go build: %v\n%s", err, out)
	}
	for _, n := range todo {
		built[n] = err
	}
	return dir, err
}

// Exe returns the path of command name in dir, as [Build] writes it.
func Exe(dir, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(dir, name)
}

// Dir returns the directory the commands are built in: [EnvDir] if set,
// else typevet-go-test-commands/<digest of the module's directory> under
// the user cache directory (one per checkout, so two worktrees never
// share binaries), made if missing.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory to keep the built commands in (set %s): %w", EnvDir, err)
	}
	sum := sha256.Sum256([]byte(root))
	d := filepath.Join(cache, "typevet-go-test-commands", hex.EncodeToString(sum[:8]))
	return d, os.MkdirAll(d, 0o755)
}

// moduleRoot returns the directory of the go.mod above the working
// directory (a test runs in its package's directory).
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module "+module+"\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of %s above %s", module, wd)
		}
	}
}
