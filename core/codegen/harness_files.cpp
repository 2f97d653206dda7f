// Export harness support files: the templates of resources/firmware, embedded at build time
// (cmake/embed_files.cmake), with the kernel name substituted.
#include "codegen/harness_files.h"

#include "common/c_names.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string_view>

namespace loopscope::codegen {

namespace detail {
// Defined in the generated firmware_templates.cpp (cmake/embed_files.cmake).
std::size_t embeddedFirmwareCount();
std::string_view embeddedFirmwarePath(std::size_t i);
std::string_view embeddedFirmwareText(std::size_t i);
} // namespace detail

namespace {

/// Placeholder for the kernel name in the templates.
constexpr std::string_view kKernelPlaceholder = "@LOOPSCOPE_KERNEL@";

bool isIdentStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentChar(char c)
{
    return isIdentStart(c) || (c >= '0' && c <= '9');
}

std::string substitute(std::string_view text, std::string_view placeholder, const std::string& value)
{
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (true) {
        std::size_t hit = text.find(placeholder, pos);
        if (hit == std::string_view::npos) {
            out.append(text.substr(pos));
            return out;
        }
        out.append(text.substr(pos, hit - pos));
        out.append(value);
        pos = hit + placeholder.size();
    }
}

} // namespace

std::string harnessKernelNameError(const std::string& kernelName)
{
    if (kernelName.empty())
        return "the kernel name is empty";
    if (!isIdentStart(kernelName[0]) ||
        !std::all_of(kernelName.begin(), kernelName.end(), isIdentChar))
        return "kernel name '" + kernelName + "' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)";
    // The kernel file refuses these names already (ir::parseKernel); a kernel built in code
    // meets the same rules here.
    if (std::string why = cNameProblem(kernelName, CNameUse::Kernel); !why.empty())
        return "kernel name '" + kernelName + "' " + why;
    return {};
}

/// Templates of other harnesses (a Gemmini export's) live in a folder of their own.
constexpr std::string_view kGemminiFolder = "gemmini/";

std::vector<GeneratedFile> harnessSupportFiles(const std::string& kernelName)
{
    std::vector<GeneratedFile> files;
    for (auto& f : harnessSupportFiles(kernelName, ""))
        if (std::string_view(f.path).substr(0, kGemminiFolder.size()) != kGemminiFolder)
            files.push_back(std::move(f));
    return files;
}

std::vector<GeneratedFile> harnessSupportFiles(const std::string& kernelName, const std::string& prefix)
{
    if (std::string error = harnessKernelNameError(kernelName); !error.empty())
        throw std::invalid_argument("harness: " + error);

    std::vector<GeneratedFile> files;
    files.reserve(detail::embeddedFirmwareCount());
    for (std::size_t i = 0; i < detail::embeddedFirmwareCount(); ++i) {
        const std::string_view path = detail::embeddedFirmwarePath(i);
        if (path.substr(0, prefix.size()) != prefix)
            continue;
        files.push_back({std::string(path.substr(prefix.size())), substitute(detail::embeddedFirmwareText(i), kKernelPlaceholder, kernelName)});
    }
    std::sort(files.begin(), files.end(),
              [](const GeneratedFile& a, const GeneratedFile& b) { return a.path < b.path; });
    return files;
}

} // namespace loopscope::codegen
