// Reading, writing and replaying schedule files.
#include "sched/schedule_file.h"

#include "common/atomic_file.h"
#include "common/yaml_documents.h"
#include "sched/schedule_paths.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace loopscope::sched {

namespace {

SourceLoc locOf(const YAML::Node& n, const std::string& path)
{
    YAML::Mark m = n.Mark();
    if (m.is_null())
        return {path, 0, 0};
    return {path, m.line + 1, m.column + 1};
}

struct Reader {
    std::string path;
    std::vector<Diagnostic> errors;

    void error(const YAML::Node& n, const std::string& msg) { errors.push_back({Severity::Error, locOf(n, path), msg}); }

    bool str(const YAML::Node& n, const std::string& field, std::string& out)
    {
        if (!n.IsScalar()) {
            error(n, field + ": expected a string");
            return false;
        }
        out = n.Scalar();
        return true;
    }

    bool integer(const YAML::Node& n, const std::string& field, int64_t& out)
    {
        if (!n.IsScalar()) {
            error(n, field + ": expected an integer");
            return false;
        }
        const std::string& s = n.Scalar();
        if (n.Tag() == "!") {  // "16": a string, refused as target files refuse one
            error(n, field + ": expected an integer, got the quoted string '" + s + "'");
            return false;
        }
        try {
            size_t used = 0;
            long long v = std::stoll(s, &used, 10);
            if (used != s.size())
                throw std::invalid_argument(s);
            out = v;
            return true;
        } catch (const std::out_of_range&) {
            error(n, field + ": '" + s + "' is outside the range of a 64-bit integer");
            return false;
        } catch (const std::exception&) {
            error(n, field + ": expected an integer, got '" + s + "'");
            return false;
        }
    }

    bool strList(const YAML::Node& n, const std::string& field, std::vector<std::string>& out)
    {
        if (!n.IsSequence()) {
            error(n, field + ": expected a list of names");
            return false;
        }
        for (const auto& e : n) {
            std::string s;
            if (!str(e, field, s))
                return false;
            out.push_back(s);
        }
        return true;
    }

    bool intList(const YAML::Node& n, const std::string& field, std::vector<int64_t>& out)
    {
        if (!n.IsSequence()) {
            error(n, field + ": expected a list of integers");
            return false;
        }
        for (const auto& e : n) {
            int64_t v;
            if (!integer(e, field, v))
                return false;
            out.push_back(v);
        }
        return true;
    }

    /// Fields each primitive accepts.
    static std::vector<std::string> allowedFields(Primitive p)
    {
        switch (p) {
        case Primitive::Split: return {"stage", "loop", "factor", "nparts"};
        case Primitive::Tile: return {"stage", "loops", "factors"};
        case Primitive::Reorder:
        case Primitive::Fuse: return {"stage", "loops"};
        case Primitive::Unroll:
        case Primitive::Vectorize:
        case Primitive::Parallel: return {"stage", "loop"};
        case Primitive::CacheRead: return {"stage", "tensor", "level", "at", "layout", "dtype", "slide"};
        case Primitive::CacheWrite: return {"stage", "tensor", "level", "at", "layout"};
        case Primitive::ComputeAt: return {"stage", "producer", "tensor", "level", "at"};
        case Primitive::ComputeInline: return {"producer"};
        case Primitive::DoubleBuffer: return {"stage", "tensor", "level"};
        case Primitive::Tensorize: return {"stage", "loops", "intrinsic", "dataflow"};
        }
        return {};
    }

