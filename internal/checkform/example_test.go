package checkform_test

import (
	"fmt"

	"github.com/typevet/typevet-go/internal/checkform"
)

func Example() {
	var faces checkform.Faces
	payee := checkform.Payee
	face := faces.At(payee.Size)
	fmt.Println(checkform.Width, checkform.Height)
	fmt.Println(payee.Name, payee.X, payee.Y, payee.Size)
	fmt.Println("baseline", payee.Baseline(checkform.Ascent(face)))
	fmt.Println(checkform.NumericText(118815))
	fmt.Println(checkform.SignatureBox.Rect())
	// Output:
	// 1000 440
	// payee 130 152 22
	// baseline 173
	// $ 1,188.15
	// (600,300)-(940,350)
}
