// The interpreter's budget, counted on the nest without running it (see budget.h).
#include "verify/budget.h"

#include <cstdio>
#include <limits>

namespace loopscope::verify {

namespace {

constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

int64_t add(int64_t a, int64_t b)
{
    int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

int64_t mul(int64_t a, int64_t b)
{
    int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

int64_t steps(const lower::LoopNest& nest, int id, int64_t times)
{
    const lower::Stmt& s = nest.stmts[id];
    int64_t total = times;
    const int64_t inner = s.kind == lower::Stmt::Kind::For ? mul(times, std::max<int64_t>(0, s.extent)) : times;
    for (int c : s.body)
        total = add(total, steps(nest, c, inner));
    return total;
}

std::string approx(int64_t n)
{
    if (n == kSaturated)
        return "more than 9.2e18";
    if (n < 1000000)
        return std::to_string(n);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(n));
    return buf;
}

} // namespace

int64_t interpretedValues(const lower::LoopNest& nest)
{
    int64_t total = 0;
    for (const ir::Tensor& t : nest.kernel->tensors)
        total = add(total, mul(3, t.elements()));
    for (const lower::Buffer& b : nest.buffers)
        total = add(total, mul(b.doubleBuffer ? 2 : 1, b.elements()));
    return total;
}

int64_t interpretedSteps(const lower::LoopNest& nest)
{
    return nest.stmts.empty() ? 0 : steps(nest, nest.root, 1);
}

std::string interpretationBudgetError(const lower::LoopNest& nest)
{
    const int64_t values = interpretedValues(nest);
    const int64_t work = interpretedSteps(nest);
    std::string why;
    if (values > kMaxInterpretedValues)
        why = "hold " + approx(values) + " values (tensors and buffers; at most 2^26 = " + std::to_string(kMaxInterpretedValues) + ")";
    if (work > kMaxInterpretedSteps)
        why += (why.empty() ? "" : " and ") + std::string("run ") + approx(work) + " statements (at most 2^30 = "
            + std::to_string(kMaxInterpretedSteps) + ")";
    if (why.empty())
        return {};
    std::string params;
    for (const auto& [name, value] : nest.kernel->params)
        params += (params.empty() ? "" : ", ") + name + ": " + std::to_string(value);
    return "too large to interpret: the interpreter would " + why
        + ". Verify a smaller instance of the same schedule: give the kernel smaller sizes in the schedule's params:"
        + (params.empty() ? std::string(" (this kernel has no size parameters)")
                          : " (now " + params + "), e.g. params: {" + nest.kernel->params.begin()->first + ": 16}");
}

} // namespace loopscope::verify
