// The plain records a workspace keeps: stored kernel and target files, variants with their
// figures and measurements, edit-journal sessions and entries, and search runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscope::store {

/// Milliseconds since the Unix epoch.
using Millis = int64_t;

enum class FileKind { Kernel, Target };
const char* fileKindName(FileKind k);

/// A kernel or target file as it was when a variant was saved, keyed by the SHA-256 of its text.
struct StoredFile {
    std::string hash;      ///< SHA-256 of `text`, hexadecimal
    FileKind kind = FileKind::Kernel;
    std::string path;      ///< where it was read from (absolute), or "builtin:<name>" for a built-in target
    std::string text;
    Millis storedAt = 0;
};

/// Figures of one memory level.
struct LevelFigures {
    std::string name;
    int64_t capacityBytes = 0;
    int64_t peakBytes = 0;     ///< peak occupancy
    int64_t readBytes = 0;
    int64_t writeBytes = 0;
};

/// The analysis of a variant as the project version `projectVersion` computed it: key figures
/// as columns (for lists and sorting) and the whole `analyze --json` document (every field,
/// also those added later).
struct Figures {
    std::string projectVersion;
    Millis analyzedAt = 0;
    int64_t macs = 0;
    int64_t cycles = 0;
    int64_t computeCycles = 0;
    int64_t transferCycles = 0;
    double overlapRatio = 0;
    double latencyMs = 0;
    double energyUj = 0;
    int64_t boundComputeCycles = 0;
    int64_t compulsoryBytes = 0;
    std::optional<int64_t> ioLowerBoundBytes;
    /// Instructions the model predicts for the exported kernel (when the project's cost report
    /// has that figure: the key "instructions" of the report document).
    std::optional<int64_t> predictedInstructions;
    int errors = 0;            ///< error diagnostics (e.g. over capacity)
    int warnings = 0;
    std::vector<LevelFigures> levels;  ///< outermost first
    std::string reportJson;    ///< the full `analyze --json` document ("" in files older than schema 2)

    /// Bytes read and written in the outermost level (DRAM on the Cortex-M targets).
    int64_t homeTrafficBytes() const;
    /// Peak occupancy of the first level inside the home level (SRAM on the Cortex-M targets);
    /// 0 when the target has one level.
    int64_t innerPeakBytes() const;
    /// Name of that level ("" when there is none).
    std::string innerLevelName() const;
};

/// Instructions of the exported kernel counted on a machine (an emulator or a board).
struct Measurement {
    int64_t id = 0;
    int64_t variantId = 0;
    std::string machine;          ///< e.g. "qemu mps2-an500 (Cortex-M7)"
    std::string compiler;         ///< e.g. "arm-none-eabi-gcc"
    std::string compilerVersion;  ///< e.g. "12.2.1"
    int64_t instructions = 0;
    std::string projectVersion;
    Millis measuredAt = 0;
};

/// A saved schedule of a kernel on a target.
struct Variant {
    int64_t id = 0;
    std::string name;
    std::string notes;
    std::string trace;            ///< the schedule as a *.sched.yaml text (as the file was, or as the app saves it)
    std::string kernelHash;       ///< StoredFile of the kernel
    std::string kernelPath;       ///< absolute path of the kernel file when saved
    std::string targetHash;       ///< StoredFile of the target
    std::string target;           ///< built-in target name, or the absolute path of the target file
    std::optional<int64_t> parentId;     ///< the variant it was derived from
    std::optional<int64_t> searchRunId;  ///< the search run that proposed it
    Millis createdAt = 0;
    Millis modifiedAt = 0;
    std::vector<std::string> tags;
    std::optional<Figures> figures;          ///< the newest figures
    std::vector<Measurement> measurements;   ///< newest first
};

/// What addVariant needs: the variant's own fields and the files it uses.
struct NewVariant {
    std::string name;
    std::string notes;
    std::string trace;
    std::string kernelPath;       ///< absolute
    std::string kernelText;
    std::string target;           ///< built-in name or absolute path
    std::string targetText;
    std::optional<int64_t> parentId;
    std::vector<std::string> tags;
    std::optional<Figures> figures;
};

/// One document's edits in the app, from opening it until it is closed.
struct JournalSession {
    int64_t id = 0;
    std::string document;     ///< the schedule file open in the app ("" when untitled)
    std::string base;         ///< the document's state when opened (a *.sched.yaml text)
    std::optional<int64_t> variantId;  ///< the variant it was opened from, if any
    int64_t pid = 0;          ///< the process writing it
    std::string host;
    Millis startedAt = 0;
    std::optional<Millis> closedAt;    ///< set when the document was closed normally
    int64_t entries = 0;      ///< number of entries
};

/// One change of the undo stack: the action and the whole state of the document after it.
struct JournalEntry {
    int64_t sessionId = 0;
    int64_t seq = 0;          ///< 1, 2, ... in the order of the changes
    Millis at = 0;
    std::string action;       ///< "split i by 16", "undo: split i by 16", "saved", ...
    int undoIndex = 0;        ///< QUndoStack index after the change
    bool clean = false;       ///< the state equals the saved file
    std::string state;        ///< the document as a *.sched.yaml text (absolute paths)
};

/// A session that did not close normally and whose process is gone: what the app offers to restore.
struct Recoverable {
    JournalSession session;
    JournalEntry last;        ///< the newest entry
};

enum class SearchStatus { Running, Finished, Cancelled, Failed };
const char* searchStatusName(SearchStatus s);

/// A run of the schedule search (issue 15 streams into it): what was searched, how far it got.
struct SearchRun {
    int64_t id = 0;
    std::string kernelHash;
    std::string targetHash;
    std::optional<int64_t> baseVariantId;  ///< the variant the search started from, if any
    std::string parametersJson;   ///< the search's parameters as a JSON document
    SearchStatus status = SearchStatus::Running;
    int64_t evaluated = 0;        ///< candidates scored so far
    int64_t total = 0;            ///< size of the space (0 when unknown)
    int64_t feasible = 0;
    std::string message;          ///< why it stopped, when it failed or was cancelled
    std::string projectVersion;
    Millis startedAt = 0;
    Millis updatedAt = 0;
    std::optional<Millis> finishedAt;
};

/// A point of a search run's Pareto front: a variant, its objectives and whether it is still
/// on the front (points dominated later stay, marked).
struct SearchPoint {
    int64_t runId = 0;
    int64_t variantId = 0;
    std::string objectivesJson;   ///< e.g. {"cycles": 123, "sram_bytes": 4096}
    bool onFront = true;
    Millis foundAt = 0;
};

} // namespace loopscope::store
