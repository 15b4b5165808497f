package transcript

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentctx/agentctx/chat"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// crush and opencode (Go) SQLite session stores.
//
// crush (github.com/charmbracelet/crush) and the Go opencode it grew
// from (github.com/opencode-ai/opencode) keep every session in one SQLite
// database (.crush/crush.db, .opencode/opencode.db): a sessions table (id,
// parent_session_id for a sub-agent's session, title, created_at in Unix
// seconds, summary_message_id once summarized) and a messages table (id,
// session_id, role user|assistant|tool|system, model, created_at, and
// parts: a JSON array of {type, data} with type reasoning {thinking,
// signature}, text {text}, image_url {url}, binary {Path, MIMEType, Data},
// tool_call {id, name, input: the arguments' JSON text}, tool_result
// {tool_call_id, name, content, is_error} or finish {reason, time})
// (internal/db/migrations, internal/message/content.go and message.go).

// sqliteMagic is the header every SQLite 3 database file starts with.
var sqliteMagic = []byte("SQLite format 3\x00")

// isSQLite reports whether data starts like a SQLite database.
func isSQLite(data []byte) bool { return bytes.HasPrefix(data, sqliteMagic) }

// readSQLite reads the SQLite database that br (reading r) starts with:
// the file itself when r is one, else a temporary copy.
func readSQLite(r io.Reader, br *bufio.Reader, name string, f Format) ([]*Trajectory, error) {
	if f != "" && f != FormatCrush {
		return nil, &ParseError{File: name, Line: 1, Reason: "a SQLite database is not a " + string(f) + " transcript"}
	}
	file, ok := r.(*os.File)
	if !ok || !isRegular(file) {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, fmt.Errorf("transcript: read %s: %w", displayName(name), err)
		}
		trajs, err := readCrush(data, name)
		if err != nil {
			return nil, err
		}
		return finish(trajs, name, FormatCrush, f != "")
	}
	trajs, err := readCrushDB(file.Name(), name)
	if err != nil {
		return nil, err
	}
	return finish(trajs, name, FormatCrush, f != "")
}

func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// readCrush reads a crush database held in memory, through a temporary
// copy (SQLite reads files).
func readCrush(data []byte, name string) ([]*Trajectory, error) {
	if !isSQLite(data) {
		return nil, &ParseError{File: name, Line: 1, Reason: "not a SQLite database"}
	}
	tmp, err := os.CreateTemp("", "agentctx-crush-*.db")
	if err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", displayName(name), err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", displayName(name), err)
	}
	return readCrushDB(tmp.Name(), name)
}

// crushQueryTimeout bounds the queries of one database.
const crushQueryTimeout = time.Minute

