package cmdtest_test

import (
	"fmt"
	"os/exec"

	"github.com/typevet/typevet-go/examples/internal/cmdtest"
)

// A test builds the commands it drives once, then runs them as a user
// would.
func Example() {
	dir, err := cmdtest.Build("checkmatch")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := exec.Command(cmdtest.Exe(dir, "checkmatch"), "-h").CombinedOutput()
	fmt.Printf("%s", out)
}
