package judgment

import (
	"fmt"
	"strings"
)

// Family is the served-template family a prefix is composed for.
// llama.cpp sessions classify it with [ClassifyTemplate]; vLLM uses
// [FamilyChat].
type Family int

// The served-template families.
const (
	// FamilyUnknown is an unclassified template: text is framed as ChatML,
	// media is refused.
	FamilyUnknown Family = iota
	// FamilyGemma4Turn is the Gemma 4 turn template (the supported default).
	FamilyGemma4Turn
	// FamilyGemma3Turn is the Gemma 3 turn template.
	FamilyGemma3Turn
	// FamilyChatML is a degraded ChatML template: text only.
	FamilyChatML
	// FamilyUnsupported is a template scoring refuses.
	FamilyUnsupported
	// FamilyChat means the server applies its own chat template (vLLM);
	// the prefix is the user text unchanged.
	FamilyChat
)

// String returns the family name used in messages and receipts.
func (f Family) String() string {
	switch f {
	case FamilyUnknown:
		return "unknown"
	case FamilyGemma4Turn:
		return "native_gemma4_turn"
	case FamilyGemma3Turn:
		return "native_gemma3_turn"
	case FamilyChatML:
		return "degraded_chatml"
	case FamilyUnsupported:
		return "unsupported"
	case FamilyChat:
		return "vllm_chat"
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// Template markers.
const (
	gemma4Open      = "<|turn>"
	gemma4Close     = "<turn|>"
	gemma4Model     = "<|turn>model\n"
	gemma4Prefill   = "<|channel>thought\n<channel|>"
	gemma3Open      = "<start_of_turn>"
	gemma3Close     = "<end_of_turn>"
	chatMLStart     = "<|im_start|>"
	chatMLEnd       = "<|im_end|>"
	chatMLAssistant = "<|im_start|>assistant\n"
)

// ClassifyTemplate classifies the prompt llama.cpp's /apply-template
// rendered for one user message: exactly one of the Gemma 4
// (<|turn> or <turn|>), Gemma 3 (<start_of_turn> or <end_of_turn>) and
// ChatML (<|im_start|>) marker sets present gives that family; none or
// several give [FamilyUnsupported].
func ClassifyTemplate(rendered string) Family {
	var found []Family
	if strings.Contains(rendered, gemma4Open) || strings.Contains(rendered, gemma4Close) {
		found = append(found, FamilyGemma4Turn)
	}
	if strings.Contains(rendered, gemma3Open) || strings.Contains(rendered, gemma3Close) {
		found = append(found, FamilyGemma3Turn)
	}
	if strings.Contains(rendered, chatMLStart) {
		found = append(found, FamilyChatML)
	}
	if len(found) == 1 {
		return found[0]
	}
	return FamilyUnsupported
}

// composePrefix wraps the user text for the family. images is
// the number of images of the request.
func composePrefix(f Family, user string, images int) (string, error) {
	switch f {
	case FamilyGemma4Turn:
		return gemma4Open + "user\n" + user + gemma4Close + "\n" + gemma4Model + gemma4Prefill, nil
	case FamilyGemma3Turn:
		return gemma3Open + "user\n" + user + gemma3Close + "\n" + gemma3Open + "model\n", nil
	case FamilyUnknown, FamilyChatML:
		if images > 0 {
			return "", judgmentErr(fmt.Sprintf("media scoring needs a native Gemma 3 or Gemma 4 served template (served template=%s)", f))
		}
		return chatMLStart + "user\n" + user + chatMLEnd + "\n" + chatMLAssistant, nil
	case FamilyChat:
		return user, nil
	}
	return "", judgmentErr(fmt.Sprintf("scoring does not support this served template (served template=%s)", f))
}

// checkThinkingGuard refuses a prefix whose last turn opener after the
// field block opens a Gemma 4 model turn without the no-thinking prefill
// (typevet #354: without it nearly all mass goes off the menu).
func checkThinkingGuard(f Family, prefix, fieldBlock string) error {
	tail := prefix
	if i := strings.LastIndex(prefix, fieldBlock); i >= 0 {
		tail = prefix[i+len(fieldBlock):]
	}
	last, at := "", -1
	for _, opener := range []string{chatMLStart, gemma3Open, gemma4Open} {
		if i := strings.LastIndex(tail, opener); i > at {
			last, at = opener, i
		}
	}
	if last == gemma4Open && strings.HasPrefix(tail[at:], gemma4Model) && !strings.HasSuffix(prefix, gemma4Prefill) {
		return &GemmaTemplateError{Msg: fmt.Sprintf("framing %s renders a Gemma 4 model turn without the no-thinking prefill", f)}
	}
	return nil
}
