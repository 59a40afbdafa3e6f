"""The SQLite schema, as a list of migrations. Migration N takes user_version N-1 to N.

Never edit a released migration: append a new one.
"""

MIGRATIONS: list[str] = [
    # 1: collections, judgments, settings
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- JSON values
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
        first_added TEXT NOT NULL, last_run TEXT, status TEXT NOT NULL DEFAULT 'running',
        report TEXT
    );
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        doc_id TEXT NOT NULL UNIQUE,
        message_id TEXT NOT NULL,
        synthetic_id INTEGER NOT NULL DEFAULT 0,
        date TEXT, ts REAL,
        sender TEXT NOT NULL DEFAULT '', from_addr TEXT NOT NULL DEFAULT '',
        recipients TEXT NOT NULL DEFAULT '', cc TEXT NOT NULL DEFAULT '', bcc TEXT NOT NULL DEFAULT '',
        reply_to TEXT NOT NULL DEFAULT '', subject TEXT NOT NULL DEFAULT '', subject_norm TEXT NOT NULL DEFAULT '',
        in_reply_to TEXT NOT NULL DEFAULT '', refs TEXT NOT NULL DEFAULT '',
        thread_id TEXT NOT NULL,
        folder TEXT NOT NULL DEFAULT '', importance TEXT NOT NULL DEFAULT '', priority TEXT NOT NULL DEFAULT '',
        sensitivity_header TEXT NOT NULL DEFAULT '',
        body TEXT NOT NULL DEFAULT '', body_is_html INTEGER NOT NULL DEFAULT 0,
        n_attachments INTEGER NOT NULL DEFAULT 0,
        raw_sha256 TEXT NOT NULL, raw_size INTEGER NOT NULL, location TEXT NOT NULL,
        source_id INTEGER REFERENCES sources(id),
        notes TEXT NOT NULL DEFAULT '[]',
        indexed INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX messages_message_id ON messages(message_id);
    CREATE INDEX messages_thread ON messages(thread_id);
    CREATE INDEX messages_subject_norm ON messages(subject_norm);
    CREATE INDEX messages_unindexed ON messages(indexed) WHERE indexed = 0;
    CREATE TABLE attachments (
        id INTEGER PRIMARY KEY,
        message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL, name TEXT NOT NULL, original_name TEXT NOT NULL,
        mime_type TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
        text TEXT, is_message INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX attachments_message ON attachments(message);
    -- every copy of a message seen in a source; one of them is the kept copy
    CREATE TABLE copies (
        id INTEGER PRIMARY KEY,
        message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        raw_sha256 TEXT NOT NULL, location TEXT NOT NULL, folder TEXT NOT NULL DEFAULT '',
        kept INTEGER NOT NULL DEFAULT 0
    );
    CREATE UNIQUE INDEX copies_raw ON copies(raw_sha256);
    CREATE INDEX copies_message ON copies(message);
    -- the kept copy's raw bytes (zlib), for viewing, attachments and exports
    CREATE TABLE raw (message INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE, data BLOB NOT NULL);
    -- sender -> recipient network
    CREATE TABLE edges (
        sender TEXT NOT NULL, recipient TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (sender, recipient, kind)
    ) WITHOUT ROWID;
    CREATE TABLE skipped (
        id INTEGER PRIMARY KEY, source_id INTEGER REFERENCES sources(id),
        location TEXT NOT NULL UNIQUE, reason TEXT NOT NULL
    );
    -- judgments (doc ids are external document ids, e.g. Message-IDs)
    CREATE TABLE personas (id TEXT PRIMARY KEY, name TEXT NOT NULL, card TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE topics (id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
                         narrative TEXT NOT NULL DEFAULT '');
    CREATE TABLE qrels (topic TEXT NOT NULL, doc_id TEXT NOT NULL, rel INTEGER NOT NULL,
                        source TEXT NOT NULL DEFAULT '', PRIMARY KEY (topic, doc_id)) WITHOUT ROWID;
    -- topic '' = judged for the collection as a whole
    CREATE TABLE sensitivity (persona TEXT NOT NULL, topic TEXT NOT NULL DEFAULT '', doc_id TEXT NOT NULL,
                              level INTEGER NOT NULL, source TEXT NOT NULL DEFAULT '',
                              PRIMARY KEY (persona, topic, doc_id)) WITHOUT ROWID;
    """,
    # classify: one sensitivity model per persona, and its stored probabilities
    """
    CREATE TABLE classifier_models (
        persona TEXT PRIMARY KEY, version INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
        trained_at TEXT NOT NULL, feature_key TEXT NOT NULL, info TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE scores (
        persona TEXT NOT NULL, message INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        prob REAL NOT NULL, model_version INTEGER NOT NULL,
        PRIMARY KEY (persona, message)
    ) WITHOUT ROWID;
    """,
    # classify: why a message is sensitive for a persona (reason ids or names, one row each)
    """
    CREATE TABLE sensitivity_reasons (
        persona TEXT NOT NULL, doc_id TEXT NOT NULL, reason TEXT NOT NULL, source TEXT NOT NULL DEFAULT '',
        PRIMARY KEY (persona, doc_id, reason)
    ) WITHOUT ROWID;
    """,
    # ingest: the subject-threading lookup (subject, earliest date) without sorting every match
    """
    CREATE INDEX messages_subject_ts ON messages(subject_norm, ts);
    DROP INDEX messages_subject_norm;
    """,
    # ingest: copies with the same bytes in several places (a Sent mailbox and inboxes) are each
    # recorded: a copy is unique by its bytes and where it is
    """
    DROP INDEX IF EXISTS copies_raw;
    CREATE UNIQUE INDEX IF NOT EXISTS copies_raw_location ON copies(raw_sha256, location);
    """,
]
