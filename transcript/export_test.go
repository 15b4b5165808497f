package transcript

import "github.com/agentctx/agentctx/internal/jsonx"

// StdOnly makes the readers decode with encoding/json alone while it is
// set (see jsonx.StdOnly); FuzzStdEquivalence compares both decodings.
var StdOnly = &jsonx.StdOnly

// Unquote is unquote, which FuzzUnquote compares with encoding/json.
var Unquote = unquote

// UnquoteBytes is unquoteBytes, which FuzzUnquote compares with unquote.
var UnquoteBytes = unquoteBytes

// ArrayLen is arrayLen, which FuzzArrayLen compares with encoding/json.
var ArrayLen = arrayLen
