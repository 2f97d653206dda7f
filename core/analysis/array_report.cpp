// Text of the PE-array section of a cost report.
#include "analysis/array_report.h"

#include <cstdio>

namespace loopscope::analysis {

std::string arrayReportText(const ArrayReport& a)
{
    char line[512];
    std::string out;
    std::snprintf(line, sizeof line, "PE array %dx%d, %s: %lld computes, PE utilisation %.1f%%, %.1f%% of the compute bound over the whole run\n", a.dim, a.dim,
                  a.dataflow.c_str(), static_cast<long long>(a.instructions.compute), a.peUtilisation * 100, a.peakFraction * 100);
    out += line;
    std::snprintf(line, sizeof line, "  array %lld cycles; host %lld cycles issuing, looping and requantizing (overlapped with the array)\n",
                  static_cast<long long>(a.arrayCycles), static_cast<long long>(a.hostCycles));
    out += line;
    if (a.prepareCycles > 0) {
        std::snprintf(line, sizeof line, "  prepare %lld host cycles, once per set of weights (the initial accumulator row; not in the cycles above)\n",
                      static_cast<long long>(a.prepareCycles));
        out += line;
    }
    const ArrayInstructions& i = a.instructions;
    std::snprintf(line, sizeof line, "  instructions %lld: mvin %lld, mvout %lld, preload %lld (%lld bring new data), compute %lld, config %lld, flush %lld; %lld fences\n",
                  static_cast<long long>(i.total()), static_cast<long long>(i.mvin), static_cast<long long>(i.mvout), static_cast<long long>(i.preload),
                  static_cast<long long>(a.weightLoads), static_cast<long long>(i.compute), static_cast<long long>(i.config), static_cast<long long>(i.flush),
                  static_cast<long long>(i.fence));
    out += line;
    for (const RowLevel& l : a.levels) {
        std::snprintf(line, sizeof line, "  %s rows %lld of %lld (%d banks x %lld rows of %lld B)\n", l.name.c_str(), static_cast<long long>(l.peakRows),
                      static_cast<long long>(l.rows), l.banks, static_cast<long long>(l.rows / (l.banks > 0 ? l.banks : 1)), static_cast<long long>(l.rowBytes));
        out += line;
    }
    return out;
}

} // namespace loopscope::analysis
