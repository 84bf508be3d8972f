package pytext_test

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/pytext"
)

func Example() {
	fmt.Println(pytext.Repr("it's"), pytext.ReprList([]string{"(none)", "0"}))
	fmt.Printf("%q\n", pytext.Strip("\x1c label \u3000"))
	fmt.Printf("%q\n", pytext.SplitLines("a\r\nb\u2028c\n"))
	fmt.Println(pytext.IsIdentifier("café"), pytext.IsIdentifier("7up"))
	fmt.Println(pytext.IsDigit('²'), pytext.IsDigit('①'), pytext.IsDigit('½'))
	// Output:
	// "it's" ['(none)', '0']
	// "label"
	// ["a" "b" "c"]
	// true false
	// true true false
}
