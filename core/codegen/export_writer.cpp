// Writes an export without overwriting files it did not write itself (see export_writer.h).
// Everything is checked before anything is written; every file is written atomically inside
// the chosen folder, through folder descriptors that never follow a link.
#include "codegen/export_writer.h"

#include "common/atomic_file.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace loopscope::codegen {

namespace fs = std::filesystem;

namespace {

/// The first line of every manifest an export writes: a file of that name without it is the
/// user's, not ours.
constexpr const char* kManifestHeader = "# Files written by loopscope-cli export / the app's Export C, with a hash of each as written:\n";

/// Files compared with what an export writes are small; a larger one is someone else's.
constexpr int64_t kMaxComparedBytes = int64_t(64) << 20;

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

/// The components of a relative path an export writes ("cortex-m/startup.c"); empty when it is
/// not one (absolute, "..", empty parts).
std::vector<std::string> componentsOf(const std::string& path)
{
    std::vector<std::string> out;
    std::string part;
    std::istringstream in(path);
    while (std::getline(in, part, '/')) {
        if (part.empty() || part == "." || part == "..")
            return {};
        out.push_back(part);
    }
    return path.empty() || path.back() == '/' ? std::vector<std::string>{} : out;
}

/// What is already in the export folder, looked at without following links.
struct Survey {
    std::vector<std::string> conflicts;   ///< files in the way (replaced with force)
    std::vector<std::string> blockers;    ///< problems force does not override, as messages
    std::map<std::string, std::string> manifest;  ///< entries of an earlier export's manifest
    bool manifestInTheWay = false;        ///< a .loopscope-export that is not an export's manifest
};

Survey survey(const fs::path& dir, const std::vector<GeneratedFile>& files)
{
    Survey s;
    std::error_code ec;
    const auto dirStatus = fs::status(dir, ec);
    if (!fs::exists(dirStatus))
        return s;  // a new folder: nothing in the way
    const std::string shown = dir.string();
    if (!fs::is_directory(dirStatus)) {
        s.blockers.push_back("'" + shown + "' is not a folder");
        return s;
    }
    std::string why;
    DirHandle root = DirHandle::open(shown, why);
    if (!root.valid()) {
        s.blockers.push_back(why);
        return s;
    }
    // The manifest: only a regular file that starts as ours is one.
    switch (root.kind(kExportManifest)) {
    case DirHandle::Kind::Missing: break;
    case DirHandle::Kind::File: {
        std::string text;
        if (!root.read(kExportManifest, text, kMaxComparedBytes).empty() || text.rfind(kManifestHeader, 0) != 0) {
            s.manifestInTheWay = true;
            break;
        }
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line))
            if (!line.empty() && line[0] != '#' && line.size() > 18 && line[16] == ' ' && line[17] == ' ')
                s.manifest[line.substr(18)] = line.substr(0, 16);
        break;
    }
    case DirHandle::Kind::Directory:
        s.blockers.push_back("'" + (dir / kExportManifest).string() + "' is a folder; an export never deletes a folder");
        break;
    default: s.manifestInTheWay = true; break;
    }
    if (s.manifestInTheWay)
        s.conflicts.push_back(kExportManifest);
    for (const auto& f : files) {
        const std::vector<std::string> parts = componentsOf(f.path);
        if (parts.empty()) {
            s.blockers.push_back("'" + f.path + "' is not a path inside the export folder");
            continue;
        }
        // Every folder on the way must be a real folder inside --out (or missing).
        const DirHandle* here = &root;
        DirHandle sub;
        bool reachable = true;
        std::string where;
        for (size_t i = 0; i + 1 < parts.size() && reachable; ++i) {
            where += parts[i] + "/";
            const DirHandle::Kind k = here->kind(parts[i]);
            if (k == DirHandle::Kind::Missing) {
                reachable = false;  // created when written: nothing in it yet
                break;
            }
            if (k != DirHandle::Kind::Directory) {
                s.blockers.push_back("'" + (dir / where).string() + "' is " + describeKind(k) + " where the export needs a folder"
                                     + (k == DirHandle::Kind::Link ? " (an export never writes through a link out of its folder)" : ""));
                reachable = false;
                break;
            }
            sub = here->sub(parts[i], false, why);
            if (!sub.valid()) {
                s.blockers.push_back(why);
                reachable = false;
                break;
            }
            here = &sub;
        }
        if (!reachable)
            continue;
        const std::string& name = parts.back();
        switch (here->kind(name)) {
        case DirHandle::Kind::Missing: break;
        case DirHandle::Kind::Directory:
            s.blockers.push_back("'" + (dir / f.path).string() + "' is a folder; an export never deletes a folder");
            break;
        case DirHandle::Kind::File: {
            std::string old;
            if (!here->read(name, old, kMaxComparedBytes).empty()) {
                s.conflicts.push_back(f.path);  // unreadable or too large: never ours
                break;
            }
            if (old == f.text)
                break;
            auto m = s.manifest.find(f.path);
            if (m == s.manifest.end() || m->second != hashOf(old))
                s.conflicts.push_back(f.path);
            break;
        }
        default:
            s.conflicts.push_back(f.path);  // a link (replaced, never followed) or a special file
            break;
        }
    }
    return s;
}

