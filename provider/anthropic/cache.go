package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentctx/agentctx/chat"
	"github.com/agentctx/agentctx/provider"
)

// maxBreakpoints is the most cache_control blocks a request may carry
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
const maxBreakpoints = 4

// cacheMarks says which blocks of the wire request get cache_control:
// system blocks by index, and conversation blocks by wire message index
// and block index.
type cacheMarks struct {
	system map[int]bool
	blocks map[int][]int
}

// cachePoints maps [provider.Request].CacheAfter, indexes into msgs, to the
// blocks of the Anthropic shape that end each prefix. The shape merges
// messages (leading system messages become the system blocks; tool
// results and user text of one turn become one user message, results
// first), so the block that ends the prefix msgs[:i+1] is found by
// converting that prefix: its last wire message's last block. When the
// prefix ends in user text and the full turn holds more tool results
// after it, those results move before the text in the merged message; the
// text block's index shifts by their number.
func cachePoints(msgs []chat.Message, after []int) (cacheMarks, error) {
	marks := cacheMarks{system: map[int]bool{}, blocks: map[int][]int{}}
	if len(after) == 0 {
		return marks, nil
	}
	pts := slices.Clone(after)
	slices.Sort(pts)
	pts = slices.Compact(pts)
	if pts[0] < 0 || pts[len(pts)-1] >= len(msgs) {
		return marks, fmt.Errorf("cache breakpoint out of range [0, %d): %w", len(msgs), provider.ErrBadRequest)
	}
	if len(pts) > maxBreakpoints {
		pts = pts[len(pts)-maxBreakpoints:]
	}
	_, full, err := chat.ToAnthropic(msgs)
	if err != nil {
		return marks, err
	}
	for _, i := range pts {
		system, prefix, err := chat.ToAnthropic(msgs[:i+1])
		if err != nil {
			return marks, err
		}
		if len(prefix) == 0 {
			if len(system) > 0 {
				marks.system[len(system)-1] = true
			}
			continue
		}
		w := len(prefix) - 1
		last := prefix[w].Content
		if len(last) == 0 || w >= len(full) {
			continue
		}
		b := len(last) - 1
		if last[b].Type != "tool_result" {
			b += results(full[w].Content) - results(last)
		}
		if b < len(full[w].Content) {
			marks.blocks[w] = append(marks.blocks[w], b)
		}
	}
	return marks, nil
}

// results counts the tool_result blocks of a message.
func results(blocks chat.AnthropicContent) int {
	n := 0
	for _, b := range blocks {
		if b.Type == "tool_result" {
			n++
		}
	}
	return n
}

// withCacheControl adds "cache_control": {"type": "ephemeral"} to the
// given content blocks of an encoded wire message.
func withCacheControl(msg []byte, blocks []int) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	var content []map[string]json.RawMessage
	if err := json.Unmarshal(m["content"], &content); err != nil {
		return nil, fmt.Errorf("cache breakpoint: content: %w", err)
	}
	for _, b := range blocks {
		if b < len(content) {
			content[b]["cache_control"] = json.RawMessage(`{"type":"ephemeral"}`)
		}
	}
	c, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	m["content"] = c
	return json.Marshal(m)
}
