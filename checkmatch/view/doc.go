// Package view builds a static, self-contained web site of check-match
// receipts (ours or typevet's): a summary of each run, a reliability
// diagram per Noul, a verdict × variant table, accuracy and legibility by
// variant, and a filterable table of every case with its check image.
//
// A receipt holds no images, only each render's SHA-256. The viewer
// re-renders every case from the receipt's generator seed and case id with
// [checkmatch.Render] and shows the image only when its SHA-256 equals the
// receipt's render_sha256, so what is shown is provably the image that was
// judged; any other case is marked "render not reproducible here" (every
// case of a typevet receipt, whose images Pillow drew), never shown with a
// different picture.
//
// The site is plain HTML from html/template, one style sheet and a little
// plain JavaScript for the filters, all embedded in the package; every link
// is relative and nothing is fetched from the network, so the site opens
// from the file system in any browser. With two receipts of one slice it
// adds a side-by-side page, discordant cases first.
//
//	site, err := view.Build([]view.Input{{Name: "run.json", Receipt: r}}, view.Options{})
//	if err != nil { … }
//	err = site.WriteDir("site") // site/index.html
package view
