package judgment_test

import (
	"context"
	"testing"

	"github.com/typevet/typevet-go/judgment"
)

func TestPrefixPerFamily(t *testing.T) {
	// The exact bytes of each family, with and without images.
	block := "n: \n\nOptions:\nControl 0 → false\nControl 1 → true\n\n" + digitRule
	text := "S\n\n" + block
	imaged := "<__media__>\nS\n\n" + block
	img := []judgment.Image{{Data: []byte{1}, MIMEType: "image/png"}}
	tests := []struct {
		name   string
		family judgment.Family
		media  []judgment.Image
		want   string
	}{
		{name: "gemma4 text", family: judgment.FamilyGemma4Turn,
			want: "<|turn>user\n" + text + "<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"},
		{name: "gemma4 image", family: judgment.FamilyGemma4Turn, media: img,
			want: "<|turn>user\n" + imaged + "<turn|>\n<|turn>model\n<|channel>thought\n<channel|>"},
		{name: "gemma3 text", family: judgment.FamilyGemma3Turn,
			want: "<start_of_turn>user\n" + text + "<end_of_turn>\n<start_of_turn>model\n"},
		{name: "gemma3 image", family: judgment.FamilyGemma3Turn, media: img,
			want: "<start_of_turn>user\n" + imaged + "<end_of_turn>\n<start_of_turn>model\n"},
		{name: "chatml text", family: judgment.FamilyChatML,
			want: "<|im_start|>user\n" + text + "<|im_end|>\n<|im_start|>assistant\n"},
		{name: "unknown text", family: judgment.FamilyUnknown,
			want: "<|im_start|>user\n" + text + "<|im_end|>\n<|im_start|>assistant\n"},
		{name: "chat text", family: judgment.FamilyChat, want: text},
		{name: "chat image", family: judgment.FamilyChat, media: img, want: imaged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &recordingScorer{}
			j := judgment.NewJudge(s, judgment.JudgeOptions{Family: tt.family})
			_, err := j.Judge(context.Background(), judgment.Request{Model: "m", State: "S", Media: tt.media,
				Questions: []judgment.NamedQuestion{{Name: "n", Question: judgment.Noul{}}}})
			if err != nil {
				t.Fatal(err)
			}
			_, scored := s.calls()
			if got := scored[0].Prefix; got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestClassifyTemplate(t *testing.T) {
	tests := []struct {
		name     string
		rendered string
		want     judgment.Family
	}{
		{name: "gemma4", rendered: "<bos><|turn>user\nhello<turn|>\n<|turn>model\n", want: judgment.FamilyGemma4Turn},
		{name: "gemma4 close only", rendered: "hello<turn|>", want: judgment.FamilyGemma4Turn},
		{name: "gemma3", rendered: "<bos><start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model\n", want: judgment.FamilyGemma3Turn},
		{name: "chatml", rendered: "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", want: judgment.FamilyChatML},
		{name: "none", rendered: "[INST] hello [/INST]", want: judgment.FamilyUnsupported},
		{name: "several", rendered: "<|im_start|><start_of_turn>", want: judgment.FamilyUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := judgment.ClassifyTemplate(tt.rendered); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKindAndFamilyStrings(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"noul", judgment.KindNoul.String(), "noul"},
		{"choice", judgment.KindChoice.String(), "choice"},
		{"score", judgment.KindScore.String(), "score"},
		{"bad kind", judgment.Kind(0).String(), "Kind(0)"},
		{"unknown", judgment.FamilyUnknown.String(), "unknown"},
		{"gemma4", judgment.FamilyGemma4Turn.String(), "native_gemma4_turn"},
		{"gemma3", judgment.FamilyGemma3Turn.String(), "native_gemma3_turn"},
		{"chatml", judgment.FamilyChatML.String(), "degraded_chatml"},
		{"unsupported", judgment.FamilyUnsupported.String(), "unsupported"},
		{"chat", judgment.FamilyChat.String(), "vllm_chat"},
		{"noul kind", judgment.Noul{}.Kind().String(), "noul"},
		{"choice kind", judgment.Choice{}.Kind().String(), "choice"},
		{"score kind", judgment.Score{}.Kind().String(), "score"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
