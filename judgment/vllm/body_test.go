package vllm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/typevet/typevet-go/internal/backendhttp"
	"github.com/typevet/typevet-go/judgment"
	"github.com/typevet/typevet-go/judgment/judgmenttest"
)

// joinedChatBody is chatBody as it was before issue 18: encoding/json's
// JSON of the ChatRequest with every data URI copied in, one fresh body
// per question. It is the baseline of BenchmarkChatBody and the oracle of
// TestChatBodyBytes and FuzzChatBodyBytes.
func joinedChatBody(ctx context.Context, req judgment.ScoringRequest) []byte {
	ids := make([]int, len(req.Candidates))
	for i, c := range req.Candidates {
		ids[i] = c.TokenID
	}
	b, _ := json.Marshal(ChatRequest{
		Model:                  req.Model,
		Messages:               []ChatMessage{{Role: "user", Content: content(req.Prefix, len(req.Media))}},
		MaxTokens:              1,
		Logprobs:               true,
		LogprobTokenIDs:        ids,
		ReturnTokensAsTokenIDs: true,
		AddGenerationPrompt:    true,
	})
	if len(req.Media) == 0 {
		return b
	}
	const slot = `"url":"`
	uris := make([]string, len(req.Media))
	size := len(b)
	for i, im := range req.Media {
		uris[i] = backendhttp.DataURI(ctx, im)
		size += len(uris[i])
	}
	out := make([]byte, 0, size)
	for _, uri := range uris {
		i := bytes.Index(b, []byte(slot)) + len(slot)
		out = append(out, b[:i]...)
		out = append(out, uri...)
		b = b[i:]
	}
	return append(out, b...)
}

// content builds the message content: the prefix string
// without images; with images the prefix split at each "<__media__>": the
// first piece as a text block when non-empty, then per image an image_url
// block (url left empty for joinedChatBody to fill) followed by the next piece,
// minus one leading "\n", when non-empty.
func content(prefix string, images int) any {
	if images == 0 {
		return prefix
	}
	pieces := strings.Split(prefix, judgment.MediaMarker)
	blocks := make([]ContentBlock, 0, 2*images+1)
	if pieces[0] != "" {
		blocks = append(blocks, ContentBlock{Type: "text", Text: pieces[0]})
	}
	for i := range images {
		blocks = append(blocks, ContentBlock{Type: "image_url", ImageURL: &ImageURL{}})
		if i+1 < len(pieces) {
			if t := strings.TrimPrefix(pieces[i+1], "\n"); t != "" {
				blocks = append(blocks, ContentBlock{Type: "text", Text: t})
			}
		}
	}
	return blocks
}

// scoringRequest is a check question's scoring request with images
// copies of the check PNG.
func scoringRequest(images int) judgment.ScoringRequest {
	png := judgmenttest.CheckPNG()
	req := judgment.ScoringRequest{Model: "m", Prefix: "Look:",
		Candidates: []judgment.Candidate{{Label: "0", TokenID: 236771}, {Label: "1", TokenID: 236770}}}
	for i := range images {
		req.Prefix += judgment.MediaMarker + "\nimage " + string(rune('a'+i))
		req.Media = append(req.Media, judgment.Image{Data: png, MIMEType: "image/png"})
	}
	return req
}

// TestChatBodyBytes: the spliced body sends exactly the bytes of the
// joined one, and its length.
func TestChatBodyBytes(t *testing.T) {
	for images := range 3 {
		req := scoringRequest(images)
		ctx := backendhttp.WithMedia(context.Background(), req.Media)
		r, n := chatBody(ctx, req).reader()
		got, _ := io.ReadAll(r)
		want := joinedChatBody(ctx, req)
		if !bytes.Equal(got, want) || n != int64(len(want)) {
			t.Fatalf("%d images: body of %d bytes (said %d) differs from the joined %d", images, len(got), n, len(want))
		}
		r, _ = chatBody(ctx, req).reader()
		if err := iotest.TestReader(r, want); err != nil {
			t.Fatalf("%d images: %v", images, err)
		}
	}
}

// BenchmarkChatBody builds and sends (to io.Discard) the body of one
// question about the check image, its data URI encoded once per judgment
// (as the Judge does): Joined is the body before issue 18, a fresh copy
// with the ~150 KB URI per question; Spliced is today's.
func BenchmarkChatBody(b *testing.B) {
	req := scoringRequest(1)
	ctx := backendhttp.WithMedia(context.Background(), req.Media)
	b.Run("Joined", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			io.Copy(io.Discard, bytes.NewReader(joinedChatBody(ctx, req)))
		}
	})
	b.Run("Spliced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, _ := chatBody(ctx, req).reader()
			io.Copy(io.Discard, r)
		}
	})
}

// FuzzChatBodyBytes: for any model, prefix text (with its markers) and
// candidates, the spliced body is byte for byte encoding/json's (the
// joined body before issue 18).
func FuzzChatBodyBytes(f *testing.F) {
	for _, s := range []string{"Look:", "a<b>&c\"d\\e\x00\x1f\x7f\b\f\n\r\t", "\u2028\u2029é\xff\xfe", judgment.MediaMarker, "\n"} {
		f.Add("gemma-4-31b-it", s, s, uint8(0), 236771)
		f.Add("m<&>\u2028", s, "\n"+s, uint8(1), 0)
		f.Add("m", "", s, uint8(2), -1)
	}
	png := judgmenttest.CheckPNG()[:64]
	f.Fuzz(func(t *testing.T, model, head, tail string, images uint8, id int) {
		req := judgment.ScoringRequest{Model: model, Prefix: head,
			Candidates: []judgment.Candidate{{Label: "0", TokenID: id}, {Label: "1", TokenID: id / 2}}}
		for i := range int(images % 3) {
			req.Prefix += judgment.MediaMarker + tail
			req.Media = append(req.Media, judgment.Image{Data: png[i:], MIMEType: "image/png"})
		}
		if strings.Count(req.Prefix, judgment.MediaMarker) != len(req.Media) {
			return // refused by ScoringRequest.Validate before any body is built
		}
		ctx := backendhttp.WithMedia(context.Background(), req.Media)
		r, n := chatBody(ctx, req).reader()
		got, _ := io.ReadAll(r)
		if want := joinedChatBody(ctx, req); !bytes.Equal(got, want) || n != int64(len(want)) {
			t.Fatalf("body\n%q (said %d)\nwant\n%q", got, n, want)
		}
	})
}
