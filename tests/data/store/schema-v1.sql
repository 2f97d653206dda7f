-- A workspace of schema version 1 as the first store wrote it, frozen here so that the
-- migration test does not depend on the code it tests. Two variants (one with tags, one
-- derived from the other), their files and figures, and one journal session.
PRAGMA application_id = 1280332631;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
  hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('kernel', 'target')),
  path TEXT NOT NULL,
  text TEXT NOT NULL,
  stored_at INTEGER NOT NULL);
CREATE TABLE variants(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE CHECK (name <> ''),
  notes TEXT NOT NULL DEFAULT '',
  trace TEXT NOT NULL,
  kernel_hash TEXT NOT NULL REFERENCES files(hash),
  kernel_path TEXT NOT NULL,
  target_hash TEXT NOT NULL REFERENCES files(hash),
  target TEXT NOT NULL,
  parent_id INTEGER REFERENCES variants(id) ON DELETE SET NULL,
  tags TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  modified_at INTEGER NOT NULL);
CREATE INDEX variants_parent ON variants(parent_id);
CREATE TABLE figures(
  variant_id INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  project_version TEXT NOT NULL,
  analyzed_at INTEGER NOT NULL,
  macs INTEGER NOT NULL,
  cycles INTEGER NOT NULL,
  compute_cycles INTEGER NOT NULL,
  transfer_cycles INTEGER NOT NULL,
  overlap_ratio REAL NOT NULL,
  latency_ms REAL NOT NULL,
  energy_uj REAL NOT NULL,
  bound_compute_cycles INTEGER NOT NULL,
  compulsory_bytes INTEGER NOT NULL,
  io_lower_bound_bytes INTEGER,
  PRIMARY KEY (variant_id, project_version));
CREATE TABLE figure_levels(
  variant_id INTEGER NOT NULL,
  project_version TEXT NOT NULL,
  level INTEGER NOT NULL,
  name TEXT NOT NULL,
  capacity_bytes INTEGER NOT NULL,
  peak_bytes INTEGER NOT NULL,
  read_bytes INTEGER NOT NULL,
  write_bytes INTEGER NOT NULL,
  PRIMARY KEY (variant_id, project_version, level),
  FOREIGN KEY (variant_id, project_version) REFERENCES figures(variant_id, project_version) ON DELETE CASCADE);
CREATE TABLE journal_sessions(
  id INTEGER PRIMARY KEY,
  document TEXT NOT NULL,
  base TEXT NOT NULL,
  variant_id INTEGER REFERENCES variants(id) ON DELETE SET NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  closed_at INTEGER);
CREATE TABLE journal_entries(
  session_id INTEGER NOT NULL REFERENCES journal_sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  action TEXT NOT NULL,
  undo_index INTEGER NOT NULL,
  clean INTEGER NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
INSERT INTO meta VALUES ('created_by', 'Loopscope 0.0.9'), ('created_at', '1700000000000');
INSERT INTO files VALUES ('k1', 'kernel', '/old/matmul.kernel.yaml', 'kernel text', 1700000000000),
                         ('t1', 'target', 'builtin:cortex-m7', 'target text', 1700000000000);
INSERT INTO variants VALUES
  (1, 'tiled', 'first try', 'trace one', 'k1', '/old/matmul.kernel.yaml', 't1', 'cortex-m7', NULL, 'fast, sram ,  tiled', 1700000000001, 1700000000002),
  (2, 'tiled-2', '', 'trace two', 'k1', '/old/matmul.kernel.yaml', 't1', 'cortex-m7', 1, '', 1700000000003, 1700000000004);
INSERT INTO figures VALUES (1, '0.0.9', 1700000000005, 1000, 5000, 4000, 1000, 0.5, 0.01, 2.5, 1000, 3000, 2500);
INSERT INTO figure_levels VALUES (1, '0.0.9', 0, 'DRAM', 1000000, 3000, 2000, 1000),
                                 (1, '0.0.9', 1, 'SRAM', 65536, 1024, 9000, 100);
INSERT INTO journal_sessions VALUES (1, '/old/tiled.sched.yaml', 'base', 1, 999999999, 'old-host', 1700000000006, NULL);
INSERT INTO journal_entries VALUES (1, 1, 1700000000007, 'split i by 16', 1, 0, 'state one');
PRAGMA user_version = 1;
