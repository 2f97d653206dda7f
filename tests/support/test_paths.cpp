// Shared test helpers: data paths and built-in targets.
#include "support/test_paths.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <sys/wait.h>

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

RunResult run(const std::string& command)
{
    RunResult r;
    const std::string cmd = command + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p))
        r.output.append(buf, n);
    const int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

} // namespace loopscope::test
