// Reads hardware targets from YAML into hw::Target, checking the schema with file:line:column errors.
#include "target_loader.h"

#include "analysis/instructions.h"
#include "common/c_names.h"
#include "common/yaml_documents.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>

namespace loopscope::hw {

namespace detail {
// Defined in the generated builtin_targets.cpp (cmake/embed_files.cmake).
std::size_t embeddedTargetCount();
std::string_view embeddedTargetName(std::size_t i);
std::string_view embeddedTargetText(std::size_t i);
} // namespace detail

namespace {

const std::vector<std::string> kTopKeys = {"name", "kind", "description", "clock_mhz", "compute",
                                           "memory", "constraints", "loop_overhead_cycles", "issue", "calibration"};
const std::vector<std::string> kComputeKeys = {"macs_per_cycle", "simd_lanes", "dsp", "fpu",
                                               "registers", "energy_pj_per_mac", "pe_array", "cores"};
const std::vector<std::string> kDtypes = {"int8", "int16", "int32", "float32"};
const std::vector<std::string> kPeArrayKeys = {"rows", "cols", "dataflows", "compute_cycles", "preload_cycles",
                                              "dma_max_bytes", "host_issue_cycles", "host_requantize_cycles"};
const std::vector<std::string> kDataflows = {"weight_stationary", "output_stationary"};
const std::vector<std::string> kLevelKeys = {"name", "size", "bandwidth_bytes_per_cycle", "latency_cycles",
                                             "energy_pj_per_byte", "buffer_count", "dma", "banks", "row_bytes"};
const std::vector<std::string> kConstraintKeys = {"max_tile_size", "alignment_bytes"};
const std::vector<std::string> kIssueKeys = {"width", "memory_cycles", "mac_cycles", "fpu_cycles",
                                             "taken_branch_cycles", "loop_exit_cycles", "load_use_cycles"};
const std::vector<std::string> kCalibrationKeys = {"compiler", "emulator", "date", "schedules", "coefficients"};

/// The instruction model's feature names (analysis/instructions.h): the keys of
/// calibration.coefficients. The copies' features are exact and take no coefficient.
std::vector<std::string> coefficientNames()
{
    std::vector<std::string> out;
    for (int i = 0; i < analysis::kInsnFeatureCount; ++i)
        if (!analysis::insnFeatureIsCopy(static_cast<analysis::InsnFeature>(i)))
            out.push_back(analysis::insnFeatureName(static_cast<analysis::InsnFeature>(i)));
    return out;
}
const std::vector<std::string> kKinds = {"mcu", "accelerator"};

/// Largest value accepted for fields stored as `int` (lanes, registers, PE rows, buffers).
constexpr int64_t kMaxSmallInt = 1 << 20;
/// Largest memory size accepted: 1 PiB, far beyond any target and far from int64 overflow.
constexpr int64_t kMaxSizeBytes = int64_t(1) << 50;
// Every number of a target lies within these (docs/hwdesc.md, "Ranges"): rates from 1e-6 (a
// byte per million cycles) and any number up to 1e9 keep the cost model's sums of up to 2^48
// executions finite in a double; figures past 2^63 saturate and say so.
constexpr double kMinRate = 1e-6;
constexpr double kMaxNumber = 1e9;

std::string joinNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names) {
        if (!out.empty())
            out += ", ";
        out += n;
    }
    return out;
}

size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

/// " (did you mean 'x'?)" when one allowed name is close to `given`, else "".
std::string suggestion(const std::string& given, const std::vector<std::string>& allowed)
{
    std::string best;
    size_t bestDistance = std::numeric_limits<size_t>::max();
    for (const auto& a : allowed) {
        // A truncated name ("clock" for "clock_mhz") counts as close.
        const bool prefix = given.size() >= 3 && (a.rfind(given, 0) == 0 || given.rfind(a, 0) == 0);
        const size_t d = prefix ? 1 : editDistance(given, a);
        if (d < bestDistance) {
            bestDistance = d;
            best = a;
        }
    }
    if (best.empty() || bestDistance > std::max<size_t>(2, best.size() / 3))
        return {};
    return " (did you mean '" + best + "'?)";
}

