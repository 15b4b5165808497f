package proxy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"

	"github.com/agentctx/agentctx/chat"
)

// fingerprint identifies a message's model-visible content: role, name and
// parts. It leaves out what the proxy or the Engine may set on a message
// without changing what the model reads: the id, model and usage of an
// assistant message and the tool name on a tool result.
type fingerprint [2]uint64

// fingerprintOf returns m's fingerprint: two hashes of a length-prefixed
// rendering with independent seeds (hash/maphash, seeded once per
// process: fingerprints compare within one proxy only), so a collision
// needs both to collide.
func fingerprintOf(m chat.Message) fingerprint {
	var a, b maphash.Hash
	a.SetSeed(seedA)
	b.SetSeed(seedB)
	w := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		_, _ = a.Write(n[:])
		_, _ = a.WriteString(s)
		_, _ = b.Write(n[:])
		_, _ = b.WriteString(s)
	}
	writeMessage(w, m)
	return fingerprint{a.Sum64(), b.Sum64()}
}

// writeMessage writes m's model-visible content to w, one length-prefixed
// string at a time: what fingerprintOf and stableHash hash.
func writeMessage(w func(string), m chat.Message) {
	w(string(m.Role))
	w(m.Name)
	for _, p := range m.Parts {
		switch p := p.(type) {
		case chat.Text:
			w("t")
			w(p.Text)
		case chat.ToolCall:
			w("c")
			w(p.ID)
			w(p.Name)
			w(string(p.Arguments))
		case chat.ToolResult:
			w("r")
			w(p.ToolCallID)
			w(p.Content)
			if p.IsError {
				w("e")
			}
		case chat.Thinking:
			w("k")
			w(p.Text)
			w(p.Signature)
			w(p.Encrypted)
		case chat.Image:
			w("i")
			w(fmt.Sprint(p.Source, p.Width, p.Height, p.Bytes))
		case chat.Opaque:
			w("o")
			w(p.Kind)
			w(string(p.Raw))
		}
	}
}

// fingerprints returns the fingerprints of c's messages, computed once
// per request (the history is fingerprinted to find what is new and again
// to render).
func (c *conversation) fingerprints() []fingerprint {
	if c.fps == nil {
		c.fps = make([]fingerprint, len(c.msgs))
		for i, m := range c.msgs {
			c.fps[i] = fingerprintOf(m)
		}
	}
	return c.fps
}

// renderMessages writes the Engine's messages (system prompt excluded) as
// elements of the request's "messages" array. Where a run of them equals
// every message that one element of the agent's request held, that
// element's own bytes are used: its cache_control markers, image data,
// signatures and unknown fields stay as the agent sent them. Other
// messages (summaries, masked or cut tool results, synthetic results) are
// converted with the chat package. The leading elements c.lead (OpenAI's
// system messages) come first, unchanged.
//
// It returns an error when a message cannot be written in the wire format,
// or holds an image whose data the message model did not keep.
func renderMessages(b *body, c *conversation, fps []fingerprint, out []chat.Message) ([][]byte, int, error) {
	// The elements by the fingerprint of their first message.
	first := map[fingerprint][]int{}
	for i := range c.msgs {
		if i == 0 || c.group[i] != c.group[i-1] {
			first[fps[i]] = append(first[fps[i]], i)
		}
	}
	elems := make([][]byte, 0, c.lead+len(out))
	for i := 0; i < c.lead; i++ {
		elems = append(elems, b.elem(i))
	}
	var pending []chat.Message
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		raws, err := convert(b.wire, c, pending)
		if err != nil {
			return err
		}
		elems = append(elems, raws...)
		pending = pending[:0]
		return nil
	}
	kept := 0
	outFps := make([]fingerprint, len(out))
	for i, m := range out {
		outFps[i] = fingerprintOf(m)
	}
	next := 0 // elements before next were used or passed
	for k := 0; k < len(out); {
		if g, n, ok := matchElement(c, fps, first[outFps[k]], outFps[k:], next); ok {
			if err := flush(); err != nil {
				return nil, 0, err
			}
			for e := c.group[g]; e < c.groupEnd[g]; e++ {
				elems = append(elems, b.elem(e))
				kept++
			}
			next = g + n
			k += n
			continue
		}
		if hasImage(out[k]) {
			return nil, 0, fmt.Errorf("message %d: an image changed by compaction cannot be sent without its data", k)
		}
		pending = append(pending, out[k])
		k++
	}
	if err := flush(); err != nil {
		return nil, 0, err
	}
	if b.wire == WireAnthropic && len(b.elems) > c.lead && len(elems) > 0 {
		// The agent's last message usually carries a prompt-cache
		// breakpoint (Claude Code sets one): when that message went out
		// rewritten (cut by the limiter), the breakpoint moves to the last
		// message sent, so the cache still gets written there.
		lastAgent := b.elem(len(b.elems) - 1)
		last := elems[len(elems)-1]
		if cc := lastCacheControl(lastAgent); cc != nil && !bytes.Equal(last, lastAgent) && !bytes.Contains(last, []byte(`"cache_control"`)) {
			if l, ok := bytes.CutSuffix(last, []byte("}]}")); ok {
				elems[len(elems)-1] = append(append(append(l[:len(l):len(l)], `,"cache_control":`...), cc...), "}]}"...)
			}
		}
	}
	return elems, kept, nil
}

