package agentconf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiRequest is the part of a Gemini API generateContent request the
// server reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig *struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ThinkingConfig     *struct {
			IncludeThoughts bool `json:"includeThoughts"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

// validateGemini checks the Gemini API's function-calling rules and the
// thought signatures the server issued, and returns the error message the
// API would send, or "".
func (s *Server) validateGemini(req *geminiRequest) string {
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	for i, c := range req.Contents {
		calls, responses := 0, 0
		signed := false
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls++
				if p.ThoughtSignature != "" {
					signed = true
				}
			}
			if p.FunctionResponse != nil {
				responses++
			}
			if p.ThoughtSignature != "" && !strings.HasPrefix(p.ThoughtSignature, "ac1.") || p.ThoughtSignature != "" && !s.openReasoning(p.ThoughtSignature) {
				return fmt.Sprintf("Corrupted thought signature in contents[%d].", i)
			}
		}
		if calls > 0 && !signed {
			return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call position %d.", i)
		}
		if calls > 0 {
			if i+1 < len(req.Contents) {
				n := 0
				for _, p := range req.Contents[i+1].Parts {
					if p.FunctionResponse != nil {
						n++
					}
				}
				if n != calls {
					return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
				}
			}
		}
		if responses > 0 {
			prev := 0
			if i > 0 && req.Contents[i-1].Role == "model" {
				for _, p := range req.Contents[i-1].Parts {
					if p.FunctionCall != nil {
						prev++
					}
				}
			}
			if prev == 0 {
				return "Please ensure that function response turn comes immediately after a function call turn."
			}
		}
	}
	return ""
}

// schemaValue returns a value that satisfies a JSON schema (the subset of
// OpenAPI types Gemini uses), for side requests that ask for JSON.
func schemaValue(raw json.RawMessage) any {
	var sch struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
		Enum       []any                      `json:"enum"`
	}
	if json.Unmarshal(raw, &sch) != nil {
		return "agentconf"
	}
	if len(sch.Enum) > 0 {
		return sch.Enum[0]
	}
	t, _ := sch.Type.(string)
	switch strings.ToLower(t) {
	case "object":
		obj := map[string]any{}
		for k, v := range sch.Properties {
			obj[k] = schemaValue(v)
		}
		return obj
	case "array":
		return []any{}
	case "integer", "number":
		return 50
	case "boolean":
		return false
	}
	return "agentconf"
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, rec *Record) {
	var req geminiRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		rec.Violation = "Invalid JSON payload received. " + err.Error()
		writeJSON(w, http.StatusBadRequest, errorBody(WireGemini, 400, "", rec.Violation))
		return
	}
	if v := s.validateGemini(&req); v != "" {
		rec.Violation = v
		writeJSON(w, http.StatusBadRequest, errorBody(WireGemini, 400, "", v))
		return
	}
	rec.Tokens, _ = Count(rec.Body)
	model := strings.TrimPrefix(r.URL.Path, "/v1beta/models/")
	if i := strings.IndexByte(model, ':'); i >= 0 {
		model = model[:i]
	}
	tools := map[string]bool{}
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			tools[d.Name] = true
		}
	}
	var last Step
	var result string
	calls := 0
	prompt := false
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls++
				last = Classify(string(p.FunctionCall.Args))
			}
			if p.FunctionResponse != nil {
				result = string(p.FunctionResponse.Response)
			}
		}
		if c.Role == "user" {
			prompt = true
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					prompt = false
				}
			}
		}
	}
	var parts []map[string]any
	thoughts := req.GenerationConfig != nil && req.GenerationConfig.ThinkingConfig != nil && req.GenerationConfig.ThinkingConfig.IncludeThoughts
	gc := req.GenerationConfig
	switch {
	case gc != nil && gc.ResponseMimeType == "application/json":
		schema := gc.ResponseJSONSchema
		if len(schema) == 0 {
			schema = gc.ResponseSchema
		}
		b, _ := json.Marshal(schemaValue(schema))
		parts = append(parts, map[string]any{"text": string(b)})
	case !tools["run_shell_command"]:
		parts = append(parts, map[string]any{"text": "agentconf: a side answer."})
	case prompt && calls > 0:
		rec.Main, rec.Step = true, StepSummary
		parts = append(parts, map[string]any{"text": s.opts.Task.Summary(last, result)})
	default:
		rec.Main = true
		if calls == 0 {
			last = Progress(rec.Body)
		}
		a := s.opts.Task.Next(last, result, calls)
		rec.Step = a.Step
		if thoughts {
			parts = append(parts, map[string]any{"text": a.Thinking, "thought": true})
		}
		call := func(name string, args map[string]any) {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": name, "args": args}, "thoughtSignature": s.sealReasoning(name + " " + string(a.Step))})
		}
		switch {
		case a.Kind == ActionFinal:
			parts = append(parts, map[string]any{"text": a.Text})
		case a.Kind == ActionRead && tools["read_file"]:
			call("read_file", map[string]any{"file_path": a.Path})
		case a.Kind == ActionRead:
			call("run_shell_command", map[string]any{"command": a.Command, "description": "Read calc.js"})
		case a.Kind == ActionEdit && tools["replace"]:
			call("replace", map[string]any{"file_path": a.Path, "instruction": "Start the loop in total() at index 0 so the first number is summed.", "old_string": a.Old, "new_string": a.New})
		case a.Kind == ActionEdit:
			call("run_shell_command", map[string]any{"command": a.SedCommand, "description": "Fix calc.js"})
		default:
			call("run_shell_command", map[string]any{"command": a.Command, "description": "agentconf step " + string(a.Step)})
		}
	}
	b, _ := json.Marshal(parts)
	outTokens, _ := Count(b)
	usage := map[string]any{"promptTokenCount": rec.Tokens, "candidatesTokenCount": outTokens, "totalTokenCount": rec.Tokens + outTokens}
	id := s.nextID("ac")
	chunk := func(ps []map[string]any, finish bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		if finish {
			cand["finishReason"] = "STOP"
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": model, "responseId": id}
	}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		writeJSON(w, http.StatusOK, chunk(parts, true))
		return
	}
	e := startSSE(w)
	for i, p := range parts {
		e.event("", chunk([]map[string]any{p}, i == len(parts)-1))
	}
}