bool isIdentifier(const std::string& s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool isTargetName(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
}

std::string trim(std::string_view s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t");
    return std::string(s.substr(first, last - first + 1));
}

/// Parses a whole string as an integer: decimal or 0x-hex, optional sign.
bool parseInt(std::string_view s, int64_t& out)
{
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    if (s.empty() || s[0] == '+' || s[0] == '-')
        return false;
    uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
    if (ec != std::errc() || end != s.data() + s.size())
        return false;
    if (magnitude > uint64_t(std::numeric_limits<int64_t>::max()))
        return false;
    out = negative ? -int64_t(magnitude) : int64_t(magnitude);
    return true;
}

/// Parses a whole string as a finite number (integer, decimal or exponent form).
bool parseNumber(std::string_view s, double& out)
{
    int64_t i = 0;
    if (parseInt(s, i)) {
        out = static_cast<double>(i);
        return true;
    }
    if (!s.empty() && s[0] == '+')
        s.remove_prefix(1);
    if (s.empty() || s[0] == '+')
        return false;
    double d = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d))
        return false;
    out = d;
    return true;
}

/// One key/value pair of a YAML mapping, with the key already checked to be a scalar.
struct Entry {
    std::string key;
    YAML::Node keyNode;
    YAML::Node value;
};

/// Reads one document into a Target and collects every error it finds along the way.
class TargetReader {
public:
    explicit TargetReader(std::string path) : m_path(std::move(path)) {}

    std::vector<Diagnostic>& errors() { return m_errors; }

    /// Position of a node; 1-based. Unknown marks fall back to 1:1 so every error has a place.
    SourceLoc loc(const YAML::Mark& mark) const
    {
        SourceLoc l;
        l.file = m_path;
        if (mark.is_null() || mark.line < 0 || mark.column < 0) {
            l.line = 1;
            l.column = 1;
        } else {
            l.line = mark.line + 1;
            l.column = mark.column + 1;
        }
        return l;
    }

    void error(const YAML::Mark& mark, const std::string& field, const std::string& message)
    {
        Diagnostic d;
        d.severity = Severity::Error;
        d.loc = loc(mark);
        d.message = field.empty() ? message : field + ": " + message;
        m_errors.push_back(std::move(d));
    }

    /// Where a value error points: the value itself, or its key when the value is empty
    /// (yaml-cpp marks an empty value at the next token, often the next line).
    static YAML::Mark valueMark(const Entry& e)
    {
        if (e.value.IsNull() || e.value.Mark().is_null())
            return e.keyNode.Mark();
        return e.value.Mark();
    }

    /// "'text'", "a mapping", ... for "got ..." in messages. Never prints a whole collection:
    /// anchors can make it cyclic.
    static std::string describe(const YAML::Node& n)
    {
        if (!n.IsDefined() || n.IsNull())
            return "nothing";
        if (n.IsMap())
            return "a mapping";
        if (n.IsSequence())
            return "a sequence";
        std::string s = n.Scalar();
        if (s.size() > 40)
            s = s.substr(0, 37) + "...";
        for (char& c : s)
            if (static_cast<unsigned char>(c) < 0x20)
                c = ' ';
        return (n.Tag() == "!" ? "the quoted string '" : "'") + s + "'";
    }

