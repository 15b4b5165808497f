package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentctx/agentctx/chat"
)

// This file is the proxy's Gemini API wire ([WireGemini]), as Gemini CLI
// speaks it: POST …/models/{model}:generateContent, or
// :streamGenerateContent?alt=sse for server-sent events, the key in the
// x-goog-api-key header, the history in "contents", the system prompt in
// "systemInstruction", tools as "tools"[].functionDeclarations and the
// output limit in "generationConfig".maxOutputTokens
// (https://ai.google.dev/api/generate-content). The API's JSON parser
// also takes the fields' snake_case names (system_instruction …), which
// are read too.

// geminiModel returns the model of a Gemini API model request's path
// ("gemini-2.5-pro" in /v1beta/models/gemini-2.5-pro:generateContent,
// Vertex AI's …/publishers/google/models/{model}:… alike), or "" when the
// path is not a generateContent or streamGenerateContent call (countTokens,
// embedContent and the rest pass through).
func geminiModel(path string) string {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return ""
	}
	model, method, ok := strings.Cut(path[i+len("/models/"):], ":")
	if !ok || model == "" || strings.Contains(model, "/") {
		return ""
	}
	switch method {
	case "generateContent", "streamGenerateContent":
		return model
	}
	return ""
}

// readGeminiField reads a top-level field of a Gemini request that the
// proxy needs: the system instruction and generationConfig's
// maxOutputTokens. Other wires' bodies are left alone.
func (b *body) readGeminiField(key string, v json.RawMessage) {
	if b.wire != WireGemini {
		return
	}
	switch key {
	case "systemInstruction", "system_instruction":
		b.system = v
	case "generationConfig", "generation_config":
		var gc struct {
			Max   *int `json:"maxOutputTokens"`
			Snake *int `json:"max_output_tokens"`
		}
		if json.Unmarshal(v, &gc) != nil {
			return
		}
		for _, n := range []*int{gc.Max, gc.Snake} {
			if n != nil && *n > 0 {
				b.maxTokens = *n
			}
		}
	}
}

// readGemini reads a Gemini request's contents element by element (a
// function response without an id pairs with its call by name and order,
// across elements), the system instruction's text and the tools.
func (b *body) readGemini(c *conversation) error {
	if len(b.system) > 0 && string(b.system) != "null" {
		var sys chat.GeminiContent
		if err := json.Unmarshal(b.system, &sys); err != nil {
			return fmt.Errorf("systemInstruction: %w", err)
		}
		var texts []string
		for _, p := range sys.Parts {
			if p.Raw == nil && p.FunctionCall == nil && p.FunctionResponse == nil {
				texts = append(texts, p.Text)
			}
		}
		c.system = strings.Join(texts, "\n\n")
	}
	var r chat.GeminiReader
	calls := map[string]string{}
	for i := range b.elems {
		var w chat.GeminiContent
		if err := json.Unmarshal(b.elem(i), &w); err != nil {
			return fmt.Errorf("contents[%d]: %w", i, err)
		}
		ms, err := r.Read(w)
		if err != nil {
			return err // it names contents[i]
		}
		c.add(ms, i, i+1, calls)
	}
	tools, err := geminiTools(b.tools)
	if err != nil {
		return err
	}
	c.tools = tools
	return nil
}

// geminiTools reads a Gemini request's tools for counting: each function
// declaration of a {"functionDeclarations": […]} entry as a tool of its
// name, description and schema ("parameters", or "parametersJsonSchema"
// as Gemini CLI sends it); any other entry (googleSearch, codeExecution,
// urlContext …) as its whole JSON under its key.
func geminiTools(raw json.RawMessage) ([]chat.ToolDef, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	var out []chat.ToolDef
	for i, t := range list {
		decls, ok := t["functionDeclarations"]
		if !ok {
			decls, ok = t["function_declarations"]
		}
		if !ok {
			for k, v := range t {
				out = append(out, chat.ToolDef{Name: k, Parameters: v})
			}
			continue
		}
		var ds []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Schema      json.RawMessage `json:"parametersJsonSchema"`
			SnakeSchema json.RawMessage `json:"parameters_json_schema"`
		}
		if err := json.Unmarshal(decls, &ds); err != nil {
			return nil, fmt.Errorf("tools[%d].functionDeclarations: %w", i, err)
		}
		for _, d := range ds {
			params := d.Parameters
			for _, s := range []json.RawMessage{d.Schema, d.SnakeSchema} {
				if params == nil {
					params = s
				}
			}
			out = append(out, chat.ToolDef{Name: d.Name, Description: d.Description, Parameters: params})
		}
	}
	return out, nil
}

// convertGemini writes messages as elements of "contents", without HTML
// escaping (as Gemini CLI's JSON.stringify writes them, so that a content
// the proxy rewrites keeps the agent's bytes where it can).
func convertGemini(msgs []chat.Message) ([][]byte, error) {
	_, contents, err := chat.ToGemini(msgs)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, 0, len(contents))
	for _, c := range contents {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	return out, nil
}

// geminiUsage reads the usageMetadata of a Gemini answer (already
// decompressed): a JSON response, a JSON array of responses
// (streamGenerateContent without alt=sse) or server-sent events (with
// alt=sse), each event one response. In a stream the last response that
// has usageMetadata holds the final counts. It returns nil when there are
// none, or when they are zero or implausible.
func geminiUsage(data []byte) *chat.Usage {
	var found *chat.GeminiUsage
	take := func(raw []byte) {
		var v struct {
			Usage *chat.GeminiUsage `json:"usageMetadata"`
		}
		if json.Unmarshal(raw, &v) == nil && v.Usage != nil {
			found = v.Usage
		}
	}
	switch t := bytes.TrimSpace(data); {
	case len(t) > 0 && t[0] == '{':
		take(t)
	case len(t) > 0 && t[0] == '[':
		var list []json.RawMessage
		if json.Unmarshal(t, &list) != nil {
			return nil
		}
		for _, r := range list {
			take(r)
		}
	default:
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), maxTee)
		for sc.Scan() {
			payload, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:"))
			if payload = bytes.TrimSpace(payload); ok && len(payload) > 0 && payload[0] == '{' {
				take(payload)
			}
		}
	}
	if found == nil {
		return nil
	}
	u := chat.UsageFromGemini(*found)
	if u.IsZero() || u.Validate() != nil {
		return nil
	}
	return &u
}

// geminiStatus is the google.rpc status name Google's APIs give with an
// HTTP status (https://cloud.google.com/apis/design/errors).
func geminiStatus(code int) string {
	switch code {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// writeGeminiError answers in Google's error shape:
// {"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT"}}.
func writeGeminiError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": geminiStatus(status)}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
