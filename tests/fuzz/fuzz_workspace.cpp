// libFuzzer target: a workspace file (sqlite). Written to a file and opened as the app and the
// CLI open workspaces, read-only and read-write, and every record read: it must never crash; a
// file opened read-only must keep its bytes, and a file that is refused must keep its bytes and
// get no -wal, -shm or backup file beside it. The same bytes opened in memory (openBytes) too.
#include "fuzz_support.h"

#include "common/text_file.h"
#include "store/workspace.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

std::string readBack(const std::string& path)
{
    std::string text, why;
    readTextFile(path, text, why, int64_t(1) << 30);
    return text;
}

/// Files other than the workspace itself in the scratch folder (sidecars left behind).
std::string leftovers(const std::string& keep)
{
    std::string out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fuzz::scratchDir(), ec))
        if (e.path().filename() != keep)
            out += " " + e.path().filename().string();
    return out;
}

void clean()
{
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fuzz::scratchDir(), ec))
        fs::remove_all(e.path(), ec);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    if (auto ws = store::Workspace::openBytes(bytes))
        (void)(*ws)->readEverything();

    clean();
    const std::string name = "fuzz.loopscope-workspace";
    const std::string path = fuzz::scratchDir() + "/" + name;
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    bool readable = false;
    {
        auto ws = store::Workspace::open(path, {true, 0});
        if (ws) {
            readable = true;
            (void)(*ws)->readEverything();
        }
    }
    if (readBack(path) != bytes)
        fuzz::finding("opening a workspace read-only changed the file");
    // A workspace in WAL mode that opens may leave sqlite's -wal and -shm (a read-only
    // connection cannot remove them); one that is refused leaves nothing.
    if (const std::string extra = leftovers(name); !readable && !extra.empty())
        fuzz::finding("a workspace refused read-only left files beside it:" + extra);
    clean();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    bool opened = false;
    {
        auto ws = store::Workspace::open(path, {false, 0});
        if (ws) {
            opened = true;
            (void)(*ws)->readEverything();
        }
    }
    if (!opened) {
        if (readBack(path) != bytes)
            fuzz::finding("a refused workspace was changed");
        if (const std::string extra = leftovers(name); !extra.empty())
            fuzz::finding("a refused workspace left files beside it:" + extra);
    }
    clean();
    return 0;
}