    /// The entries of a mapping; reports non-scalar keys, duplicates and keys not in `allowed`.
    std::vector<Entry> entries(const YAML::Node& map, const std::string& field, const std::vector<std::string>& allowed,
                               const std::string& noun = "key")
    {
        std::vector<Entry> out;
        std::map<std::string, int> firstLine;
        for (auto it = map.begin(); it != map.end(); ++it) {
            const YAML::Node key = it->first;
            const YAML::Node value = it->second;
            const std::string where = field.empty() ? std::string() : field + ".";
            if (!key.IsScalar()) {
                error(key.Mark(), field.empty() ? "top level" : field,
                      "keys must be plain names, got " + describe(key) + " as a key");
                continue;
            }
            const std::string name = key.Scalar();
            if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
                error(key.Mark(), where + name,
                      "unknown " + noun + " '" + name + "'" + suggestion(name, allowed) + "; allowed " + noun +
                          "s " + (field.empty() ? "at top level" : "in " + field) + ": " + joinNames(allowed));
                continue;
            }
            const auto [prev, inserted] = firstLine.emplace(name, loc(key.Mark()).line);
            if (!inserted) {
                error(key.Mark(), where + name,
                      "duplicate key (first given on line " + std::to_string(prev->second) + ")");
                continue;
            }
            out.push_back({name, key, value});
        }
        return out;
    }

    static const Entry* find(const std::vector<Entry>& es, const std::string& key)
    {
        for (const auto& e : es)
            if (e.key == key)
                return &e;
        return nullptr;
    }

    bool expectMap(const Entry& e, const std::string& field)
    {
        if (e.value.IsMap())
            return true;
        error(valueMark(e), field, "expected a mapping, got " + describe(e.value));
        return false;
    }

    bool readString(const Entry& e, const std::string& field, std::string& out)
    {
        if (!e.value.IsScalar() || e.value.Scalar().empty()) {
            error(valueMark(e), field, "expected a non-empty string, got " + describe(e.value));
            return false;
        }
        out = e.value.Scalar();
        return true;
    }

    /// A number from a plain (unquoted) scalar; quoted numbers are strings in YAML.
    bool readNumber(const Entry& e, const std::string& field, double& out)
    {
        if (!e.value.IsScalar() || e.value.Tag() == "!" || !parseNumber(e.value.Scalar(), out)) {
            error(valueMark(e), field, "expected a number, got " + describe(e.value));
            return false;
        }
        return true;
    }

    bool readPositive(const Entry& e, const std::string& field, double& out)
    {
        double v = 0;
        if (!readNumber(e, field, v))
            return false;
        if (v <= 0) {
            error(valueMark(e), field, "expected a number > 0, got " + describe(e.value));
            return false;
        }
        if (v < kMinRate || v > kMaxNumber) {
            error(valueMark(e), field, "expected a number from 1e-06 to 1e+09, got " + describe(e.value));
            return false;
        }
        out = v;
        return true;
    }

    bool readNonNegative(const Entry& e, const std::string& field, double& out)
    {
        double v = 0;
        if (!readNumber(e, field, v))
            return false;
        if (v < 0) {
            error(valueMark(e), field, "expected a number >= 0, got " + describe(e.value));
            return false;
        }
        if (v > kMaxNumber) {
            error(valueMark(e), field, "expected a number <= 1e+09, got " + describe(e.value));
            return false;
        }
        out = v;
        return true;
    }

    bool readInt(const Entry& e, const std::string& field, int64_t minValue, int64_t maxValue, int64_t& out)
    {
        int64_t v = 0;
        if (!e.value.IsScalar() || e.value.Tag() == "!" || !parseInt(e.value.Scalar(), v)) {
            error(valueMark(e), field, "expected an integer, got " + describe(e.value));
            return false;
        }
        if (v < minValue || v > maxValue) {
            error(valueMark(e), field,
                  "expected an integer " +
                      (v < minValue ? ">= " + std::to_string(minValue) : "<= " + std::to_string(maxValue)) +
                      ", got " + describe(e.value));
            return false;
        }
        out = v;
        return true;
    }

    bool readSmallInt(const Entry& e, const std::string& field, int minValue, int& out)
    {
        int64_t v = 0;
        if (!readInt(e, field, minValue, kMaxSmallInt, v))
            return false;
        out = static_cast<int>(v);
        return true;
    }

    bool readBool(const Entry& e, const std::string& field, bool& out)
    {
        if (e.value.IsScalar() && e.value.Tag() != "!") {
            const std::string& s = e.value.Scalar();
            if (s == "true" || s == "True" || s == "TRUE") {
                out = true;
                return true;
            }
            if (s == "false" || s == "False" || s == "FALSE") {
                out = false;
                return true;
            }
        }
        error(valueMark(e), field, "expected true or false, got " + describe(e.value));
        return false;
    }

    /// A size in bytes: an integer, or a number with a binary unit ("512 KiB", "8 MiB").
    bool readSize(const Entry& e, const std::string& field, int64_t& out)
    {
        const std::string expected = "expected a positive size in bytes, got " + describe(e.value);
        if (!e.value.IsScalar()) {
            error(valueMark(e), field, expected);
            return false;
        }
        const std::string text = trim(e.value.Scalar());
        size_t unitStart = text.size();
        while (unitStart > 0 && std::isalpha(static_cast<unsigned char>(text[unitStart - 1])))
            --unitStart;
        // "0x1F" ends in a hex digit, not a unit: keep hex numbers whole.
        const size_t sign = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
        if (text.size() > sign + 2 && text[sign] == '0' && (text[sign + 1] == 'x' || text[sign + 1] == 'X'))
            unitStart = text.size();
        const std::string number = trim(std::string_view(text).substr(0, unitStart));
        std::string unit = text.substr(unitStart);
        std::string lowerUnit = unit;
        std::transform(lowerUnit.begin(), lowerUnit.end(), lowerUnit.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });

        int64_t multiplier = 0;
        if (lowerUnit.empty() || lowerUnit == "b")
            multiplier = 1;
        else if (lowerUnit == "kib")
            multiplier = int64_t(1) << 10;
        else if (lowerUnit == "mib")
            multiplier = int64_t(1) << 20;
        else if (lowerUnit == "gib")
            multiplier = int64_t(1) << 30;
        else if (lowerUnit == "k" || lowerUnit == "kb" || lowerUnit == "m" || lowerUnit == "mb" ||
                 lowerUnit == "g" || lowerUnit == "gb") {
            error(valueMark(e), field,
                  "unit '" + unit + "' is ambiguous (1000 or 1024?): write KiB, MiB or GiB (powers of 1024) "
                  "or give the size in bytes; got " + describe(e.value));
            return false;
        } else {
            error(valueMark(e), field,
                  "unknown size unit '" + unit + "'; use B, KiB, MiB or GiB, or give the size in bytes; got " +
                      describe(e.value));
            return false;
        }

        int64_t whole = 0;
        double value = 0;
        if (parseInt(number, whole)) {
            if (whole <= 0) {
                error(valueMark(e), field, expected);
                return false;
            }
            if (whole > kMaxSizeBytes / multiplier) {
                error(valueMark(e), field, "size is too large (at most 1 PiB), got " + describe(e.value));
                return false;
            }
            out = whole * multiplier;
            return true;
        }
        if (!parseNumber(number, value) || value <= 0) {
            error(valueMark(e), field, expected);
            return false;
        }
        const double bytes = value * static_cast<double>(multiplier);
        if (bytes > static_cast<double>(kMaxSizeBytes)) {
            error(valueMark(e), field, "size is too large (at most 1 PiB), got " + describe(e.value));
            return false;
        }
        if (bytes != std::floor(bytes)) {
            error(valueMark(e), field, "size is not a whole number of bytes, got " + describe(e.value));
            return false;
        }
        out = static_cast<int64_t>(bytes);
        return true;
    }

    void missing(const YAML::Mark& where, const std::string& field, const std::string& hint = {})
    {
        error(where, field, "required field is missing" + hint);
    }

    Target read(const YAML::Node& root)
    {
        Target t;
        t.path = m_path;
        // A file that is not a target (a schedule may name any file as its target) is refused
        // without quoting any of it.
        std::vector<std::string> topKeys;
        if (root.IsMap())
            for (auto it = root.begin(); it != root.end(); ++it)
                topKeys.push_back(it->first.IsScalar() ? it->first.Scalar() : std::string());
        if (!root.IsMap() || !isFileOfKind(topKeys, kTopKeys)) {
            error(root.Mark(), "",
                  "not a target file: expected a mapping of target fields (name, clock_mhz, compute, memory, ...)");
            return t;
        }
        const auto top = entries(root, "", kTopKeys);
        const YAML::Mark rootMark = root.Mark();

        if (const Entry* e = find(top, "name")) {
            if (readString(*e, "name", t.name) && !isTargetName(t.name))
                error(valueMark(*e), "name",
                      "expected letters, digits, '-', '_' or '.', got " + describe(e->value));
        } else {
            missing(rootMark, "name");
        }

        t.kind = "mcu";
        if (const Entry* e = find(top, "kind")) {
            std::string kind;
            if (readString(*e, "kind", kind)) {
                if (std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end())
                    error(valueMark(*e), "kind",
                          "expected one of " + joinNames(kKinds) + ", got " + describe(e->value));
                else
                    t.kind = kind;
            }
        }

        if (const Entry* e = find(top, "description")) {
            if (!e->value.IsScalar())
                error(valueMark(*e), "description", "expected a string, got " + describe(e->value));
            else
                t.description = e->value.Scalar();
        }

        if (const Entry* e = find(top, "clock_mhz"))
            readPositive(*e, "clock_mhz", t.clockMhz);
        else
            missing(rootMark, "clock_mhz");

        if (const Entry* e = find(top, "compute")) {
            if (expectMap(*e, "compute"))
                readCompute(*e, t.compute);
        } else {
            missing(rootMark, "compute", " (compute.macs_per_cycle gives the MACs per cycle per dtype)");
        }

        if (const Entry* e = find(top, "memory"))
            readMemory(*e, t.levels);
        else
            missing(rootMark, "memory", " (list the memory levels, outermost first)");

        if (const Entry* e = find(top, "constraints")) {
            if (expectMap(*e, "constraints")) {
                const auto cs = entries(e->value, "constraints", kConstraintKeys);
                if (const Entry* c = find(cs, "max_tile_size"))
                    readInt(*c, "constraints.max_tile_size", 0, std::numeric_limits<int64_t>::max(),
                            t.constraints.maxTileSize);
                if (const Entry* c = find(cs, "alignment_bytes")) {
                    int64_t a = 0;
                    if (readInt(*c, "constraints.alignment_bytes", 1, kMaxSmallInt, a)) {
                        if ((a & (a - 1)) != 0)
                            error(valueMark(*c), "constraints.alignment_bytes",
                                  "expected a power of two, got " + describe(c->value));
                        else
                            t.constraints.alignmentBytes = a;
                    }
                }
            }
        }

        if (const Entry* e = find(top, "loop_overhead_cycles"))
            readNonNegative(*e, "loop_overhead_cycles", t.loopOverheadCycles);

        if (const Entry* e = find(top, "issue")) {
            if (t.kind == "accelerator")
                error(e->keyNode.Mark(), "issue",
                      "only a CPU target (kind: mcu) has an issue model; an accelerator's host is described by "
                      "compute.pe_array.host_issue_cycles");
            else if (expectMap(*e, "issue"))
                readIssue(*e, t.issue);
        }

        if (const Entry* e = find(top, "calibration"))
            if (expectMap(*e, "calibration"))
                readCalibration(*e, t.calibration);

        return t;
    }

    /// `issue:` how the core turns instructions into cycles (docs/cost-model.md, "Cycles from
    /// instructions"). Every key is optional; the defaults describe a single-issue core where
    /// every instruction takes one cycle.
    void readIssue(const Entry& section, IssueModel& m)
    {
        m.present = true;
        m.loc = loc(section.keyNode.Mark());
        const auto es = entries(section.value, "issue", kIssueKeys);
        if (const Entry* e = find(es, "width"))
            readPositive(*e, "issue.width", m.width);
        if (const Entry* e = find(es, "memory_cycles"))
            readPositive(*e, "issue.memory_cycles", m.memoryCycles);
        if (const Entry* e = find(es, "mac_cycles"))
            readPositive(*e, "issue.mac_cycles", m.macCycles);
        if (const Entry* e = find(es, "fpu_cycles"))
            readPositive(*e, "issue.fpu_cycles", m.fpuCycles);
        if (const Entry* e = find(es, "taken_branch_cycles"))
            readNonNegative(*e, "issue.taken_branch_cycles", m.takenBranchCycles);
        if (const Entry* e = find(es, "loop_exit_cycles"))
            readNonNegative(*e, "issue.loop_exit_cycles", m.loopExitCycles);
        if (const Entry* e = find(es, "load_use_cycles"))
            readNonNegative(*e, "issue.load_use_cycles", m.loadUseCycles);
    }

    /// `calibration:` (written by loopscope-cli calibrate): what the coefficients were fitted
    /// for, and instructions per event of the instruction model's features.
    void readCalibration(const Entry& section, Calibration& c)
    {
        c.loc = loc(section.keyNode.Mark());
        const auto es = entries(section.value, "calibration", kCalibrationKeys);
        if (const Entry* e = find(es, "compiler"))
            readString(*e, "calibration.compiler", c.compiler);
        if (const Entry* e = find(es, "emulator"))
            readString(*e, "calibration.emulator", c.emulator);
        if (const Entry* e = find(es, "date"))
            readString(*e, "calibration.date", c.date);
        if (const Entry* e = find(es, "schedules")) {
            int64_t n = 0;
            if (readInt(*e, "calibration.schedules", 0, kMaxSmallInt, n))
                c.schedules = static_cast<int>(n);
        }
        if (const Entry* e = find(es, "coefficients")) {
            if (!expectMap(*e, "calibration.coefficients"))
                return;
            static const std::vector<std::string> names = coefficientNames();
            for (const Entry& k : entries(e->value, "calibration.coefficients", names, "coefficient")) {
                double v = 0;
                if (readNonNegative(k, "calibration.coefficients." + k.key, v))
                    c.coefficients[k.key] = v;
            }
        }
    }

    void readCompute(const Entry& section, Compute& c)
    {
        const auto es = entries(section.value, "compute", kComputeKeys);
        const YAML::Mark mark = section.keyNode.Mark();

        // macs_per_cycle values are kept with their nodes to check them against the PE array below.
        std::vector<std::pair<const Entry*, double>> macs;
        std::vector<Entry> macEntries;
        if (const Entry* e = find(es, "macs_per_cycle")) {
            if (expectMap(*e, "compute.macs_per_cycle")) {
                macEntries = entries(e->value, "compute.macs_per_cycle", kDtypes, "dtype");
                if (macEntries.empty() && e->value.size() == 0)
                    error(valueMark(*e), "compute.macs_per_cycle",
                          "expected at least one dtype (" + joinNames(kDtypes) + ")");
                for (const auto& m : macEntries) {
                    double v = 0;
                    const std::string field = "compute.macs_per_cycle." + m.key;
                    if (!readNumber(m, field, v))
                        continue;
                    if (v <= 0) {
                        error(valueMark(m), field,
                              "expected a number > 0 (leave the dtype out if the target has no unit for it), got " +
                                  describe(m.value));
                        continue;
                    }
                    if (v < kMinRate || v > kMaxNumber) {
                        error(valueMark(m), field, "expected a number from 1e-06 to 1e+09, got " + describe(m.value));
                        continue;
                    }
                    c.macsPerCycle[m.key] = v;
                }
            }
        } else {
            missing(mark, "compute.macs_per_cycle");
        }
        for (const auto& m : macEntries)
            if (c.macsPerCycle.count(m.key))
                macs.push_back({&m, c.macsPerCycle[m.key]});

        if (const Entry* e = find(es, "simd_lanes"))
            readSmallInt(*e, "compute.simd_lanes", 1, c.simdLanes);
        if (const Entry* e = find(es, "dsp"))
            readBool(*e, "compute.dsp", c.dsp);
        if (const Entry* e = find(es, "fpu"))
            readBool(*e, "compute.fpu", c.fpu);
        if (const Entry* e = find(es, "registers"))
            readSmallInt(*e, "compute.registers", 1, c.registers);
        if (const Entry* e = find(es, "cores"))
            readSmallInt(*e, "compute.cores", 1, c.cores);
        if (const Entry* e = find(es, "energy_pj_per_mac"))
            readNonNegative(*e, "compute.energy_pj_per_mac", c.energyPjPerMac);

        if (const Entry* e = find(es, "pe_array")) {
            if (expectMap(*e, "compute.pe_array")) {
                PeArray pe;
                bool ok = true;
                const auto ps = entries(e->value, "compute.pe_array", kPeArrayKeys);
                for (const char* key : {"rows", "cols", "dataflows"}) {
                    const std::string field = std::string("compute.pe_array.") + key;
                    const Entry* p = find(ps, key);
                    if (!p) {
                        missing(e->keyNode.Mark(), field);
                        ok = false;
                    } else if (p->key == "rows") {
                        ok &= readSmallInt(*p, field, 1, pe.rows);
                    } else if (p->key == "cols") {
                        ok &= readSmallInt(*p, field, 1, pe.cols);
                    } else {
                        ok &= readDataflows(*p, pe.dataflows);
                    }
                }

                pe.computeCycles = pe.rows;
                pe.preloadCycles = pe.rows;
                if (const Entry* p = find(ps, "compute_cycles"))
                    ok &= readSmallInt(*p, "compute.pe_array.compute_cycles", 1, pe.computeCycles);
                if (const Entry* p = find(ps, "preload_cycles"))
                    ok &= readSmallInt(*p, "compute.pe_array.preload_cycles", 0, pe.preloadCycles);
                if (const Entry* p = find(ps, "dma_max_bytes"))
                    ok &= readInt(*p, "compute.pe_array.dma_max_bytes", 0, kMaxSizeBytes, pe.dmaMaxBytes);
                if (const Entry* p = find(ps, "host_issue_cycles"))
                    ok &= readNonNegative(*p, "compute.pe_array.host_issue_cycles", pe.hostIssueCycles);
                if (const Entry* p = find(ps, "host_requantize_cycles"))
                    ok &= readNonNegative(*p, "compute.pe_array.host_requantize_cycles", pe.hostRequantizeCycles);

                if (ok) {
                    // A PE does at most one MAC per cycle: more would beat the physical bound.
                    const int64_t peak = int64_t(pe.rows) * pe.cols;
                    for (const auto& [m, v] : macs)
                        if (v > static_cast<double>(peak))
                            error(valueMark(*m), "compute.macs_per_cycle." + m->key,
                                  "exceeds the " + std::to_string(pe.rows) + "x" + std::to_string(pe.cols) +
                                      " PE array (at most " + std::to_string(peak) + " MACs per cycle), got " +
                                      describe(m->value));
                    c.peArray = pe;
                }
            }
        }
    }

    bool readDataflows(const Entry& e, std::vector<std::string>& out)
    {
        const std::string field = "compute.pe_array.dataflows";
        if (!e.value.IsSequence() || e.value.size() == 0) {
            error(valueMark(e), field,
                  "expected a non-empty list of dataflows (" + joinNames(kDataflows) + "), got " +
                      (e.value.IsSequence() ? std::string("an empty sequence") : describe(e.value)));
            return false;
        }
        bool ok = true;
        size_t i = 0;
        for (auto it = e.value.begin(); it != e.value.end(); ++it, ++i) {
            const YAML::Node d = *it;
            const std::string item = field + "[" + std::to_string(i) + "]";
            const YAML::Mark mark = d.Mark().is_null() ? e.value.Mark() : d.Mark();
            if (!d.IsScalar()) {
                error(mark, item, "expected a dataflow name, got " + describe(d));
                ok = false;
                continue;
            }
            const std::string name = d.Scalar();
            if (std::find(kDataflows.begin(), kDataflows.end(), name) == kDataflows.end()) {
                error(mark, item,
                      "unknown dataflow '" + name + "'" + suggestion(name, kDataflows) +
                          "; allowed: " + joinNames(kDataflows));
                ok = false;
            } else if (std::find(out.begin(), out.end(), name) != out.end()) {
                error(mark, item, "dataflow '" + name + "' is listed twice");
                ok = false;
            } else {
                out.push_back(name);
            }
        }
        return ok;
    }

    void readMemory(const Entry& section, std::vector<MemoryLevel>& levels)
    {
        if (!section.value.IsSequence() || section.value.size() == 0) {
            error(valueMark(section), "memory",
                  "expected a list of at least one memory level (outermost first), got " +
                      (section.value.IsSequence() ? std::string("an empty sequence") : describe(section.value)));
            return;
        }
        std::map<std::string, size_t> seen;
        size_t i = 0;
        for (auto it = section.value.begin(); it != section.value.end(); ++it, ++i) {
            const YAML::Node node = *it;
            const std::string field = "memory[" + std::to_string(i) + "]";
            const YAML::Mark mark = node.Mark().is_null() ? section.value.Mark() : node.Mark();
            if (!node.IsMap()) {
                error(mark, field, "expected a mapping (name, size, bandwidth_bytes_per_cycle, ...), got " +
                                       describe(node));
                continue;
            }
            MemoryLevel level;
            level.loc = loc(mark);
            const auto es = entries(node, field, kLevelKeys);

            if (const Entry* e = find(es, "name")) {
                if (readString(*e, field + ".name", level.name)) {
                    if (!isIdentifier(level.name)) {
                        error(valueMark(*e), field + ".name",
                              "expected a name of letters, digits and '_' (not starting with a digit), got " +
                                  describe(e->value));
                    } else if (const auto it = seen.find(level.name); it != seen.end()) {
                        error(valueMark(*e), field + ".name",
                              "duplicate level name '" + level.name + "' (also memory[" +
                                  std::to_string(it->second) + "])");
                    } else if (const std::string clash = levelMacroClash(level.name); !clash.empty()) {
                        error(valueMark(*e), field + ".name", "level name '" + level.name + "': " + clash);
                    } else {
                        seen.emplace(level.name, i);
                    }
                }
            } else {
                missing(mark, field + ".name");
            }
            if (const Entry* e = find(es, "size"))
                readSize(*e, field + ".size", level.sizeBytes);
            else
                missing(mark, field + ".size");
            if (const Entry* e = find(es, "bandwidth_bytes_per_cycle"))
                readPositive(*e, field + ".bandwidth_bytes_per_cycle", level.bandwidthBytesPerCycle);
            else
                missing(mark, field + ".bandwidth_bytes_per_cycle");
            if (const Entry* e = find(es, "latency_cycles"))
                readInt(*e, field + ".latency_cycles", 0, static_cast<int64_t>(kMaxNumber), level.latencyCycles);
            if (const Entry* e = find(es, "energy_pj_per_byte"))
                readNonNegative(*e, field + ".energy_pj_per_byte", level.energyPjPerByte);
            if (const Entry* e = find(es, "buffer_count"))
                readSmallInt(*e, field + ".buffer_count", 1, level.bufferCount);
            if (const Entry* e = find(es, "dma"))
                readBool(*e, field + ".dma", level.dma);
            if (const Entry* e = find(es, "banks"))
                readSmallInt(*e, field + ".banks", 1, level.banks);
            if (const Entry* e = find(es, "row_bytes")) {
                // A row-addressed level holds whole rows, spread evenly over its banks.
                if (readInt(*e, field + ".row_bytes", 0, kMaxSizeBytes, level.rowBytes) && level.rowBytes > 0 && level.sizeBytes > 0
                    && (level.sizeBytes % level.rowBytes != 0 || level.rows() % level.banks != 0)) {
                    error(valueMark(*e), field + ".row_bytes",
                          "expected a row size that divides the level into whole rows, the same number in each of its " + std::to_string(level.banks)
                              + " banks; " + std::to_string(level.sizeBytes) + " bytes do not split into rows of " + describe(e->value) + " bytes");
                    level.rowBytes = 0;
                }
            }
            levels.push_back(std::move(level));
        }
    }