    bool step(const YAML::Node& n, Step& out)
    {
        out.loc = locOf(n, path);
        if (!n.IsMap() || n.size() != 1) {
            error(n, "steps: each step is a map with one primitive, e.g. '- split: {loop: i, factor: 16}'");
            return false;
        }
        auto it = n.begin();
        const std::string name = it->first.Scalar();
        if (!parsePrimitive(name, out.primitive)) {
            error(it->first, "unknown primitive '" + name + "' (known: split, tile, reorder, fuse, unroll, vectorize, parallel, cache_read, cache_write, compute_at, compute_inline, double_buffer, tensorize)");
            return false;
        }
        const YAML::Node args = it->second;
        if (!args.IsMap()) {
            error(args, name + ": expected a map of parameters");
            return false;
        }
        auto allowed = allowedFields(out.primitive);
        bool ok = true;
        std::set<std::string> seen;
        for (const auto& kv : args) {
            const std::string key = kv.first.Scalar();
            if (!seen.insert(key).second) {
                error(kv.first, "duplicate key '" + key + "'");
                ok = false;
                continue;
            }
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string list;
                for (const auto& a : allowed)
                    list += (list.empty() ? "" : ", ") + a;
                error(kv.first, name + ": unknown parameter '" + key + "' (allowed: " + list + ")");
                ok = false;
                continue;
            }
            const std::string field = name + "." + key;
            const YAML::Node& v = kv.second;
            if (key == "stage")
                ok &= str(v, field, out.stage);
            else if (key == "loop") {
                std::string l;
                ok &= str(v, field, l);
                out.loops = {l};
            } else if (key == "loops")
                ok &= strList(v, field, out.loops);
            else if (key == "factor")
                ok &= integer(v, field, out.factor);
            else if (key == "nparts")
                ok &= integer(v, field, out.nparts);
            else if (key == "factors")
                ok &= intList(v, field, out.factors);
            else if (key == "layout")
                ok &= intList(v, field, out.layout);
            else if (key == "tensor")
                ok &= str(v, field, out.tensor);
            else if (key == "level")
                ok &= str(v, field, out.level);
            else if (key == "at")
                ok &= str(v, field, out.at);
            else if (key == "producer")
                ok &= str(v, field, out.producer);
            else if (key == "intrinsic")
                ok &= str(v, field, out.intrinsic);
            else if (key == "dtype")
                ok &= str(v, field, out.dtype);
            else if (key == "slide")
                ok &= str(v, field, out.slide);
            else if (key == "dataflow")
                ok &= str(v, field, out.dataflow);
        }
        return ok;
    }
};

std::string quoteIfNeeded(const std::string& s)
{
    bool plain = !s.empty();
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '/'))
            plain = false;
    std::string lower = s;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    // Words YAML reads as null, booleans or numbers must stay strings.
    static const char* const kReserved[] = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~", ".nan", ".inf", "-.inf"};
    for (const char* r : kReserved)
        if (lower == r)
            plain = false;
    auto digitAt = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
    bool numberLike = digitAt(0) || ((s.front() == '-' || s.front() == '.') && (digitAt(1) || (s.size() > 1 && s[1] == '.' && digitAt(2))));
    if (plain && (numberLike || s.front() == '-'))
        plain = false;
    if (plain)
        return s;
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
    return out + "\"";
}

std::string list(const std::vector<std::string>& v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + quoteIfNeeded(v[i]);
    return out + "]";
}

} // namespace

