// Shared test helpers: data paths and built-in targets.
#include "support/test_paths.h"

#include <fstream>
#include <sstream>

#include "target_loader.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace loopscope::test {

std::string kernelPath(const std::string& name)
{
    std::string data = sourceDir() + "/tests/data/kernels/" + name + ".kernel.yaml";
    if (std::filesystem::exists(data))
        return data;
    return sourceDir() + "/examples/kernels/" + name + ".kernel.yaml";
}

std::shared_ptr<const hw::Target> builtinTarget(const std::string& name)
{
    auto t = hw::loadBuiltinTarget(name);
    if (!t) {
        ADD_FAILURE() << t.errorText();
        return nullptr;
    }
    return std::make_shared<const hw::Target>(*t);
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace loopscope::test
