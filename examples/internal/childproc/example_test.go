package childproc_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/typevet/typevet-go/examples/internal/childproc"
)

// ExampleRun is the TestMain of a command's tests: the child runs the
// command's body (here one that prints its arguments), the parent runs
// the tests, which start children with childproc.Start.
func ExampleRun() {
	var m *testing.M // the TestMain argument
	childproc.Run(func(args []string) int {
		fmt.Println(args)
		return 0
	})
	if m != nil {
		os.Exit(m.Run())
	}
	fmt.Println("not a child: the tests run")
	// Output: not a child: the tests run
}