private:
    std::string m_path;
    std::vector<Diagnostic> m_errors;
};


Result<Target> parseTargetImpl(const std::string& text, const std::string& path)
{
    TargetReader reader(path);

    // Pass 1: syntax and document count (scanYamlDocuments: without YAML::LoadAll's loop).
    const YamlDocuments documents = scanYamlDocuments(text);
    if (documents.kind != YamlDocuments::Kind::One) {
        YAML::Mark at;
        at.line = documents.line;
        at.column = documents.column;
        switch (documents.kind) {
        case YamlDocuments::Kind::SyntaxError: reader.error(at, "", "YAML syntax error: " + documents.message); break;
        case YamlDocuments::Kind::Stuck: reader.error(at, "", "YAML syntax error: unexpected " + documents.message); break;
        case YamlDocuments::Kind::NotUtf8: reader.error(at, "", documents.message); break;
        default: reader.error(at, "", "a target file holds one YAML document; a second one starts here");
        }
        return reader.errors();
    }

    // Pass 2: the one document as nodes.
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        reader.error(e.mark, "", "YAML syntax error: " + printableText(e.msg.empty() ? std::string(e.what()) : e.msg));
        return reader.errors();
    }
    if (documents.count == 0 || root.IsNull()) {
        YAML::Mark first = YAML::Mark::null_mark();
        if (documents.count > 0) {
            first = YAML::Mark();
            first.line = documents.firstLine;
            first.column = documents.firstColumn;
        }
        reader.error(first, "", "the file is empty; expected a target mapping with name, clock_mhz, compute and memory");
        return reader.errors();
    }
    Target t = reader.read(root);
    if (!reader.errors().empty()) {
        // Checks run section by section; report in file order, as a compiler would.
        auto errors = reader.errors();
        std::stable_sort(errors.begin(), errors.end(), [](const Diagnostic& a, const Diagnostic& b) {
            return std::pair(a.loc.line, a.loc.column) < std::pair(b.loc.line, b.loc.column);
        });
        return errors;
    }
    return t;
}

