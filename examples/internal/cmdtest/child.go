package cmdtest

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// ChildVar is the variable that marks the test binary as the command's
// child ([StartChild]).
const ChildVar = "TYPEVET_TEST_CHILD"

// RunChild runs main with the arguments after "--" and exits with the status
// it returns when the test binary was started by [StartChild]; otherwise it
// returns at once and the tests run.
func RunChild(main func(args []string) int) {
	if os.Getenv(ChildVar) != "1" {
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

// StartChild starts the command as a child process with env (and this
// process's PATH and HOME, nothing else) and args; its stdout and stderr
// go to the returned buffer, which is read once the child has ended.
//
// Under go test -short the test is skipped: child processes are the slow
// tier.
func StartChild(t *testing.T, env map[string]string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts the command as a child process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = []string{ChildVar + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
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
