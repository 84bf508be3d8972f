package cmdtest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/typevet/typevet-go/examples/internal/cmdtest"
)

// The command's TestMain makes the test binary the command when started
// as its child; every other start runs the tests.
func ExampleChildMain() {
	cmdtest.ChildMain("MYCOMMAND_TEST_CHILD", func(args []string) int {
		fmt.Println("the command would run with", args)
		return 0
	})
	fmt.Println("not a child: run the tests")
	// Output: not a child: run the tests
}

func TestStartRunsTheChild(t *testing.T) {
	cmd, out := cmdtest.Start(t, "CMDTEST_CHILD", map[string]string{"CMDTEST_WORD": "hello"}, "a", "b")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got, want := out.String(), "child [a b] hello\n"; got != want {
		t.Fatalf("child printed %q, want %q", got, want)
	}
}

func TestMain(m *testing.M) {
	cmdtest.ChildMain("CMDTEST_CHILD", func(args []string) int {
		fmt.Println("child", args, os.Getenv("CMDTEST_WORD"))
		return 0
	})
	os.Exit(m.Run())
}