// lastCacheControl returns the "cache_control" of the last content block
// of an Anthropic message that has one, or nil.
func lastCacheControl(elem []byte) json.RawMessage {
	var m struct {
		Content []struct {
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"content"`
	}
	if json.Unmarshal(elem, &m) != nil {
		return nil
	}
	for i := len(m.Content) - 1; i >= 0; i-- {
		if cc := m.Content[i].CacheControl; len(cc) > 0 && string(cc) != "null" {
			return cc
		}
	}
	return nil
}

// matchElement finds, among the candidate element starts (indexes into
// c.msgs at or after from), one whose messages all equal the leading
// fingerprints of want. It returns the start and the message count.
func matchElement(c *conversation, fps []fingerprint, candidates []int, want []fingerprint, from int) (int, int, bool) {
	for _, g := range candidates {
		if g < from {
			continue
		}
		n := 1
		for g+n < len(c.msgs) && c.group[g+n] == c.group[g] {
			n++
		}
		if n > len(want) {
			continue
		}
		ok := true
		for j := 1; j < n; j++ {
			if fps[g+j] != want[j] {
				ok = false
				break
			}
		}
		if ok {
			return g, n, true
		}
	}
	return 0, 0, false
}

// convert writes msgs as wire messages, ready for a request.
func convert(w Wire, c *conversation, msgs []chat.Message) ([][]byte, error) {
	if w == WireGemini {
		return convertGemini(msgs)
	}
	if w == WireResponses {
		items, err := chat.ToResponses(msgs, func(id string) bool { return c.custom[id] })
		if err != nil {
			return nil, err
		}
		return marshalEach(items, func(it chat.ResponsesItem) chat.ResponsesItem { return it })
	}
	if w == WireAnthropic {
		_, wire, err := chat.ToAnthropic(msgs)
		if err != nil {
			return nil, err
		}
		return marshalEach(wire, chat.AnthropicMessage.ForRequest)
	}
	wire, err := chat.ToOpenAI(msgs)
	if err != nil {
		return nil, err
	}
	return marshalEach(wire, chat.OpenAIMessage.ForRequest)
}

// marshalEach writes each message as JSON after forRequest.
func marshalEach[M any](msgs []M, forRequest func(M) M) ([][]byte, error) {
	out := make([][]byte, 0, len(msgs))
	for _, m := range msgs {
		raw, err := json.Marshal(forRequest(m))
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

func hasImage(m chat.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(chat.Image); ok {
			return true
		}
	}
	return false
}
