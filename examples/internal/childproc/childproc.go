// Package childproc lets a command's tests run the command as a child
// process of the test binary, so they can meet it as a user does: kill it
// with SIGKILL, stop it with SIGTERM, and read what it left on disk.
//
// A command's TestMain calls [Run] first with its main body; [Start] then
// starts the test binary again with [Var] set, and [Run] in that child runs
// the body with the arguments after "--" and exits with its status.
package childproc

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// Var is the variable that marks the test binary as the command's child.
const Var = "TYPEVET_TEST_CHILD"

// Run runs main with the arguments after "--" and exits with the status
// it returns when the test binary was started by [Start]; otherwise it
// returns at once and the tests run.
func Run(main func(args []string) int) {
	if os.Getenv(Var) != "1" {
		return
	}
	args := os.Args[1:]
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(main(args))
}

// Start starts the command as a child process with env (and this
// process's PATH and HOME, nothing else) and args; its stdout and stderr
// go to the returned buffer, which is read once the child has ended.
func Start(t *testing.T, env map[string]string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = []string{Var + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
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