Diagnostic plainError(const std::string& file, const std::string& message)
{
    Diagnostic d;
    d.severity = Severity::Error;
    d.loc.file = file;
    d.message = message;
    return d;
}

} // namespace

Result<Target> parseTarget(const std::string& text, const std::string& path)
{
    // yaml-cpp reports problems by throwing; nothing may escape the API, so catch all of it here.
    try {
        return parseTargetImpl(text, path);
    } catch (const std::exception& e) {
        Diagnostic d = plainError(path, std::string("internal error while reading the target: ") + e.what());
        d.loc.line = 1;
        d.loc.column = 1;
        return d;
    } catch (...) {
        Diagnostic d = plainError(path, "internal error while reading the target");
        d.loc.line = 1;
        d.loc.column = 1;
        return d;
    }
}

Result<Target> loadTargetFile(const std::string& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return plainError(path, "is a directory, not a target file");
    std::string text;
    if (const std::string why = readRegularFile(path, text); !why.empty())
        return plainError(path, "cannot read the target file: " + why);
    return parseTarget(text, path);
}

std::vector<std::string> builtinTargetNames()
{
    std::vector<std::string> names;
    for (std::size_t i = 0; i < detail::embeddedTargetCount(); ++i)
        names.emplace_back(detail::embeddedTargetName(i));
    std::sort(names.begin(), names.end());
    return names;
}

