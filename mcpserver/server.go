package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentctx/agentctx/session"
)

// Name is the server's name in the MCP handshake, and the name
// `agentctx mcp install` configures it under in an agent.
const Name = "agentctx"

// DefaultSearchSessions is the default of [Options].SearchSessions.
const DefaultSearchSessions = 50

// ErrNoSession reports a tool call that names no session when the server
// has none to default to: no [Options].Session, and no session in the
// store (in [Options].Project, when set). Give session_id; `agentctx
// sessions list` shows the ids.
var ErrNoSession = errors.New("mcpserver: no session: give session_id ('agentctx sessions list' shows them)")

// Options configures a [Server]. Store is required; the zero value of
// every other field means its default.
type Options struct {
	// Store holds the sessions the tools work on: the store the proxy or
	// the agent writes (`agentctx mcp` opens the one its --store and
	// --home flags name, as every command does). Required. The server
	// does not close it.
	Store session.Store
	// OpenWriter opens the store that pin and unpin write through, a new
	// handle on Store's sessions for each call, closed after it: a store
	// keeps the lock of a session it wrote until it is closed
	// (session.Locker), and the server must not keep its sessions from
	// their agents. Optional. Defaults to writing through Store, whose
	// locks then last as long as it stays open.
	OpenWriter func() (session.Store, error)
	// Session is the id of the session a tool call without session_id
	// works on. Optional. Defaults to the session most recently active in
	// Project (else in the store).
	Session string
	// Project is the folder whose most recently active session is the
	// default (see Session): `agentctx mcp` gives the folder the agent
	// started it in. Optional. Defaults to "": the store's most recent
	// session.
	Project string
	// SearchSessions is how many of the most recently active sessions
	// recall_output and recall_span search for an id the default session
	// does not have (a proxied agent knows the call id, not the session).
	// Optional. Defaults to [DefaultSearchSessions]; negative searches
	// none.
	SearchSessions int
	// Version is the server's version in the MCP handshake. Optional.
	// Defaults to "dev".
	Version string
	// Logger receives the SDK's and the server's diagnostics. Optional.
	// Defaults to discarding them.
	Logger *slog.Logger
}

// Server is the MCP server over one store. Create it with [New]; serve it
// with [Server.Run] (stdio or any transport) or [Server.Handler]
// (streamable HTTP). Safe for concurrent use: each tool call reads or
// writes the store on its own.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server
}

// New returns the server of opts. Errors: no store.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("mcpserver: Options.Store is required")
	}
	if opts.SearchSessions == 0 {
		opts.SearchSessions = DefaultSearchSessions
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Project != "" {
		opts.Project = filepath.Clean(opts.Project)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, log: log}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "agentctx context tools", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: log})
	s.addTools()
	return s, nil
}

// instructions is what the server tells the agent in the handshake.
const instructions = "agentctx manages this conversation's context window. When a tool output was cut " +
	"(a note names a call_id), read the part you need with recall_output; when a summary lists spans (s1, s2…), " +
	"read one with recall_span. context shows what fills the window; pin keeps an instruction through every compaction; " +
	"search_session finds text anywhere in the conversation, including what was summarized away."

// MCP returns the SDK server, for a transport of the caller's own.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client on t until it disconnects or ctx is done:
// &mcp.StdioTransport{} for an agent that starts the server as a
// subprocess. Errors: the transport's and ctx's.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// Handler returns the server over streamable HTTP (MCP's HTTP transport),
// each client its own MCP session. The SDK refuses a request that reached
// a loopback address with another Host (DNS rebinding); the caller
// listens on loopback (the tools read the sessions, with no
// authentication).
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log})
}

// sessionID returns the session a call works on: id when given, else the
// default ([Options].Session, else the latest in the project, else the
// latest in the store). Errors: [ErrNoSession], the store's.
func (s *Server) sessionID(ctx context.Context, id string) (string, error) {
	if id != "" {
		return id, session.ValidateID(id)
	}
	if s.opts.Session != "" {
		return s.opts.Session, nil
	}
	for _, project := range []string{s.opts.Project, ""} {
		ss, err := s.opts.Store.List(ctx, session.ListOptions{Project: project, Limit: 1})
		if err != nil {
			return "", fmt.Errorf("mcpserver: list sessions: %w", err)
		}
		if len(ss) > 0 {
			return ss[0].ID, nil
		}
		if project == "" {
			break
		}
	}
	return "", ErrNoSession
}

// candidates returns the sessions a recall without session_id searches,
// in order: the default session, then the most recently active ones
// ([Options].SearchSessions), each once.
func (s *Server) candidates(ctx context.Context) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if id, err := s.sessionID(ctx, ""); err == nil {
		add(id)
	} else if !errors.Is(err, ErrNoSession) {
		return nil, err
	}
	if s.opts.SearchSessions > 0 {
		ss, err := s.opts.Store.List(ctx, session.ListOptions{Limit: s.opts.SearchSessions})
		if err != nil {
			return nil, fmt.Errorf("mcpserver: list sessions: %w", err)
		}
		for _, x := range ss {
			add(x.ID)
		}
	}
	if len(ids) == 0 {
		return nil, ErrNoSession
	}
	return ids, nil
}
