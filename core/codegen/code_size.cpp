// The size of the C a nest becomes, counted without writing it (see code_size.h).
#include "codegen/code_size.h"

#include "codegen/c_codegen.h"
#include "codegen/c_decisions.h"
#include "codegen/gemmini_codegen.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

namespace loopscope::codegen {

using lower::Stmt;

namespace {

int64_t saturatingMul(int64_t a, int64_t b)
{
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

int64_t saturatingAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

bool writtenOut(const lower::LoopNest& nest, const Stmt& s)
{
    return s.kind == Stmt::Kind::For
        && (s.loopKind == sched::LoopKind::Unrolled || (s.loopKind == sched::LoopKind::Vectorized && vectorizedWrittenOut(nest, s)));
}

/// Statements under `id` (itself included), each counted `copies` times; the written-out loops
/// seen on the way, with their extents, go to `loops` when it is given.
int64_t count(const lower::LoopNest& nest, int id, int64_t copies, std::vector<const Stmt*>* loops)
{
    const Stmt& s = nest.stmts[id];
    int64_t total = copies;
    int64_t inner = copies;
    if (writtenOut(nest, s)) {
        inner = saturatingMul(copies, std::max<int64_t>(1, s.extent));
        if (loops && std::find(loops->begin(), loops->end(), &s) == loops->end())
            loops->push_back(&s);
    }
    for (int c : s.body)
        total = saturatingAdd(total, count(nest, c, inner, loops));
    return total;
}

} // namespace

int64_t writtenStatements(const lower::LoopNest& nest)
{
    return nest.stmts.empty() ? 0 : count(nest, nest.root, 1, nullptr);
}

std::string generatedCodeSizeError(const lower::LoopNest& nest)
{
    if (nest.stmts.empty())
        return {};
    // Counted without the loops first: the analysis asks this of every schedule it sees.
    const int64_t n = count(nest, nest.root, 1, nullptr);
    if (n <= kMaxWrittenStatements)
        return {};
    std::vector<const Stmt*> loops;
    count(nest, nest.root, 1, &loops);
    std::sort(loops.begin(), loops.end(), [](const Stmt* a, const Stmt* b) { return a->extent > b->extent; });
    std::string which;
    for (size_t i = 0; i < loops.size() && i < 4; ++i)
        which += (i ? ", " : "") + loops[i]->name + " (" + std::to_string(loops[i]->extent) + ")";
    if (loops.size() > 4)
        which += " and " + std::to_string(loops.size() - 4) + " more";
    const std::string many = n == std::numeric_limits<int64_t>::max() ? "more than 9.2e18" : std::to_string(n);
    return "the C of this schedule would hold " + many + " statements, more than the " + std::to_string(kMaxWrittenStatements)
        + " the exporter writes: the written-out (unrolled) loops " + which
        + " copy their bodies; unroll fewer or smaller loops (split them first and unroll the inner part)";
}

namespace {

constexpr const char* kNoCode = "/*\n * No code is shown: ";

/// `text` as C comment lines of at most about 72 columns (the Code pane at its default width),
/// each starting with `prefix`.
std::string commentLines(const std::string& text, const std::string& prefix)
{
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (!line.empty() && prefix.size() + line.size() + 1 + w.size() > 72) {
            out += prefix + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    if (!line.empty())
        out += prefix + line + "\n";
    return out;
}

} // namespace

std::string codeViewText(const lower::LoopNest& nest)
{
    // The reasons are long: wrapped, so that the view shows them without scrolling sideways.
    if (const std::string why = generatedCodeSizeError(nest); !why.empty())
        return "/*\n" + commentLines("No code is shown: " + why + ".", " * ") + " */\n";  // starts with kNoCode
    if (!isGemminiNest(nest))
        return generateSource(nest);
    if (const std::string why = gemminiExportError(nest); !why.empty())
        return commentLines("This schedule cannot be exported for the accelerator: " + why, "// ");
    return generateGemminiSource(nest);
}

bool codeViewShowsNoCode(const std::string& text) { return text.rfind(kNoCode, 0) == 0; }

} // namespace loopscope::codegen
