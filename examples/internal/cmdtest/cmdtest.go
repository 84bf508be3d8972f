// Package cmdtest runs an example command as a child process of its own
// test binary, so a test can meet the command as a user does: a real
// process with its own signals (SIGKILL, SIGTERM), files and exit status,
// without building it first.
//
// In the command's TestMain, call [ChildMain] first; a test then starts
// the command with [Start].
package cmdtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// ChildMain makes the test binary the command when the variable envName
// is "1": it calls run with the arguments after "--" and exits with the
// status run returns. Otherwise it returns at once. Call it first in
// TestMain.
func ChildMain(envName string, run func(args []string) int) {
	if os.Getenv(envName) != "1" {
		return
	}
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args))
}

// Start starts the test binary as the command ([ChildMain] with envName)
// with args and an environment of env, PATH and HOME only. Its stdout and
// stderr go to the returned buffer; read it after Wait.
func Start(t testing.TB, envName string, env map[string]string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = []string{envName + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}
