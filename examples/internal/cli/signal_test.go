package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const signalHelperEnv = "TYPEVET_CLI_SIGNAL_HELPER"

// TestSignalContextSecondInterruptKills runs this test binary as a child
// that takes one interrupt through SignalContext and then keeps
// interrupting itself: the first must cancel the context, a later one must
// kill the process (exit by SIGINT, not the child's own exit status 3).
func TestSignalContextSecondInterruptKills(t *testing.T) {
	if os.Getenv(signalHelperEnv) == "1" {
		signalHelper()
		return
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^TestSignalContextSecondInterruptKills$")
	cmd.Env = append(os.Environ(), signalHelperEnv+"=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "child must fail: %v\n%s", err, out)
	ws, ok := ee.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled(), "child must be killed by a signal, got exit status %d\n%s", ws.ExitStatus(), out)
	assert.Equal(t, syscall.SIGINT, ws.Signal())
	assert.Contains(t, string(out), "cancelled", "the first interrupt cancelled the context")
}

// signalHelper is the child: exit status 2 if the first interrupt did not
// cancel the context, 3 if later interrupts did not kill it.
func signalHelper() {
	ctx, stop := SignalContext(context.Background())
	defer stop()
	_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-ctx.Done():
		os.Stdout.WriteString("cancelled\n")
	case <-time.After(30 * time.Second):
		os.Exit(2)
	}
	for range 3000 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(10 * time.Millisecond)
	}
	os.Exit(3)
}

// TestSignalContextTermAndHup: SIGTERM and SIGHUP cancel the context like
// Ctrl-C instead of killing the process.
func TestSignalContextTermAndHup(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, stop := SignalContext(context.Background())
			defer stop()
			require.NoError(t, syscall.Kill(os.Getpid(), sig))
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("signal did not cancel the context")
			}
		})
	}
}

func TestSignalContextParentCancel(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	ctx, stop := SignalContext(parent)
	defer stop()
	cancel()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}
