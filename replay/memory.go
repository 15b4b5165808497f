package replay

// ContextTokens is the token budget of the ActiveContext rendering a replay
// reports ([Result].Context): what an engine would give working memory in
// a prompt of a few thousand tokens.
const ContextTokens = 2000
