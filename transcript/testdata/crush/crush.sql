-- A crush session store, built from crush's migrations
-- (internal/db/migrations: 20250424200609_initial.sql, then the
-- summary_message_id and provider columns) and message parts as
-- internal/message/content.go marshals them. TestReadCrush builds
-- crush.db from this file; go test ./transcript -run TestReadCrush -update
-- rewrites the committed copy.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    summary_message_id TEXT
);
CREATE TABLE files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts BLOB NOT NULL DEFAULT '[]',
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    provider TEXT
);
INSERT INTO sessions VALUES
 ('9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', NULL, 'Fix the flaky retry test', 9, 48211, 1312, 0.2104, 1762182400, 1762182000, 'm-summary'),
 ('1a2b3c4d-0000-4000-8000-00000000aaaa', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'Find retry callers', 3, 9120, 210, 0.0301, 1762182100, 1762182060, NULL),
 ('77777777-0000-4000-8000-000000000000', NULL, 'Empty session', 0, 0, 0, 0, 1762183000, 1762183000, NULL);
INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at, finished_at, provider) VALUES
 ('m-u1', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'user',
  '[{"type":"text","data":{"text":"TestRetry in retry_test.go fails one run in ten. Fix it."}},{"type":"binary","data":{"Path":"notes.txt","MIMEType":"text/plain","Data":"c2VlIENJIHJ1biAxMjM="}},{"type":"finish","data":{"reason":"stop","time":1762182001}}]',
  '', 1762182001, 1762182001, 1762182001, NULL),
 ('m-a1', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'assistant',
  '[{"type":"reasoning","data":{"thinking":"A timing-dependent test; look at the backoff.","signature":"sig-1","started_at":1762182002,"finished_at":1762182003}},{"type":"text","data":{"text":"Let me read the test and find who calls Retry."}},{"type":"tool_call","data":{"id":"toolu_01","name":"view","input":"{\"file_path\":\"retry_test.go\"}","provider_executed":false,"finished":true}},{"type":"tool_call","data":{"id":"toolu_02","name":"agent","input":"{\"prompt\":\"Find the callers of Retry\"}","provider_executed":false,"finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1762182004}}]',
  'claude-sonnet-4-5-20250929', 1762182002, 1762182004, 1762182004, 'anthropic'),
 ('m-t1', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_01","name":"view","content":"<file>\n     1|func TestRetry(t *testing.T) {\n     2|\tif time.Since(start) > 10*time.Millisecond {\n</file>","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"tool_result","data":{"tool_call_id":"toolu_02","name":"agent","content":"Retry is called from client.go:41 and worker.go:88.","data":"","mime_type":"","metadata":"","is_error":false}},{"type":"finish","data":{"reason":"stop","time":1762182070}}]',
  '', 1762182070, 1762182070, 1762182070, NULL),
 ('m-a2', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'assistant',
  '[{"type":"text","data":{"text":"The test asserts a 10ms bound on a sleep of 10ms. I will allow for scheduling."}},{"type":"tool_call","data":{"id":"toolu_03","name":"edit","input":"{\"file_path\":\"retry_test.go\",\"old_string\":\"10*time.Millisecond\",\"new_string\":\"50*time.Millisecond\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1762182080}}]',
  'claude-sonnet-4-5-20250929', 1762182075, 1762182080, 1762182080, 'anthropic'),
 ('m-t2', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_03","name":"edit","content":"old_string not found in retry_test.go","is_error":true}}]',
  '', 1762182081, 1762182081, NULL, NULL),
 ('m-summary', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'assistant',
  '[{"type":"text","data":{"text":"Summary: TestRetry bounds a 10ms sleep by 10ms; the edit to loosen it failed because the literal differs. Next: view the exact line and edit it."}},{"type":"finish","data":{"reason":"end_turn","time":1762182200}}]',
  'claude-sonnet-4-5-20250929', 1762182200, 1762182200, 1762182200, 'anthropic'),
 ('m-a3', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_04","name":"bash","input":"{\"command\":\"go test -run TestRetry -count=20 ./...\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1762182210}}]',
  'claude-sonnet-4-5-20250929', 1762182205, 1762182210, 1762182210, 'anthropic'),
 ('m-t3', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_04","name":"bash","content":"ok  \texample.com/retry\t0.412s","is_error":false}}]',
  '', 1762182215, 1762182215, NULL, NULL),
 ('m-a4', '9f0c2a1e-5b7d-4c3e-8a21-6d0e4f1b2c3d', 'assistant',
  '[{"type":"text","data":{"text":"Twenty runs pass; the test no longer depends on exact scheduling."}},{"type":"finish","data":{"reason":"end_turn","time":1762182220}}]',
  'claude-sonnet-4-5-20250929', 1762182218, 1762182220, 1762182220, 'anthropic'),
 ('s-u1', '1a2b3c4d-0000-4000-8000-00000000aaaa', 'user',
  '[{"type":"text","data":{"text":"Find the callers of Retry"}}]', '', 1762182060, 1762182060, NULL, NULL),
 ('s-a1', '1a2b3c4d-0000-4000-8000-00000000aaaa', 'assistant',
  '[{"type":"tool_call","data":{"id":"toolu_s1","name":"grep","input":"{\"pattern\":\"Retry\\\\(\"}","finished":true}},{"type":"finish","data":{"reason":"tool_use","time":1762182062}}]',
  'claude-haiku-4-5-20251001', 1762182061, 1762182062, 1762182062, 'anthropic'),
 ('s-t1', '1a2b3c4d-0000-4000-8000-00000000aaaa', 'tool',
  '[{"type":"tool_result","data":{"tool_call_id":"toolu_s1","name":"grep","content":"client.go:41: Retry(ctx, op)\nworker.go:88: Retry(ctx, job)","is_error":false}}]',
  '', 1762182063, 1762182063, NULL, NULL),
 ('s-a2', '1a2b3c4d-0000-4000-8000-00000000aaaa', 'assistant',
  '[{"type":"text","data":{"text":"Retry is called from client.go:41 and worker.go:88."}},{"type":"finish","data":{"reason":"end_turn","time":1762182066}}]',
  'claude-haiku-4-5-20251001', 1762182065, 1762182066, 1762182066, 'anthropic');