// readCrushDB reads the crush or opencode database at path, read-only:
// one trajectory per session that has messages, in the order the
// sessions were created.
//
// Rules: a user message's text parts are its text, image_url and
// binary image parts [chat.Image]s, binary text attachments their text;
// an assistant message is one model response: reasoning as
// [chat.Thinking], text, tool_call parts as [chat.ToolCall] (input is
// the arguments' JSON text); a tool message's tool_result parts are one
// tool message each; finish parts carry nothing sent. The message a
// session's summary_message_id names (or one marked is_summary_message)
// is the summary the agent sends, as a user message, in place of the
// history before it: a [Compaction] there, with the summary text. The
// stores keep only per-session token totals, so no message carries
// usage. Trajectory.ID is the session id, Started its created_at, Times
// the messages' created_at (seconds).
//
// The database is opened with mode=ro (and, when that fails, as
// immutable), never written. Errors: a database without the sessions
// and messages tables wraps [ErrUnknownFormat]; a query that fails is a
// [*ParseError] naming the table.
func readCrushDB(path, name string) ([]*Trajectory, error) {
	db, err := openReadOnly(path, false)
	if err == nil {
		err = db.PingContext(context.Background())
		if err != nil {
			_ = db.Close()
		}
	}
	if err != nil {
		if db, err = openReadOnly(path, true); err != nil {
			return nil, &ParseError{File: name, Line: 1, Reason: "open the SQLite database", Err: err}
		}
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), crushQueryTimeout)
	defer cancel()
	fail := func(what string, err error) error {
		return &ParseError{File: name, Line: 1, Reason: "read " + what, Err: err}
	}
	sessCols, err := tableColumns(ctx, db, "sessions")
	if err != nil {
		return nil, fail("the sessions table", err)
	}
	msgCols, err := tableColumns(ctx, db, "messages")
	if err != nil {
		return nil, fail("the messages table", err)
	}
	for _, need := range []struct {
		cols map[string]bool
		name string
	}{{sessCols, "sessions.id"}, {msgCols, "messages.session_id"}, {msgCols, "messages.role"}, {msgCols, "messages.parts"}} {
		_, col, _ := strings.Cut(need.name, ".")
		if !need.cols[col] {
			return nil, fmt.Errorf("transcript: %s: a SQLite database without crush's %s column: %w", displayName(name), need.name, ErrUnknownFormat)
		}
	}
	opt := func(cols map[string]bool, col, def string) string {
		if cols[col] {
			return "COALESCE(" + col + ", " + def + ")"
		}
		return def
	}
	rows, err := db.QueryContext(ctx, "SELECT id, "+opt(sessCols, "summary_message_id", "''")+", "+opt(sessCols, "created_at", "0")+
		" FROM sessions ORDER BY "+opt(sessCols, "created_at", "0")+", rowid")
	if err != nil {
		return nil, fail("sessions", err)
	}
	type session struct {
		id, summary string
		created     int64
	}
	var sessions []session
	for rows.Next() {
		var s session
		if err := rows.Scan(&s.id, &s.summary, &s.created); err != nil {
			_ = rows.Close()
			return nil, fail("sessions", err)
		}
		sessions = append(sessions, s)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fail("sessions", err)
	}
	query := "SELECT id, role, parts, " + opt(msgCols, "model", "''") + ", " + opt(msgCols, "created_at", "0") + ", " +
		opt(msgCols, "is_summary_message", "0") + " FROM messages WHERE session_id = ? ORDER BY " + opt(msgCols, "created_at", "0") + ", rowid"
	var out []*Trajectory
	for _, s := range sessions {
		t := &Trajectory{Index: len(out), ID: s.id}
		if s.created > 0 {
			t.Started = time.Unix(s.created, 0).UTC()
		}
		if err := crushSession(ctx, db, query, s.id, s.summary, t, name); err != nil {
			return nil, fail("the messages of session "+s.id, err)
		}
		if len(t.Messages) > 0 {
			t.Index = len(out)
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, &ParseError{File: name, Line: 1, Reason: "no crush session with messages"}
	}
	return out, nil
}

// openReadOnly opens the database at path read-only; immutable also
// tells SQLite that nothing changes it (no locks, no WAL read), for
// files in a folder it cannot write.
func openReadOnly(path string, immutable bool) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	if immutable {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return sql.Open("sqlite", u.String())
}

// tableColumns returns the column names of table: none when it does not
// exist.
func tableColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			_ = rows.Close()
			return nil, err
		}
		cols[c] = true
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	return cols, nil // empty: no such table
}

// crushPart is one {type, data} element of a message's parts.
type crushPart struct {
	Type string `json:"type"`
	Data struct {
		Text       string          `json:"text"`
		Thinking   string          `json:"thinking"`
		Signature  string          `json:"signature"`
		URL        string          `json:"url"`
		Path       string          `json:"Path"`
		MIMEType   string          `json:"MIMEType"`
		Data       string          `json:"Data"` // base64
		ID         string          `json:"id"`
		Name       string          `json:"name"`
		Input      json.RawMessage `json:"input"`
		ToolCallID string          `json:"tool_call_id"`
		Content    string          `json:"content"`
		IsError    bool            `json:"is_error"`
	} `json:"data"`
}

