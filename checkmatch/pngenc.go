package checkmatch

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"image"
	"sync"
)

// PNG encoding of renders.
//
// typevet writes its renders with Pillow at zlib level 6 and no metadata.
// image/png at png.DefaultCompression spends about three quarters of a
// render's time choosing a filter per row and deflating; this encoder writes
// the same kind of file (8-bit RGB, non-interlaced, chunks IHDR, IDAT, IEND
// only, no metadata) with the PNG "Up" filter on every row and zlib at
// BestSpeed (byte for byte what compress/zlib writes). The paper rows filter
// to zeros, so the files stay small (about 8% larger than level 6) while
// encoding is three times faster, which
// is what keeps the whole slice under two seconds on one core. Any PNG
// decoder reads the result; tests decode it with image/png and compare
// pixels.

// pngSignature starts every PNG file.
var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// pngScratch is the reusable state of one encode.
type pngScratch struct {
	fw   *flate.Writer
	idat bytes.Buffer
	// zero is a row of zero bytes, the "previous row" of the first row;
	// row is one filtered row plus slack for 8-byte stores.
	zero, row []byte
}

var pngScratches = sync.Pool{New: func() any {
	s := new(pngScratch)
	s.fw, _ = flate.NewWriter(&s.idat, flate.BestSpeed) // level is valid
	return s
}}

// zlibHeader is the two-byte zlib header compress/zlib writes at
// BestSpeed: deflate, 32 KiB window, level hint "fastest".
var zlibHeader = []byte{0x78, 0x01}

// encodeRGBPNG encodes the RGB channels of img (alpha is ignored; renders
// are opaque) as an 8-bit RGB PNG. The image data is the zlib stream
// compress/zlib writes at BestSpeed, framed here so the Adler-32 checksum
// can skip the all-zero words that filtered paper rows consist of.
func encodeRGBPNG(img *image.RGBA) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	s := pngScratches.Get().(*pngScratch)
	defer pngScratches.Put(s)

	s.idat.Reset()
	s.idat.Write(zlibHeader)
	s.fw.Reset(&s.idat)
	n := 1 + 3*w
	if len(s.zero) < 4*w {
		s.zero, s.row = make([]byte, 4*w), make([]byte, n+8)
	}
	row := s.row[:n+8]
	row[0] = 2 // filter type Up
	zeroRow := false
	adler := uint32(1)
	prev := s.zero[:4*w]
	for y := range h {
		cur := img.Pix[y*img.Stride : y*img.Stride+4*w]
		if y > 0 && bytes.Equal(cur, prev) {
			// Common on a check (paper, rows crossed only by vertical
			// edges): the filtered row is all zeros.
			if !zeroRow {
				clear(row[1:n])
				zeroRow = true
			}
			adler = adler32ZeroRow(adler, n)
		} else {
			upFilter(row[1:], cur, prev)
			zeroRow = false
			adler = adler32Update(adler, row[:n])
		}
		if _, err := s.fw.Write(row[:n]); err != nil {
			return nil, err
		}
		prev = cur
	}
	if err := s.fw.Close(); err != nil {
		return nil, err
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], adler)
	s.idat.Write(sum[:])

	out := make([]byte, 0, len(pngSignature)+3*12+13+s.idat.Len())
	out = append(out, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8] = 8 // bit depth
	ihdr[9] = 2 // colour type RGB; compression, filter, interlace methods 0
	out = appendChunk(out, "IHDR", ihdr[:])
	out = appendChunk(out, "IDAT", s.idat.Bytes())
	out = appendChunk(out, "IEND", nil)
	return out, nil
}

// upFilter writes the PNG Up filter of one row, the RGB bytes of cur minus
// those of prev (both 4-byte RGBA pixels, same length), to dst, which needs
// room for 3 bytes per pixel plus 2 bytes of slack. It works on two pixels
// per 64-bit word: a byte-wise subtraction without borrows between bytes,
// then the two RGB triples packed into six bytes.
func upFilter(dst, cur, prev []byte) {
	const hi = 0x8080808080808080
	w := len(cur) / 4
	prev = prev[:len(cur)]
	x := 0
	for ; x+2 <= w; x += 2 {
		a := binary.LittleEndian.Uint64(cur[4*x:])
		b := binary.LittleEndian.Uint64(prev[4*x:])
		d := ((a | hi) - (b &^ hi)) ^ ((a ^ ^b) & hi)
		binary.LittleEndian.PutUint64(dst[3*x:], d&0xffffff|d>>8&0xffffff000000)
	}
	for ; x < w; x++ {
		dst[3*x] = cur[4*x] - prev[4*x]
		dst[3*x+1] = cur[4*x+1] - prev[4*x+1]
		dst[3*x+2] = cur[4*x+2] - prev[4*x+2]
	}
}

// adler32ZeroRow returns adler extended by a filtered row of n bytes that
// are zero after the filter-type byte 2: s1 grows by 2 once, and s2 by s1
// for each of the n bytes.
func adler32ZeroRow(adler uint32, n int) uint32 {
	s1 := (uint64(adler&0xffff) + 2) % adlerMod
	s2 := (uint64(adler>>16) + uint64(n)*s1) % adlerMod
	return uint32(s2<<16 | s1)
}

// adlerMod is the Adler-32 modulus.
const adlerMod = 65521

// adler32Update returns the Adler-32 checksum adler extended by p, equal
// to hash/adler32's. An all-zero 8-byte word only adds 8·s1 to s2, which
// makes the zero rows of filtered paper cheap. Sums are 64-bit and reduced
// every 64 KiB, far below overflow.
func adler32Update(adler uint32, p []byte) uint32 {
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) > 0 {
		chunk := p[:min(len(p), 1<<16)]
		p = p[len(chunk):]
		for len(chunk) >= 8 {
			v := binary.LittleEndian.Uint64(chunk)
			s2 += 8 * s1
			if v != 0 {
				// Bytes b0 … b7 add b0+…+b7 to s1 and 8·b0+7·b1+…+1·b7
				// to s2. Split into even and odd bytes in 16-bit lanes; a
				// multiply by per-lane weights sums lane products into the
				// top lane (each lane stays below 2^16, so no carries).
				even := v & 0x00ff00ff00ff00ff
				odd := v >> 8 & 0x00ff00ff00ff00ff
				s1 += (even + odd) * 0x0001_0001_0001_0001 >> 48
				s2 += even*0x0008_0006_0004_0002>>48 + odd*0x0007_0005_0003_0001>>48
			}
			chunk = chunk[8:]
		}
		for _, b := range chunk {
			s1 += uint64(b)
			s2 += s1
		}
		s1 %= adlerMod
		s2 %= adlerMod
	}
	return uint32(s2<<16 | s1)
}

// appendChunk appends one PNG chunk: length, type, data, CRC of type+data.
func appendChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
