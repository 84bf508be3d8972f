// Package view builds a static, self-contained web site of check-match
// receipts (ours or typevet's): a summary of each run, a reliability
// diagram per Noul, a verdict × variant table, accuracy and legibility by
// variant, and a filterable table of every case with its check image, the
// register row it was judged against (payee, amount, date, check number),
// its verdict distribution as labelled numbers and, on demand, the four
// questions as the request builder words them. A click on a check opens the
// judged PNG at full resolution. A case table longer than
// [Options.CasesPerPage] continues on further pages, so a receipt of
// 100,000 cases opens as quickly as one of 140. Receipts are checked with
// [checkmatch.Receipt.Validate] and [checkmatch.Receipt.CheckMetrics]
// first: an impossible value is an error, never a number on a page.
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
// adds a side-by-side page, discordant cases first, with the exact and
// mid-p McNemar tests and the register-row sign-flip test when the two
// judged the same images (the same pins.slice_sha256), and the pins that
// differ between them as notes.
//
//	site, err := view.Build([]view.Input{{Name: "run.json", Receipt: r}}, view.Options{})
//	if err != nil { … }
//	err = site.WriteDir("site") // site/index.html
package view
