package proxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// maxTee is how much of a response the proxy keeps to read its usage, in
// bytes; a longer response streams through whole but its usage is read
// only when it came within the first maxTee bytes (an OpenAI stream puts
// it last: such a reply goes unanchored).
const maxTee = 16 << 20

// readUsage reads the usage of an upstream response body: a JSON reply
// (Anthropic's message "usage"; OpenAI's completion "usage"; the Responses
// API's response "usage") or a stream of server-sent events (Anthropic's
// message_start usage completed by message_delta's; OpenAI's last chunk
// with "usage", sent when the request set stream_options.include_usage;
// the Responses API's response.completed event). encoding is the response's
// Content-Encoding ("gzip" is read; another one gives no usage). It
// returns nil when the body holds none.
func readUsage(wire Wire, data []byte, encoding string) *chat.Usage {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
	case "gzip":
		if data = gunzip(data); data == nil {
			return nil
		}
	default:
		return nil
	}
	if wire == WireGemini {
		return geminiUsage(data)
	}
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) > 0 && t[0] == '{' {
		return usageOfJSON(wire, t)
	}
	return usageOfStream(wire, data)
}

// usageOfJSON reads the "usage" of one JSON reply.
func usageOfJSON(wire Wire, data []byte) *chat.Usage {
	var v struct {
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Usage) == 0 || string(v.Usage) == "null" {
		return nil
	}
	return decodeUsage(wire, v.Usage)
}

// decodeUsage converts a wire usage object.
func decodeUsage(wire Wire, raw json.RawMessage) *chat.Usage {
	var u chat.Usage
	switch wire {
	case WireResponses:
		var r chat.ResponsesUsage
		if json.Unmarshal(raw, &r) != nil {
			return nil
		}
		u = chat.UsageFromResponses(r)
	case WireAnthropic:
		var a chat.AnthropicUsage
		if json.Unmarshal(raw, &a) != nil {
			return nil
		}
		u = chat.UsageFromAnthropic(a)
	default:
		var o chat.OpenAIUsage
		if json.Unmarshal(raw, &o) != nil {
			return nil
		}
		u = chat.UsageFromOpenAI(o)
	}
	if u.IsZero() || u.Validate() != nil {
		return nil
	}
	return &u
}

// usageOfStream reads the usage of a server-sent event stream.
func usageOfStream(wire Wire, data []byte) *chat.Usage {
	var found *chat.Usage
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxTee)
	for sc.Scan() {
		line := sc.Bytes()
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if len(payload) == 0 || payload[0] != '{' {
			continue
		}
		var ev struct {
			Type    string          `json:"type"`
			Usage   json.RawMessage `json:"usage"`
			Message *struct {
				Usage json.RawMessage `json:"usage"`
			} `json:"message"`
			Response *struct {
				Usage json.RawMessage `json:"usage"`
			} `json:"response"`
		}
		if json.Unmarshal(payload, &ev) != nil {
			continue
		}
		if wire == WireAnthropic {
			switch {
			case ev.Type == "message_start" && ev.Message != nil && len(ev.Message.Usage) > 0:
				found = decodeUsage(wire, ev.Message.Usage)
			case ev.Type == "message_delta" && len(ev.Usage) > 0 && string(ev.Usage) != "null":
				// message_delta carries the final output_tokens (and, on
				// newer API versions, the input and cache counts again).
				var d chat.AnthropicUsage
				if json.Unmarshal(ev.Usage, &d) != nil {
					continue
				}
				if found == nil {
					found = &chat.Usage{}
				}
				found.OutputTokens = d.OutputTokens
				if d.InputTokens > 0 {
					found.InputTokens = d.InputTokens
				}
				if d.CacheReadInputTokens > 0 {
					found.CacheReadTokens = d.CacheReadInputTokens
				}
				if d.CacheCreationInputTokens > 0 {
					found.CacheWriteTokens = d.CacheCreationInputTokens
				}
			}
			continue
		}
		if wire == WireResponses {
			// response.completed (or .incomplete) carries the response
			// with its usage.
			if ev.Response != nil && len(ev.Response.Usage) > 0 && string(ev.Response.Usage) != "null" {
				if u := decodeUsage(wire, ev.Response.Usage); u != nil {
					found = u
				}
			}
			continue
		}
		if len(ev.Usage) > 0 && string(ev.Usage) != "null" {
			if u := decodeUsage(wire, ev.Usage); u != nil {
				found = u
			}
		}
	}
	if found != nil && (found.IsZero() || found.Validate() != nil) {
		return nil
	}
	return found
}

// gunzip returns data decompressed (at most maxTee bytes; a stream cut
// short gives what came before the cut), or nil when it is not gzip.
func gunzip(data []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxTee))
	if err != nil && len(out) == 0 {
		return nil
	}
	return out
}
