// `loopscope-cli search`: the front as a table and as JSON, the best schedule written with
// --out (and refused over an existing file), pinned steps, and bad input (exit 2, a message).
#include "support/temp_dir.h"
#include "support/test_paths.h"

#include "commands.h"
#include "sched/schedule_file.h"
#include "store/workspace.h"
#include "target_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct CliResult {
    int rc = -1;
    std::string out, err;
};

CliResult runSearchCli(std::vector<std::string> args)
{
    args.insert(args.begin(), "loopscope-cli");
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    std::ostringstream out, err;
    CliResult r;
    r.rc = cli::runCli(static_cast<int>(argv.size()), argv.data(), out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

std::string src(const std::string& rel) { return test::sourceDir() + "/" + rel; }

fs::path scratch()
{
    return test::processTempDir("loopscope_test_search");
}

} // namespace

TEST(SearchCli, TheBestScheduleWrittenToAnotherFolderOpens)
{
    // From a schedule whose target is a built-in name: the written file names it as such
    // (it was written as a path relative to the new folder, which then did not open).
    fs::path outFile = scratch() / "elsewhere" / "best.sched.yaml";
    fs::create_directories(outFile.parent_path());
    CliResult r = runSearchCli({"search", src("examples/schedules/matmul_int8_dsp.sched.yaml"), "--pin", "0", "--budget", "50", "--time", "0",
                                "--seed", "1", "--threads", "1", "--out", outFile.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto o = sched::openSchedule(outFile.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    EXPECT_EQ(o->file.target, "cortex-m7");
    // A target file stays a file, found from the new folder.
    fs::path fileOut = scratch() / "elsewhere" / "best_file_target.sched.yaml";
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", src("hwdesc/targets/cortex-m7.yaml"), "--budget",
                      "50", "--time", "0", "--threads", "1", "--out", fileOut.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto f = sched::openSchedule(fileOut.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(f.ok()) << f.errorText();
    EXPECT_NE(f->file.target, "cortex-m7");
}

TEST(SearchCli, TableJsonAndBestScheduleWritten)
{
    fs::path outFile = scratch() / "best.sched.yaml";
    CliResult r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "300", "--threads", "2",
                 "--out", outFile.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("Pareto front over (cycles, on-chip bytes, energy)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("what it changes"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("best for cycles found after "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  instructions"), std::string::npos) << "the table's column of predicted instructions\n" << r.out;
    EXPECT_NE(r.out.find("(the kernel unscheduled)"), std::string::npos) << "a kernel's `cur` row\n" << r.out;
    EXPECT_EQ(r.out.find("(the schedule given)"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(outFile));
    auto o = sched::openSchedule(outFile.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    // Refuses to replace it without --force, replaces it with.
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--out", outFile.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("--force"), std::string::npos);
    EXPECT_EQ(r.out, "") << "refused before searching, not after";
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--out", outFile.string(), "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;

    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "300", "--json", "--objective", "energy"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_GT(j["front"].size(), 0u);
    EXPECT_EQ(j["objective"], "energy");
    EXPECT_EQ(j["progress"]["drawn"], 300);
    EXPECT_EQ(j["progress"]["rejected"], 0);
    // Every candidate drawn is accounted for (pruned ones were missing from the output).
    EXPECT_EQ(j["progress"]["evaluated"].get<int>() + j["progress"]["pruned"].get<int>() + j["progress"]["duplicates"].get<int>()
                  + j["progress"]["rejected"].get<int>(),
              300);
    // Time to the best point: found within the run, at a batch's end.
    EXPECT_GT(j["progress"]["best_found_drawn"].get<int>(), 0);
    EXPECT_LE(j["progress"]["best_found_drawn"].get<int>(), 300);
    EXPECT_LE(j["progress"]["best_found_seconds"].get<double>(), j["progress"]["seconds"].get<double>());
    double best = j["front"][j["best"].get<int>()]["energy_uj"];
    for (const auto& p : j["front"]) {
        EXPECT_LE(best, p["energy_uj"].get<double>());
        EXPECT_TRUE(p["trace"].is_array());
        EXPECT_GT(p["instructions"].get<long long>(), 0) << "a CPU target's points carry the exported C's predicted instructions";
    }
}

TEST(SearchCli, TheBestScheduleGoesIntoAFolderMadeForItOrIsRefusedBeforeTheSearch)
{
    // A folder that does not exist yet is made, as export --out makes its folder (the search
    // used to run to its end and then fail: "cannot open the folder 'out'", the run lost).
    const fs::path dir = scratch() / "made" / "for" / "it";
    fs::remove_all(scratch() / "made");
    CliResult r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--time", "0",
                                "--out", (dir / "best.sched.yaml").string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "best.sched.yaml"));
    // A file where a folder must be: refused before the search, with the file named.
    const fs::path file = scratch() / "a_file";
    std::ofstream(file) << "x\n";
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--time", "0",
                      "--out", (file / "best.sched.yaml").string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("is not a folder"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a_file"), std::string::npos) << r.err;
    // A folder named as the file: refused before the search.
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--time", "0",
                      "--out", dir.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("is a folder"), std::string::npos) << r.err;
    fs::remove_all(scratch() / "made");
    fs::remove(file);
}

TEST(SearchCli, PinnedStepsOfASchedule)
{
    CliResult r = runSearchCli({"search", src("examples/schedules/conv2d_int8_tiled.sched.yaml"), "--pin", "3", "--budget", "128", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["pinned_steps"], 3);
    for (const auto& p : j["front"]) {
        ASSERT_GE(p["trace"].size(), 3u);
        EXPECT_EQ(p["trace"][0], "split oh by 4");
    }
}

// The steps after --pin K are where the search starts when its space can write them: said in
// the table's header and the JSON, and the schedule given is a point of the run (its figures,
// the `current` ones, on the front or beaten there).
TEST(SearchCli, TheUnpinnedStepsAreWhereTheSearchStarts)
{
    CliResult r = runSearchCli({"search", src("examples/schedules/matmul_int8_dsp.sched.yaml"), "--pin", "0", "--budget", "1", "--time", "0", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["pinned_steps"], 0);
    EXPECT_EQ(j["started_from_schedule"], true) << j["start"];
    ASSERT_EQ(j["front"].size(), 1u);
    EXPECT_EQ(j["front"][0]["cycles"], j["current"]["cycles"]);
    EXPECT_EQ(j["front"][0]["instructions"], j["current"]["instructions"]);
    // Outside the space: why, and the kernel as it is.
    r = runSearchCli({"search", src("examples/schedules/conv2d_int8_tflite_slide.sched.yaml"), "--pin", "0", "--budget", "1", "--time", "0"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("started from the pinned steps: the schedule's 9 other steps are outside the search's space: the cache of I slides"),
              std::string::npos)
        << r.out;
    // Everything pinned: nothing to start from, nothing said.
    r = runSearchCli({"search", src("examples/schedules/matmul_int8_dsp.sched.yaml"), "--budget", "1", "--time", "0", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out).contains("start"));
}

// A run from a hand schedule unrolled beyond the space's default limit of 64 (conv2d_int8_tflite_dsp's
// 144 copies) starts there, the schedule a point of the space with the limit raised to its own
// while the candidates drawn keep to 64, or to --max-unroll; the workspace keeps the limit, so
// that the run resumed from it is the run never stopped, either way.
TEST(SearchCli, ARunStartedFromAScheduleResumesInItsOwnSpace)
{
    const std::string schedule = src("examples/schedules/conv2d_int8_tflite_dsp.sched.yaml");
    CliResult d = runSearchCli({"search", schedule, "--pin", "0", "--budget", "1", "--time", "0"});
    ASSERT_EQ(d.rc, 0) << d.err;
    EXPECT_NE(d.out.find("they unroll 144 straight-line copies, beyond the space's limit of 64: the candidates drawn keep to it); "
                         "--max-unroll 144 searches among bodies that large\n"),
              std::string::npos)
        << d.out;
    for (const std::string limit : {"144", "64"}) {
        SCOPED_TRACE("--max-unroll " + limit);
        fs::path whole = scratch() / ("start-whole-" + limit + ".lsw");
        fs::path parts = scratch() / ("start-parts-" + limit + ".lsw");
        fs::remove(whole);
        fs::remove(parts);
        const std::vector<std::string> common = {"search", schedule, "--pin", "0", "--objective", "instructions", "--threads", "1", "--max-unroll", limit};
        auto with = [&](std::vector<std::string> extra) {
            std::vector<std::string> args = common;
            args.insert(args.end(), extra.begin(), extra.end());
            return args;
        };
        CliResult a = runSearchCli(with({"--budget", "512", "--json", "--workspace", whole.string()}));
        ASSERT_EQ(a.rc, 0) << a.err;
        auto ja = nlohmann::json::parse(a.out);
        ASSERT_EQ(ja["started_from_schedule"], true);
        if (limit == "64")
            EXPECT_EQ(ja["start_unrolled_copies"], 144);
        else
            EXPECT_FALSE(ja.contains("start_unrolled_copies"));
        CliResult b = runSearchCli(with({"--budget", "192", "--workspace", parts.string()}));
        ASSERT_EQ(b.rc, 0) << b.err;
        auto ws = store::Workspace::open(parts.string());
        ASSERT_TRUE(ws.ok()) << ws.errorText();
        auto run = (*ws)->searchRun(1);
        ASSERT_TRUE(run.has_value());
        EXPECT_NE(run->parametersJson.find("\"max_unroll_product\":" + limit), std::string::npos) << run->parametersJson;
        ws->reset();
        CliResult c = runSearchCli({"search", "--workspace", parts.string(), "--resume", "1", "--budget", "512", "--threads", "1", "--json"});
        ASSERT_EQ(c.rc, 0) << c.err;
        auto jc = nlohmann::json::parse(c.out);
        ASSERT_EQ(ja["front"].size(), jc["front"].size());
        for (size_t i = 0; i < ja["front"].size(); ++i) {
            EXPECT_EQ(ja["front"][i]["trace"], jc["front"][i]["trace"]);
            EXPECT_EQ(ja["front"][i]["instructions"], jc["front"][i]["instructions"]);
        }
    }
}

TEST(SearchCli, BadInputIsExitTwoWithAMessage)
{
    CliResult r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--budget", "10"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("--target"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--objective", "speed"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("unknown objective 'speed'"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("examples/schedules/conv2d_int8_tiled.sched.yaml"), "--pin", "99", "--budget", "10"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("exceeds the schedule's 7 steps"), std::string::npos) << r.err;
    r = runSearchCli({"search", src("tests/data/malformed/does-not-exist.kernel.yaml"), "--target", "cortex-m7"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_FALSE(r.err.empty());
}

TEST(SearchCli, RunStreamsIntoAWorkspaceAndResumes)
{
    const std::string kernel = src("examples/kernels/matmul_int8.kernel.yaml");
    fs::path whole = scratch() / "whole.lsw";
    fs::path parts = scratch() / "parts.lsw";
    fs::remove(whole);
    fs::remove(parts);
    CliResult a = runSearchCli({"search", kernel, "--target", "cortex-m7", "--budget", "512", "--threads", "2", "--json", "--workspace", whole.string()});
    ASSERT_EQ(a.rc, 0) << a.err;
    auto ja = nlohmann::json::parse(a.out);
    EXPECT_EQ(ja["search_run"], 1);
    // The same run stopped after 192 candidates, then resumed to 512.
    CliResult b = runSearchCli({"search", kernel, "--target", "cortex-m7", "--budget", "192", "--threads", "2", "--workspace", parts.string()});
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_NE(b.out.find("search run 1 in"), std::string::npos) << b.out;
    CliResult c = runSearchCli({"search", "--workspace", parts.string(), "--resume", "1", "--budget", "512", "--threads", "1", "--json"});
    ASSERT_EQ(c.rc, 0) << c.err;
    auto jc = nlohmann::json::parse(c.out);
    EXPECT_EQ(jc["progress"]["drawn"], 512);
    ASSERT_EQ(ja["front"].size(), jc["front"].size());
    for (size_t i = 0; i < ja["front"].size(); ++i) {
        EXPECT_EQ(ja["front"][i]["trace"], jc["front"][i]["trace"]);
        EXPECT_EQ(ja["front"][i]["cycles"], jc["front"][i]["cycles"]);
    }
    // The workspace holds the run, finished, and its front as variants tagged "search".
    auto ws = store::Workspace::open(parts.string());
    ASSERT_TRUE(ws.ok()) << ws.errorText();
    auto run = (*ws)->searchRun(1);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->status, store::SearchStatus::Finished);
    EXPECT_EQ(run->evaluated, 512);
    auto points = (*ws)->searchPoints(1, true);
    EXPECT_EQ(points.size(), jc["front"].size());
    for (const auto& p : points) {
        auto v = (*ws)->variant(p.variantId);
        ASSERT_TRUE(v.has_value());
        EXPECT_NE(std::find(v->tags.begin(), v->tags.end(), "search"), v->tags.end());
        EXPECT_TRUE(v->figures.has_value());
        EXPECT_NE(p.objectivesJson.find("\"candidate\""), std::string::npos);
    }
    // Points that left the front stay, marked.
    EXPECT_GE((*ws)->searchPoints(1, false).size(), points.size());
    // A run that is not there, and --resume without a workspace.
    CliResult d = runSearchCli({"search", "--workspace", parts.string(), "--resume", "7"});
    EXPECT_EQ(d.rc, cli::kExitBadInput);
    EXPECT_NE(d.err.find("no search run 7"), std::string::npos) << d.err;
    d = runSearchCli({"search", kernel, "--resume", "1"});
    EXPECT_EQ(d.rc, cli::kExitBadInput);
    EXPECT_NE(d.err.find("--resume needs --workspace"), std::string::npos) << d.err;
}

// From a schedule, --measure-top measures the schedule given in the same batch: the baseline
// the search's measured points are to beat, with the model's error beside it (the `cur` row);
// a kernel has no baseline. dense_int8_dsp's own count is the qemu suite's (tests/analysis).
TEST(SearchCli, MeasureTopAlsoMeasuresTheScheduleGiven)
{
    CliResult r = runSearchCli({"search", src("examples/schedules/dense_int8_dsp.sched.yaml"), "--pin", "0", "--objective", "instructions", "--budget",
                                "256", "--time", "0", "--threads", "1", "--measure-top", "1", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j.contains("measured_current")) << r.out;
    const auto& c = j["measured_current"];
    const long long insns = c["kernel_instructions"].get<long long>() + c["copy_instructions"].get<long long>();
    EXPECT_EQ(c["predicted_instructions"], j["current"]["instructions"]);
    EXPECT_NEAR(c["model_error"].get<double>(), (c["predicted_instructions"].get<double>() - static_cast<double>(insns)) / static_cast<double>(insns), 1e-12);
    // The same count as measuring the schedule alone.
    CliResult alone = runSearchCli({"analyze", src("examples/schedules/dense_int8_dsp.sched.yaml"), "--measure", "--json"});
    ASSERT_EQ(alone.rc, 0) << alone.err;
    auto ja = nlohmann::json::parse(alone.out);
    EXPECT_EQ(c["kernel_instructions"], ja["measured"]["kernel_instructions"]);
    EXPECT_EQ(c["copy_instructions"], ja["measured"]["copy_instructions"]);
    // The table's cur row.
    r = runSearchCli({"search", src("examples/schedules/dense_int8_dsp.sched.yaml"), "--pin", "0", "--objective", "instructions", "--budget", "256",
                      "--time", "0", "--threads", "1", "--measure-top", "1"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find(" cur          - "), std::string::npos) << r.out;
    // From a kernel: nothing to measure besides the points.
    r = runSearchCli({"search", src("examples/kernels/dense_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--time", "0", "--threads", "1",
                      "--measure-top", "1", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(nlohmann::json::parse(r.out).contains("measured_current"));
}

TEST(SearchCli, MeasureTopRanksTheBestRegisterBlocksByTheMeasurement)
{
    // dense_int8 on qemu's Cortex-M7: the best points for the objective of the two best register
    // blocks measured (on the front or not), ranked by the measured instructions, each with the
    // model's prediction and error beside it; --out writes the measured best. Needs
    // qemu-system-arm and arm-none-eabi-gcc (./test.sh installs them).
    const fs::path outFile = scratch() / "measured_best.sched.yaml";
    const fs::path measuredDir = scratch() / "measured_points";
    fs::remove_all(measuredDir);
    CliResult r = runSearchCli({"search", src("examples/kernels/dense_int8.kernel.yaml"), "--target", "cortex-m7", "--objective", "instructions",
                                "--budget", "512", "--threads", "1", "--seed", "1", "--measure-top", "2", "--json", "--out", outFile.string(),
                                "--measured-out", measuredDir.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["measured"].size(), 2u) << r.out;
    std::vector<std::string> traces;
    long long previous = 0;
    for (const auto& m : j["measured"]) {
        const long long insns = m["kernel_instructions"].get<long long>() + m["copy_instructions"].get<long long>();
        EXPECT_GT(m["kernel_instructions"].get<long long>(), 0);
        EXPECT_GE(insns, previous) << "ranked by the measurement";
        previous = insns;
        // A point of the front is the front's; every one replays to the instructions predicted.
        if (m["point"].get<int>() >= 0) {
            const auto& point = j["front"][m["point"].get<int>()];
            EXPECT_EQ(m["predicted_instructions"].get<long long>(), point["instructions"].get<long long>());
            EXPECT_EQ(m["trace"], point["trace"]);
            EXPECT_EQ(m["candidate"], point["index"]);
        }
        EXPECT_NEAR(m["model_error"].get<double>(), (m["predicted_instructions"].get<double>() - static_cast<double>(insns)) / static_cast<double>(insns), 1e-12);
        std::string trace;
        for (const auto& s : m["trace"])
            trace += s.get<std::string>() + "\n";
        traces.push_back(trace);
    }
    EXPECT_NE(j["measured"][0]["candidate"], j["measured"][1]["candidate"]);
    EXPECT_NE(traces[0], traces[1]);
    // The measured best is what --out wrote.
    auto o = sched::openSchedule(outFile.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    ASSERT_TRUE(o.ok()) << o.errorText();
    std::string written;
    for (const auto& s : o->program.trace)
        written += sched::describe(s) + "\n";
    EXPECT_EQ(written, traces.front());
    // --measured-out wrote every measured point, its prediction and measurement in the description.
    for (size_t i = 0; i < 2; ++i) {
        const auto& m = j["measured"][i];
        const fs::path f = measuredDir / ("point-" + std::to_string(m["candidate"].get<long long>()) + ".sched.yaml");
        auto p = sched::openSchedule(f.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(p.ok()) << f << ": " << p.errorText();
        std::string steps;
        for (const auto& s : p->program.trace)
            steps += sched::describe(s) + "\n";
        EXPECT_EQ(steps, traces[i]);
        const long long insns = m["kernel_instructions"].get<long long>() + m["copy_instructions"].get<long long>();
        const std::string text = test::readText(f.string());
        EXPECT_NE(text.find("predicted " + std::to_string(m["predicted_instructions"].get<long long>()) + " instructions, measured " + std::to_string(insns)),
                  std::string::npos) << text;
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(measuredDir), fs::directory_iterator{}), 2);
}

TEST(SearchCli, MeasuredOutNeedsMeasureTopAndChangesNothingWithout)
{
    const fs::path dir = scratch() / "measured_without_top";
    fs::remove_all(dir);
    CliResult r = runSearchCli({"search", src("examples/kernels/dense_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "64", "--measured-out", dir.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("--measured-out needs --measure-top N"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir));
}

// --front-out: every point of the front as a schedule file that opens and replays to the same
// figures; the JSON's traces name the stage of each step when the kernel has several (the
// depthwise-separable convolution's D and O both have loops h and w).
TEST(SearchCli, FrontOutWritesEveryPointAndTracesNameTheirStage)
{
    const fs::path dir = scratch() / "front_out";
    fs::remove_all(dir);
    CliResult r = runSearchCli({"search", src("examples/kernels/dwsep_conv.kernel.yaml"), "--target", "cortex-m7", "--budget", "200", "--time", "0",
                                "--threads", "1", "--seed", "3", "--json", "--front-out", dir.string()});
    ASSERT_EQ(r.rc, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    ASSERT_GT(j["front"].size(), 1u);
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir))
        files += e.path().extension() == ".yaml" ? 1 : 0;
    EXPECT_EQ(files, static_cast<int>(j["front"].size()));
    bool staged = false;
    for (const auto& p : j["front"]) {
        const fs::path file = dir / ("point-" + std::to_string(p["index"].get<long long>()) + ".sched.yaml");
        auto o = sched::openSchedule(file.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
        ASSERT_TRUE(o.ok()) << file << ": " << o.errorText();
        EXPECT_EQ(o->program.trace.size(), p["trace"].size()) << file;
        EXPECT_NE(o->file.description.find("of the front"), std::string::npos) << o->file.description;
        for (const auto& t : p["trace"]) {
            const std::string step = t.get<std::string>();
            EXPECT_TRUE(step.rfind("D: ", 0) == 0 || step.rfind("O: ", 0) == 0) << step;
            staged = true;
        }
    }
    EXPECT_TRUE(staged);
    // Files in the way: refused, nothing replaced, unless --force.
    const fs::path first = *fs::directory_iterator(dir);
    const auto before = fs::last_write_time(first);
    r = runSearchCli({"search", src("examples/kernels/dwsep_conv.kernel.yaml"), "--target", "cortex-m7", "--budget", "200", "--time", "0",
                      "--threads", "1", "--seed", "3", "--front-out", dir.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_NE(r.err.find("exists; pass --force"), std::string::npos) << r.err;
    EXPECT_EQ(fs::last_write_time(first), before);
    // ... and the run's results are printed all the same (they were lost with the files).
    EXPECT_NE(r.out.find("Pareto front over"), std::string::npos) << r.out;
    r = runSearchCli({"search", src("examples/kernels/dwsep_conv.kernel.yaml"), "--target", "cortex-m7", "--budget", "200", "--time", "0",
                      "--threads", "1", "--seed", "3", "--front-out", dir.string(), "--json"});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_GT(nlohmann::json::parse(r.out)["front"].size(), 1u);
    r = runSearchCli({"search", src("examples/kernels/dwsep_conv.kernel.yaml"), "--target", "cortex-m7", "--budget", "200", "--time", "0",
                      "--threads", "1", "--seed", "3", "--front-out", dir.string(), "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
    // A single-stage kernel's steps are written as before.
    r = runSearchCli({"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7", "--budget", "50", "--time", "0",
                      "--threads", "1", "--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    j = nlohmann::json::parse(r.out);
    for (const auto& p : j["front"])
        for (const auto& t : p["trace"])
            EXPECT_EQ(t.get<std::string>().find(": "), std::string::npos) << t;
    fs::remove_all(dir);
}

// A run kept in a workspace stores its kernel's and target's paths as JSON, which holds UTF-8
// only: a folder named in Latin-1 is refused before the workspace is made (the path came back
// altered, and the run could not be resumed).
TEST(SearchCli, AWorkspaceRunRefusesAPathThatIsNotUtf8AndMakesNothing)
{
    const fs::path dir = scratch() / "caf\xe9";
    fs::create_directories(dir);
    fs::copy_file(src("examples/kernels/matmul_int8.kernel.yaml"), dir / "matmul_int8.kernel.yaml", fs::copy_options::overwrite_existing);
    const fs::path ws = scratch() / "latin1.lsw";
    fs::remove(ws);
    CliResult r = runSearchCli({"search", (dir / "matmul_int8.kernel.yaml").string(), "--target", "cortex-m7", "--budget", "16",
                                "--workspace", ws.string()});
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("caf\\xe9"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("needs paths that are UTF-8 text"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(ws));
    // Without a workspace the same search runs.
    r = runSearchCli({"search", (dir / "matmul_int8.kernel.yaml").string(), "--target", "cortex-m7", "--budget", "16", "--time", "0"});
    EXPECT_EQ(r.rc, 0) << r.err;
}

// The files a search writes stay in the folder the user chose: a link in the way (even one to
// nothing) is a file there, refused without --force and replaced with it, never written
// through; a folder --front-out cannot use is said before the search.
TEST(SearchCli, ALinkInTheWayIsNeverWrittenThrough)
{
    const fs::path dir = scratch() / "links";
    fs::remove_all(dir);
    fs::create_directories(dir / "outside");
    fs::create_directories(dir / "chosen");
    auto search = [&](std::vector<std::string> more) {
        std::vector<std::string> args = {"search", src("examples/kernels/matmul_int8.kernel.yaml"), "--target", "cortex-m7",
                                         "--budget", "50", "--time", "0", "--threads", "1", "--seed", "1"};
        args.insert(args.end(), more.begin(), more.end());
        return runSearchCli(args);
    };
    const fs::path best = dir / "chosen" / "best.sched.yaml", made = dir / "outside" / "made.sched.yaml";
    fs::create_symlink(made, best);
    CliResult r = search({"--out", best.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput) << r.err;
    EXPECT_NE(r.err.find("exists; pass --force"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(fs::symlink_status(made)));
    r = search({"--out", best.string(), "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(fs::exists(fs::symlink_status(made)));
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(best)));
    auto o = sched::openSchedule(best.string(), [](const std::string& n, const std::string& d) { return hw::resolveTarget(n, d); });
    EXPECT_TRUE(o.ok()) << o.errorText();   // its kernel's path is relative to where it is

    r = search({"--json"});
    ASSERT_EQ(r.rc, 0) << r.err;
    const long long index = nlohmann::json::parse(r.out)["front"][0]["index"].get<long long>();
    const fs::path front = dir / "chosen" / "front", theirs = dir / "outside" / "theirs.txt";
    fs::create_directories(front);
    std::ofstream(theirs) << "someone else's file\n";
    const fs::path point = front / ("point-" + std::to_string(index) + ".sched.yaml");
    fs::create_symlink(theirs, point);
    r = search({"--front-out", front.string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput) << r.err;
    EXPECT_NE(r.err.find(point.string() + " exists; pass --force"), std::string::npos) << r.err;
    r = search({"--front-out", front.string(), "--force"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(test::readText(theirs.string()), "someone else's file\n");
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(point)));

    std::ofstream(dir / "chosen" / "afile") << "x\n";
    r = search({"--front-out", (dir / "chosen" / "afile" / "sub").string()});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_EQ(r.err.rfind("--front-out: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("afile' is not a folder"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("point-"), std::string::npos) << r.err;   // the folder is named, not a file in it
    EXPECT_EQ(r.out, "");   // refused before the search
    const std::string afile = (dir / "chosen" / "afile").string();
    r = search({"--front-out", afile});
    EXPECT_EQ(r.rc, cli::kExitBadInput);
    EXPECT_EQ(r.err, "--front-out: '" + afile + "' is not a folder\n");
    EXPECT_EQ(r.out, "");
    // Up through a folder that is not there, or through a file: refused before the search, and
    // no folder is made on the way.
    for (const fs::path& through : {dir / "chosen" / "missing" / ".." / "out", dir / "chosen" / "afile" / ".." / "out"}) {
        r = search({"--front-out", through.string()});
        EXPECT_EQ(r.rc, cli::kExitBadInput) << through;
        EXPECT_NE(r.err.find("which is not a folder"), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
    }
    EXPECT_FALSE(fs::exists(dir / "chosen" / "missing"));
    EXPECT_FALSE(fs::exists(dir / "chosen" / "out"));
    fs::remove_all(dir);
}

// Ctrl-C or SIGTERM stops a search as its time limit does: the front found so far is printed,
// the run kept in a workspace is marked stopped and resumable, exit 128 + the signal. The
// process died at once: nothing printed, and the run stayed "running" for ever. SIGTERM here:
// a shell starts a background command with SIGINT ignored, which the search keeps ignored; the
// handler is the same. The signal is sent once the run is in the workspace (its handler is
// installed at once after), and two seconds later.
TEST(SearchCli, ASignalStopsTheSearchAndKeepsItsRunResumable)
{
    const fs::path dir = scratch() / "interrupt";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string ws = (dir / "w.loopscope-workspace").string();
    const std::string out = (dir / "out.txt").string();
    const test::RunResult r = test::run("'" LOOPSCOPE_CLI "' search " + src("examples/kernels/conv2d_int8.kernel.yaml")
                                        + " --target cortex-m7 --time 300 --threads 1 --workspace '" + ws + "' > '" + out + "' 2>&1 & pid=$!; "
                                        "n=0; until [ -s '" + ws + "' ] || [ $n -gt 600 ]; do sleep 0.1; n=$((n+1)); done; sleep 2; "
                                        "kill -TERM $pid; wait $pid; echo \"exit=$?\"");
    const std::string output = test::readText(out);
    EXPECT_NE(r.output.find("exit=143"), std::string::npos) << r.output << output;
    EXPECT_NE(output.find(" rejected (interrupted)\n"), std::string::npos) << output;
    EXPECT_NE(output.find("Pareto front over"), std::string::npos) << output;
    EXPECT_NE(output.find("--resume 1"), std::string::npos) << output;
    auto w = store::Workspace::open(ws);
    ASSERT_TRUE(w.ok()) << w.errorText();
    const auto run = (*w)->searchRun(1);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->status, store::SearchStatus::Cancelled);
    EXPECT_NE(run->message.find("terminated (SIGTERM) after "), std::string::npos) << run->message;
    EXPECT_GT(run->evaluated, 0);
    fs::remove_all(dir);
}
