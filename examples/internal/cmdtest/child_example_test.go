package cmdtest_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/typevet/typevet-go/examples/internal/cmdtest"
)

// ExampleRun is the TestMain of a command's tests: the child runs the
// command's body (here one that prints its arguments), the parent runs
// the tests, which start children with cmdtest.StartChild.
func ExampleRunChild() {
	var m *testing.M // the TestMain argument
	cmdtest.RunChild(func(args []string) int {
		fmt.Println(args)
		return 0
	})
	if m != nil {
		os.Exit(m.Run())
	}
	fmt.Println("not a child: the tests run")
	// Output: not a child: the tests run
}
