// The workspace's tables. A new workspace runs every migration from 0; an older file runs the
// ones it lacks, in one transaction. Never edit a migration that has shipped: add one.
#include "store/schema.h"

namespace loopscope::store::detail {

const std::vector<std::string>& migrations()
{
    static const std::vector<std::string> scripts = {
        // 0 -> 1: the first layout. Tags are one comma-separated column.
        R"sql(
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
)sql",
        // 1 -> 2: tags get their own table; figures keep the error count, the instruction
        // prediction and the whole analysis document; measurements; search runs and points.
        R"sql(
CREATE TABLE variant_tags(
  variant_id INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  tag TEXT NOT NULL CHECK (tag <> ''),
  PRIMARY KEY (variant_id, tag)) WITHOUT ROWID;
INSERT OR IGNORE INTO variant_tags(variant_id, tag)
  WITH RECURSIVE split(id, tag, rest) AS (
    SELECT id, '', tags || ',' FROM variants WHERE tags <> ''
    UNION ALL
    SELECT id, trim(substr(rest, 1, instr(rest, ',') - 1)), substr(rest, instr(rest, ',') + 1) FROM split WHERE rest <> '')
  SELECT id, tag FROM split WHERE tag <> '';
ALTER TABLE variants DROP COLUMN tags;
CREATE TABLE search_runs(
  id INTEGER PRIMARY KEY,
  kernel_hash TEXT NOT NULL REFERENCES files(hash),
  target_hash TEXT NOT NULL REFERENCES files(hash),
  base_variant_id INTEGER REFERENCES variants(id) ON DELETE SET NULL,
  parameters TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'cancelled', 'failed')),
  evaluated INTEGER NOT NULL DEFAULT 0,
  total INTEGER NOT NULL DEFAULT 0,
  feasible INTEGER NOT NULL DEFAULT 0,
  message TEXT NOT NULL DEFAULT '',
  project_version TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER);
ALTER TABLE variants ADD COLUMN search_run_id INTEGER REFERENCES search_runs(id) ON DELETE SET NULL;
CREATE TABLE search_points(
  run_id INTEGER NOT NULL REFERENCES search_runs(id) ON DELETE CASCADE,
  variant_id INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  objectives TEXT NOT NULL,
  on_front INTEGER NOT NULL DEFAULT 1,
  found_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, variant_id)) WITHOUT ROWID;
ALTER TABLE figures ADD COLUMN predicted_instructions INTEGER;
ALTER TABLE figures ADD COLUMN errors INTEGER NOT NULL DEFAULT 0;
ALTER TABLE figures ADD COLUMN warnings INTEGER NOT NULL DEFAULT 0;
ALTER TABLE figures ADD COLUMN report_json TEXT NOT NULL DEFAULT '';
CREATE TABLE measurements(
  id INTEGER PRIMARY KEY,
  variant_id INTEGER NOT NULL REFERENCES variants(id) ON DELETE CASCADE,
  machine TEXT NOT NULL,
  compiler TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  instructions INTEGER NOT NULL,
  project_version TEXT NOT NULL,
  measured_at INTEGER NOT NULL);
CREATE INDEX measurements_variant ON measurements(variant_id);
)sql",
    };
    return scripts;
}

} // namespace loopscope::store::detail
