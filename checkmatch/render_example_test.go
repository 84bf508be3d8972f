package checkmatch_test

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/typevet/typevet-go/checkmatch"
)

func ExampleRender() {
	cases, err := checkmatch.Cases(0, 1)
	if err != nil {
		panic(err)
	}
	b, err := checkmatch.Render(cases[0])
	if err != nil {
		panic(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		panic(err)
	}
	fmt.Println(cases[0].ID(), img.Bounds().Size())
	r, g, bl, _ := img.At(20, 120).RGBA()
	fmt.Println("paper", r>>8, g>>8, bl>>8)
	// Output:
	// r00:clean (1000,440)
	// paper 246 243 232
}

func ExampleWriteContactSheet() {
	cases, err := checkmatch.Cases(1, 1)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	// One thumbnail: the low-legibility case of row 0.
	if err := checkmatch.WriteContactSheet(&buf, cases[6:], checkmatch.SheetOptions{}); err != nil {
		panic(err)
	}
	cfg, err := png.DecodeConfig(&buf)
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.Width, cfg.Height)
	// Output:
	// 500 284
}

func ExampleRendererPin() {
	pin := checkmatch.RendererPin()
	fmt.Println(pin.Font, pin.FontSHA256[:12], pin.Blur, pin.PNG)
	// Output:
	// Go Regular 197d9f3703b4 pillow-extended-box-3pass rgb8-up-zlib1
}
