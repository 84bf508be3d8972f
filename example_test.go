package typevet_test

import (
	"bufio"
	"fmt"

	typevet "github.com/typevet/typevet-go"
)

// Sources holds the run's own source files, so a receipt's code digests
// name exactly the code that ran.
func ExampleSources() {
	f, err := typevet.Sources().Open("pool/pool.go")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); len(line) > 8 && line[:8] == "package " {
			fmt.Println(line)
			break
		}
	}
	// Output: package pool
}