std::string joinList(const std::vector<std::string>& items, const std::string& sep)
{
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : sep) + i;
    return out;
}

} // namespace

std::vector<std::string> exportConflicts(const fs::path& dir, const std::vector<GeneratedFile>& files)
{
    return survey(dir, files).conflicts;
}

ExportWriteResult writeExport(const fs::path& dir, const std::vector<GeneratedFile>& files, bool force)
{
    ExportWriteResult r;
    // 1. Look at everything first: nothing is written unless all of it can be.
    const Survey s = survey(dir, files);
    if (!s.blockers.empty()) {
        r.error = "not exporting into '" + dir.string() + "': " + joinList(s.blockers, "; ") + ". Nothing was written.";
        return r;
    }
    if (!s.conflicts.empty() && !force) {
        r.conflicts = s.conflicts;
        r.error = conflictMessage(dir, r.conflicts, "");
        return r;
    }
    // 2. Write: the folder, then each file atomically, then the manifest.
    std::error_code ec;
    // The folders create_directories makes (--out new/a/b: new, a and b), innermost first: a
    // stopped export removes them again.
    std::vector<fs::path> madeAbove;
    // Only what is certainly not there: a folder whose state cannot be read (no search
    // permission above it) is not one this export makes, and never one it removes.
    for (fs::path p = dir; !p.empty() && fs::symlink_status(p, ec).type() == fs::file_type::not_found && p != p.parent_path();
         p = p.parent_path())
        madeAbove.push_back(p);
    auto unmake = [&] {
        for (const fs::path& p : madeAbove)
            fs::remove(p, ec);  // only if empty: a folder that holds anything stays
    };
    fs::create_directories(dir, ec);
    std::string why;
    DirHandle root = DirHandle::open(dir.string(), why);
    if (!root.valid()) {
        r.error = "cannot create '" + dir.string() + "'" + (ec ? ": " + ec.message() : ": " + why);
        unmake();
        return r;
    }
    // Every folder the files go to, made and tried (a file created and removed) before any file
    // is written: a folder that cannot be written (cortex-m/ read-only) stops the export with
    // nothing written, instead of after the files before it.
    std::map<std::string, DirHandle> folders;  // relative path ("" the export's own) -> handle
    folders.emplace("", std::move(root));
    std::vector<std::string> made;  // the folders made here, removed again if the export stops
    auto stop = [&](const std::string& error) {
        for (auto m = made.rbegin(); m != made.rend(); ++m)
            fs::remove(dir / *m, ec);  // empty: nothing was written in them
        unmake();
        r.error = error + ". Nothing was written.";
        return r;
    };
    for (const auto& f : files) {
        const std::vector<std::string> parts = componentsOf(f.path);
        std::string at;
        for (size_t i = 0; i + 1 < parts.size(); ++i) {
            const std::string next = at.empty() ? parts[i] : at + "/" + parts[i];
            if (!folders.count(next)) {
                const DirHandle& parent = folders.at(at);
                const bool missing = parent.kind(parts[i]) == DirHandle::Kind::Missing;
                DirHandle sub = parent.sub(parts[i], true, why);
                if (!sub.valid())
                    return stop(why);
                if (missing)
                    made.push_back(next);
                folders.emplace(next, std::move(sub));
            }
            at = next;
        }
    }
    for (const auto& [rel, folder] : folders)
        if (!folder.probeWritable(why))
            return stop(why);
    // Entries of files this export does not write (an earlier export with --harness) stay, when
    // the manifest was an export's.
    std::map<std::string, std::string> manifest = s.manifest;
    auto failed = [&](const std::string& error) {
        // Half-way (a full disk): each file written is whole; say which, and that the manifest
        // is not, so that a user knows what to look at before exporting again.
        r.error = error;
        if (!r.written.empty()) {
            std::vector<std::string> names;
            for (const auto& w : r.written)
                names.push_back(w.lexically_relative(dir).string());
            r.error += "; written before it, each whole: " + joinList(names, ", ") + " (the export's manifest was not)";
        } else {
            r.error += ". Nothing was written.";
        }
        return r;
    };
    for (const auto& f : files) {
        const std::vector<std::string> parts = componentsOf(f.path);
        std::string at;
        for (size_t i = 0; i + 1 < parts.size(); ++i)
            at = at.empty() ? parts[i] : at + "/" + parts[i];
        std::string error;
        if (!folders.at(at).write(parts.back(), f.text, error))
            return failed(error);
        manifest[f.path] = hashOf(f.text);
        r.written.push_back(dir / f.path);
    }
    std::string text = kManifestHeader;
    text += "# a later export replaces them only while they are unchanged. Safe to delete.\n";
    for (const auto& [path, hash] : manifest)
        text += hash + "  " + path + "\n";
    std::string error;
    if (!folders.at("").write(kExportManifest, text, error))
        return failed(error);
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