Result<ScheduleFile> parseScheduleFile(const std::string& text, const std::string& path)
{
    // One document: YAML::Load would read the first and drop the rest without a word.
    const YamlDocuments documents = scanYamlDocuments(text);
    if (documents.kind == YamlDocuments::Kind::NotUtf8)
        return Diagnostic{Severity::Error, {path, documents.line + 1, documents.column + 1}, documents.message};
    if (documents.kind == YamlDocuments::Kind::Second || documents.kind == YamlDocuments::Kind::Stuck)
        return Diagnostic{Severity::Error, {path, documents.line + 1, documents.column + 1},
                          documents.kind == YamlDocuments::Kind::Second ? "a schedule file holds one YAML document; a second one starts here"
                                                                        : "YAML syntax error: unexpected " + documents.message};
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        return Diagnostic{Severity::Error, {path, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + printableText(e.msg)};
    }
    Reader r{path, {}};
    ScheduleFile f;
    f.path = path;
    if (!root.IsMap())
        return Diagnostic{Severity::Error, locOf(root, path).known() ? locOf(root, path) : SourceLoc{path, 1, 1}, "a schedule file is a map with keys kernel, target, steps"};
    // A file that is not a schedule is refused without quoting any of it.
    std::vector<std::string> topKeys;
    for (auto it = root.begin(); it != root.end(); ++it)
        topKeys.push_back(it->first.IsScalar() ? it->first.Scalar() : std::string());
    if (!isFileOfKind(topKeys, {"kernel", "target", "description", "params", "steps"}))
        return Diagnostic{Severity::Error, {path, 1, 1}, "not a schedule file: its top-level keys are not those of a schedule (kernel, target, params, steps)"};
    bool haveKernel = false, haveTarget = false;
    std::set<std::string> seen;
    try {
        for (const auto& kv : root) {
            const std::string key = kv.first.Scalar();
            const YAML::Node& v = kv.second;
            if (!seen.insert(key).second) {
                r.error(kv.first, "duplicate key '" + key + "'");
                continue;
            }
            if (key == "kernel") {
                haveKernel = r.str(v, "kernel", f.kernel);
                f.kernelLoc = locOf(v, path);
            } else if (key == "target") {
                haveTarget = r.str(v, "target", f.target);
                f.targetLoc = locOf(v, path);
            }
            else if (key == "description")
                r.str(v, "description", f.description);
            else if (key == "params") {
                if (!v.IsMap()) {
                    r.error(v, "params: expected a map of size parameters, e.g. {M: 8}");
                    continue;
                }
                for (const auto& p : v) {
                    int64_t n;
                    if (r.integer(p.second, "params." + p.first.Scalar(), n)) {
                        f.params[p.first.Scalar()] = n;
                        f.paramLocs[p.first.Scalar()] = locOf(p.first, path);
                    }
                }
            } else if (key == "steps") {
                if (v.IsNull())
                    continue;
                if (!v.IsSequence()) {
                    r.error(v, "steps: expected a list of steps");
                    continue;
                }
                for (const auto& s : v) {
                    Step st;
                    if (r.step(s, st))
                        f.steps.push_back(st);
                }
            } else {
                r.error(kv.first, "unknown key '" + key + "' (allowed: kernel, target, description, params, steps)");
            }
        }
    } catch (const YAML::Exception& e) {
        r.errors.push_back({Severity::Error, {path, e.mark.line + 1, e.mark.column + 1}, printableText(e.msg)});
    }
    if (!haveKernel && r.errors.empty())
        r.errors.push_back({Severity::Error, {path, 1, 1}, "missing key 'kernel' (path of the kernel file, relative to this file)"});
    if (!haveTarget && r.errors.empty())
        r.errors.push_back({Severity::Error, {path, 1, 1}, "missing key 'target' (a built-in target name or a target file)"});
    if (!r.errors.empty())
        return r.errors;
    return f;
}

Result<ScheduleFile> loadScheduleFile(const std::string& path)
{
    std::string text, err;
    if (!readTextFile(path, text, err))
        return Diagnostic{Severity::Error, {path, 0, 0}, err};
    return parseScheduleFile(text, path);
}

std::string formatScheduleFile(const ScheduleFile& f)
{
    std::ostringstream os;
    if (!f.description.empty())
        os << "description: " << quoteIfNeeded(f.description) << "\n";
    os << "kernel: " << quoteIfNeeded(f.kernel) << "\n";
    os << "target: " << quoteIfNeeded(f.target) << "\n";
    if (!f.params.empty()) {
        os << "params: {";
        bool first = true;
        for (const auto& [k, v] : f.params) {
            os << (first ? "" : ", ") << k << ": " << v;
            first = false;
        }
        os << "}\n";
    }
    if (f.steps.empty()) {
        os << "steps: []\n";
        return os.str();
    }
    os << "steps:\n";
    for (const Step& s : f.steps) {
        std::vector<std::string> fields;
        if (!s.stage.empty())
            fields.push_back("stage: " + quoteIfNeeded(s.stage));
        if (!s.producer.empty())
            fields.push_back("producer: " + quoteIfNeeded(s.producer));
        if (!s.tensor.empty())
            fields.push_back("tensor: " + quoteIfNeeded(s.tensor));
        if (!s.level.empty())
            fields.push_back("level: " + quoteIfNeeded(s.level));
        bool single = s.primitive == Primitive::Split || s.primitive == Primitive::Unroll
            || s.primitive == Primitive::Vectorize || s.primitive == Primitive::Parallel;
        if (single && s.loops.size() == 1)
            fields.push_back("loop: " + quoteIfNeeded(s.loops[0]));
        else if (!s.loops.empty())
            fields.push_back("loops: " + list(s.loops));
        if (s.factor != 0)
            fields.push_back("factor: " + std::to_string(s.factor));
        if (s.nparts != 0)
            fields.push_back("nparts: " + std::to_string(s.nparts));
        if (!s.factors.empty()) {
            std::string fl = "[";
            for (size_t i = 0; i < s.factors.size(); ++i)
                fl += (i ? ", " : "") + std::to_string(s.factors[i]);
            fields.push_back("factors: " + fl + "]");
        }
        if (!s.at.empty())
            fields.push_back("at: " + quoteIfNeeded(s.at));
        if (!s.layout.empty()) {
            std::string ll = "[";
            for (size_t i = 0; i < s.layout.size(); ++i)
                ll += (i ? ", " : "") + std::to_string(s.layout[i]);
            fields.push_back("layout: " + ll + "]");
        }
        if (!s.dtype.empty())
            fields.push_back("dtype: " + quoteIfNeeded(s.dtype));
        if (!s.slide.empty())
            fields.push_back("slide: " + quoteIfNeeded(s.slide));
        if (!s.intrinsic.empty())
            fields.push_back("intrinsic: " + quoteIfNeeded(s.intrinsic));
        if (!s.dataflow.empty())
            fields.push_back("dataflow: " + quoteIfNeeded(s.dataflow));
        os << "  - " << primitiveName(s.primitive) << ": {";
        for (size_t i = 0; i < fields.size(); ++i)
            os << (i ? ", " : "") << fields[i];
        os << "}\n";
    }
    return os.str();
}

