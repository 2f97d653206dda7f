// Writes an export without overwriting files it did not write itself (see export_writer.h).
#include "codegen/export_writer.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace loopscope::codegen {

namespace fs = std::filesystem;

namespace {

/// FNV-1a, 64 bits: tells an unchanged file from an edited one (not a security measure).
std::string hashOf(const std::string& text)
{
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
    return buf;
}

std::optional<std::string> readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Manifest lines: "<hash>  <relative path>".
std::map<std::string, std::string> readManifest(const fs::path& dir)
{
    std::map<std::string, std::string> out;
    std::optional<std::string> text = readFile(dir / kExportManifest);
    if (!text)
        return out;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty() && line[0] != '#' && line.size() > 18 && line[16] == ' ' && line[17] == ' ')
            out[line.substr(18)] = line.substr(0, 16);
    }
    return out;
}

} // namespace

std::vector<std::string> exportConflicts(const fs::path& dir, const std::vector<GeneratedFile>& files)
{
    std::vector<std::string> conflicts;
    const auto manifest = readManifest(dir);
    for (const auto& f : files) {
        const fs::path p = dir / f.path;
        std::error_code ec;
        if (!fs::exists(p, ec))
            continue;
        std::optional<std::string> old = fs::is_regular_file(p, ec) ? readFile(p) : std::nullopt;
        if (!old) {
            conflicts.push_back(f.path);  // a directory, or unreadable: never replaced
            continue;
        }
        if (*old == f.text)
            continue;
        auto m = manifest.find(f.path);
        if (m == manifest.end() || m->second != hashOf(*old))
            conflicts.push_back(f.path);
    }
    return conflicts;
}

ExportWriteResult writeExport(const fs::path& dir, const std::vector<GeneratedFile>& files, bool force)
{
    ExportWriteResult r;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        r.error = "cannot create '" + dir.string() + "'" + (ec ? ": " + ec.message() : std::string());
        return r;
    }
    if (!force) {
        r.conflicts = exportConflicts(dir, files);
        if (!r.conflicts.empty()) {
            r.error = conflictMessage(dir, r.conflicts, "");
            return r;
        }
    }
    // Entries of files this export does not write (an earlier export with --harness) stay.
    auto manifest = readManifest(dir);
    for (const auto& f : files) {
        const fs::path p = dir / f.path;
        fs::create_directories(p.parent_path(), ec);
        if (fs::is_directory(p, ec))
            fs::remove_all(p, ec);  // only reached with force
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        if (!out || !(out << f.text) || !out.flush()) {
            r.error = "cannot write '" + p.string() + "'";
            return r;
        }
        manifest[f.path] = hashOf(f.text);
        r.written.push_back(p);
    }
    std::ofstream m(dir / kExportManifest, std::ios::binary | std::ios::trunc);
    m << "# Files written by loopscope-cli export / the app's Export C, with a hash of each as written:\n"
         "# a later export replaces them only while they are unchanged. Safe to delete.\n";
    for (const auto& [path, hash] : manifest)
        m << hash << "  " << path << "\n";
    if (!m.flush()) {
        r.error = "cannot write '" + (dir / kExportManifest).string() + "'";
        return r;
    }
    r.ok = true;
    return r;
}

std::string conflictMessage(const fs::path& dir, const std::vector<std::string>& conflicts, const std::string& forceHint)
{
    std::string list;
    for (const auto& c : conflicts)
        list += (list.empty() ? "" : ", ") + c;
    return "not exporting into '" + dir.string() + "': " + list + (conflicts.size() == 1 ? " exists" : " exist")
        + " and would be overwritten (not written by an earlier export, or edited since). Nothing was written."
        + (forceHint.empty() ? std::string() : " " + forceHint + (conflicts.size() == 1 ? " it." : " them."));
}

} // namespace loopscope::codegen