// crushSession reads the messages of session id into t (see
// [readCrushDB]).
func crushSession(ctx context.Context, db *sql.DB, query, id, summaryID string, t *Trajectory, name string) error {
	rows, err := db.QueryContext(ctx, query, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	models := map[string]int{}
	md := meta{t: t}
	for rows.Next() {
		var (
			msgID, role, model string
			raw                []byte
			created            int64
			summary            bool
		)
		if err := rows.Scan(&msgID, &role, &raw, &model, &created, &summary); err != nil {
			return err
		}
		var parts []crushPart
		if err := decodeLoose(raw, &parts); err != nil {
			t.Problems = append(t.Problems, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %s: parts are not JSON, dropped", msgID), Err: err}})
			continue
		}
		ts := time.Time{}
		if created > 0 {
			ts = time.Unix(created, 0).UTC()
		}
		md.line("", "", ts)
		if summary || (summaryID != "" && msgID == summaryID) {
			m := crushMessage(msgID, "user", model, parts, t, name)
			t.Compactions = append(t.Compactions, Compaction{At: len(t.Messages), Trigger: "summary", Summary: m.Text()})
			t.Messages = append(t.Messages, m)
		} else {
			switch role {
			case "tool":
				for _, p := range parts {
					if p.Type != "tool_result" {
						continue
					}
					t.Messages = append(t.Messages, chat.Message{Role: chat.RoleTool, ID: msgID, Parts: []chat.Part{chat.ToolResult{
						ToolCallID: p.Data.ToolCallID, ToolName: p.Data.Name, Content: p.Data.Content, IsError: p.Data.IsError,
					}}})
				}
			case "user", "assistant", "system":
				if role == "assistant" && model != "" {
					models[model]++
				}
				t.Messages = append(t.Messages, crushMessage(msgID, role, model, parts, t, name))
			default:
				t.Problems = append(t.Problems, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %s: role %q dropped", msgID, role)}})
			}
		}
		md.stamp(len(t.Messages), ts)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	md.finish(len(t.Messages))
	t.Model = mostCommon(models)
	return nil
}

// crushMessage returns the message of role with the given parts;
// tool_result parts outside a tool message and unknown part types are
// reported as problems on t.
func crushMessage(id, role, model string, parts []crushPart, t *Trajectory, name string) chat.Message {
	m := chat.Message{Role: chat.Role(role), ID: id}
	if role == "assistant" {
		m.Model = model
	}
	for _, p := range parts {
		d := p.Data
		switch p.Type {
		case "text":
			if d.Text != "" {
				m.Parts = append(m.Parts, chat.Text{Text: d.Text})
			}
		case "reasoning":
			if d.Thinking != "" || d.Signature != "" {
				m.Parts = append(m.Parts, chat.Thinking{Text: d.Thinking, Signature: d.Signature})
			}
		case "image_url":
			m.Parts = append(m.Parts, chat.Image{Source: d.URL})
		case "binary":
			text, err := base64.StdEncoding.DecodeString(d.Data)
			if strings.HasPrefix(d.MIMEType, "text/") && err == nil {
				m.Parts = append(m.Parts, chat.Text{Text: string(text)})
			} else {
				m.Parts = append(m.Parts, chat.Image{Source: firstNonEmpty(d.Path, d.MIMEType), Bytes: base64Size(d.Data)})
			}
		case "tool_call":
			if role != "assistant" {
				t.Problems = append(t.Problems, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %s: a tool call in a %s message dropped", id, role)}})
				continue
			}
			m.Parts = append(m.Parts, chat.ToolCall{ID: d.ID, Name: d.Name, Arguments: parseArgs(d.Input)})
		case "finish":
		default:
			t.Problems = append(t.Problems, Problem{Err: &ParseError{File: name, Reason: fmt.Sprintf("message %s: part of type %q dropped", id, p.Type)}})
		}
	}
	return m
}