bool saveScheduleFile(const ScheduleFile& file, const std::string& path, std::string& error)
{
    // Atomic (a unique temporary file, synced, renamed, the folder synced), keeping the file's
    // permissions, and through a symbolic link to the file it points to.
    return writeFileAtomically(path, formatScheduleFile(file), error, LinkPolicy::FollowLink);
}

std::string directoryOf(const std::string& path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string joinPath(const std::string& dir, const std::string& rel)
{
    if (rel.empty() || rel[0] == '/' || dir.empty())
        return rel;
    return dir + "/" + rel;
}

Result<OpenedSchedule> openSchedule(const std::string& path, const TargetResolver& resolveTarget)
{
    auto file = loadScheduleFile(path);
    if (!file)
        return file.errors();
    return openScheduleFile(*file, scheduleFolder(path), resolveTarget);
}

Result<OpenedSchedule> openScheduleFile(const ScheduleFile& file, const std::string& folder, const TargetResolver& resolveTarget)
{
    OpenedSchedule o;
    o.file = file;
    const NamedFile kernelFile = resolveNamedFile(folder, o.file.kernel, o.file.kernelLoc, "kernel");
    if (kernelFile.warning)
        o.warnings.push_back(*kernelFile.warning);
    std::string probe, why;
    if (!readTextFile(kernelFile.path, probe, why))
        return Diagnostic{Severity::Error, o.file.kernelLoc, why + " (the kernel file, relative to the schedule)"};
    auto kernel = ir::loadKernelFile(kernelFile.path, o.file.params);
    if (!kernel) {
        // An override naming no parameter is this file's mistake: point at it here.
        std::vector<Diagnostic> errors = kernel.errors();
        for (auto& d : errors)
            for (const auto& [name, loc] : o.file.paramLocs)
                if (d.message.find("override of unknown parameter '" + name + "'") != std::string::npos)
                    d.loc = loc;
        return errors;
    }
    if (!o.file.target.empty() && o.file.target[0] == '/')
        if (const NamedFile t = resolveNamedFile(folder, o.file.target, o.file.targetLoc, "target"); t.warning)
            o.warnings.push_back(*t.warning);
    auto target = resolveTarget(o.file.target, folder);
    if (!target) {
        // Errors inside a target file keep their position; an unknown name points here.
        std::vector<Diagnostic> errors = target.errors();
        for (auto& d : errors)
            if (!d.loc.known()) {
                // The schedule's line, and the file the message is about.
                if (!d.loc.file.empty())
                    d.message = d.loc.file + ": " + d.message;
                d.loc = o.file.targetLoc;
            }
        return errors;
    }
    o.kernel = std::make_shared<const ir::Kernel>(std::move(*kernel));
    o.target = std::make_shared<const hw::Target>(std::move(*target));
    ApplyResult r = replay(o.kernel, o.target, o.file.steps);
    if (!r.ok()) {
        const ScheduleError& e = r.error();
        std::string msg = "step " + std::to_string(e.stepIndex + 1) + " (" + primitiveName(e.primitive) + "): " + e.message;
        if (!e.detail.empty())
            msg += " (" + e.detail + ")";
        return Diagnostic{Severity::Error, e.loc.known() ? e.loc : SourceLoc{o.file.path, 0, 0}, msg};
    }
    o.program = std::move(r.program());
    return o;
}

} // namespace loopscope::sched