std::string builtinTargetText(const std::string& name)
{
    for (std::size_t i = 0; i < detail::embeddedTargetCount(); ++i)
        if (detail::embeddedTargetName(i) == name)
            return std::string(detail::embeddedTargetText(i));
    return std::string();
}

Result<Target> loadBuiltinTarget(const std::string& name)
{
    for (std::size_t i = 0; i < detail::embeddedTargetCount(); ++i)
        if (detail::embeddedTargetName(i) == name)
            return parseTarget(std::string(detail::embeddedTargetText(i)), "hwdesc/targets/" + name + ".yaml");
    return plainError("", "unknown built-in target '" + name + "'; built-in targets: " +
                              joinNames(builtinTargetNames()));
}

Result<Target> resolveTarget(const std::string& nameOrPath, const std::string& baseDir)
{
    const auto names = builtinTargetNames();
    if (nameOrPath.empty())
        return plainError("", "no target given; use a built-in target (" + joinNames(names) +
                                  ") or the path of a target file");
    if (std::find(names.begin(), names.end(), nameOrPath) != names.end())
        return loadBuiltinTarget(nameOrPath);

    std::filesystem::path p(nameOrPath);
    if (p.is_relative() && !baseDir.empty())
        p = std::filesystem::path(baseDir) / p;
    std::error_code ec;
    if (!std::filesystem::exists(p, ec))
        return plainError("", "unknown target '" + nameOrPath + "': not a built-in target (" + joinNames(names) +
                                  ") and no file '" + p.string() + "'");
    return loadTargetFile(p.string());
}

} // namespace loopscope::hw
