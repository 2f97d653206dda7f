// A temporary folder for a test, removed with its contents afterwards.
#include "support/temp_dir.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <unistd.h>

namespace loopscope::test {

TempDir::TempDir(const std::string& prefix)
{
    std::string t = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(t.data()))
        throw std::runtime_error("mkdtemp failed for " + t);
    path = t;
}

TempDir::~TempDir()
{
    // Write permission first (a test may have taken it away), then everything is removed.
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (!it->is_symlink(ec) && it->is_directory(ec))
            fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
}

namespace {

struct ProcessDirs {
    struct Entry {
        pid_t maker;
        std::unique_ptr<TempDir> dir;
    };
    std::mutex lock;
    std::map<std::string, Entry> dirs;
    ~ProcessDirs()
    {
        // A forked child leaves the folders its parent made alone; each goes with its maker.
        for (auto& [prefix, e] : dirs)
            if (e.maker != ::getpid())
                (void)e.dir.release();
    }
};

} // namespace

const std::filesystem::path& processTempDir(const std::string& prefix)
{
    static ProcessDirs all;
    std::lock_guard<std::mutex> hold(all.lock);
    ProcessDirs::Entry& e = all.dirs[prefix];
    if (!e.dir) {
        e.maker = ::getpid();
        e.dir = std::make_unique<TempDir>(prefix);
    }
    return e.dir->path;
}

} // namespace loopscope::test
