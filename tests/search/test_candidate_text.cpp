// A candidate's text form (kept beside a search point in a workspace, read back when a run
// resumes): every candidate the space draws reads back equal, and text that is not one, or
// does not fit the space, is refused.
#include "support/test_paths.h"

#include "ir/kernel.h"
#include "search/candidate_text.h"
#include "search/search_space.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace loopscope;

namespace {

search::SearchSpace space(const std::string& kernel, const std::map<std::string, int64_t>& params = {},
                          const std::string& target = "cortex-m7")
{
    auto k = ir::loadKernelFile(test::kernelPath(kernel), params);
    EXPECT_TRUE(k.ok()) << k.errorText();
    return search::SearchSpace(
        sched::Program::initial(std::make_shared<const ir::Kernel>(std::move(*k)), test::builtinTarget(target)));
}

} // namespace

TEST(CandidateText, EveryDrawnCandidateReadsBackEqual)
{
    const std::map<std::string, std::map<std::string, int64_t>> kernels = {
        {"matmul_int8", {}}, {"dwsep_conv", {{"H", 8}, {"W", 8}, {"C", 8}, {"K", 8}}}};
    for (const auto& [kernel, params] : kernels)
        for (const std::string target : {"cortex-m7", "gemmini-16x16"}) {
            search::SearchSpace sp = space(kernel, params, target);
            std::mt19937_64 rng(7);
            search::Candidate c = sp.identity();
            for (int i = 0; i < 300; ++i) {
                c = (i % 2) ? sp.sample(rng) : sp.mutate(c, rng);
                std::string text = search::candidateToText(c);
                search::Candidate back;
                ASSERT_TRUE(search::candidateFromText(text, sp, back)) << kernel << " on " << target << ": " << text;
                EXPECT_EQ(back, c) << kernel << " on " << target << ": " << text;
                EXPECT_EQ(search::candidateToText(back), text);
            }
        }
}

TEST(CandidateText, TextThatIsNotACandidateOfTheSpaceIsRefused)
{
    search::SearchSpace sp = space("matmul_int8");
    std::string good = search::candidateToText(sp.identity());
    search::Candidate out;
    ASSERT_TRUE(search::candidateFromText(good, sp, out));
    const std::vector<std::string> bad = {
        "",
        "garbage",
        good + "|" + good,                       // two stages for a one-stage kernel
        "t=1,2;o=0,1;i=0,1;c=;d=;v=;u=0;z=0;a=-1",  // two loops for three
        "t=1,1,1;o=0,0,1;i=0,1,2;c=-1,-1,-1;d=0,0,0;v=0,0,0;u=0;z=0;a=-1",  // not a permutation
        "t=3,1,1;o=0,1,2;i=0,1,2;c=-1,-1,-1;d=0,0,0;v=0,0,0;u=0;z=0;a=-1",  // 3 does not divide the extent
        "t=1,1,1;o=0,1,2;i=0,1,2;c=-1,-1,-1;d=0,0,0;v=0,0,0;u=x;z=0;a=-1",  // not a number
        "t=1,1,1;o=0,1,2;i=0,1,2;c=-1,-1,-1;d=0,0,0;v=0,0,0;u=0;z=0;q=1",   // unknown field
    };
    for (const auto& text : bad)
        EXPECT_FALSE(search::candidateFromText(text, sp, out)) << text;
}
