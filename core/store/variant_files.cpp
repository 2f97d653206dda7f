// Variants from schedule files, rebuilt from stored texts, compared with a schedule, and written back.
#include "store/variant_files.h"

#include "ir/kernel.h"
#include "store/figures.h"
#include "store/workspace.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace loopscope::store {

namespace {

bool isBuiltin(const std::string& target) { return !target.empty() && target.find('/') == std::string::npos && !target.ends_with(".yaml"); }

std::string absolute(const std::string& p) { return fs::absolute(p).lexically_normal().string(); }

} // namespace

std::string builtinPath(const std::string& name) { return "builtin:" + name; }

const char* diskStateName(DiskState s) { return s == DiskState::Same ? "same" : s == DiskState::Changed ? "changed" : "missing"; }

Result<NewVariant> variantFromTrace(const std::string& trace, const std::string& kernelPath, const std::string& target,
                                    const TargetParser& parseTarget, const BuiltinTargetText& builtinText)
{
    auto file = sched::parseScheduleFile(trace, kernelPath);
    if (!file)
        return file.errors();
    NewVariant v;
    v.trace = trace;
    v.kernelPath = absolute(kernelPath);
    std::string why;
    if (!readTextFile(v.kernelPath, v.kernelText, why))
        return Diagnostic{Severity::Error, SourceLoc{v.kernelPath, 0, 0}, why};
    auto kernel = ir::parseKernel(v.kernelText, v.kernelPath, file->params);
    if (!kernel)
        return kernel.errors();
    if (isBuiltin(target)) {
        v.target = target;
        v.targetText = builtinText(target);
        if (v.targetText.empty())
            return Diagnostic{Severity::Error, SourceLoc{}, "unknown built-in target '" + target + "'"};
    } else {
        v.target = absolute(target);
        if (!readTextFile(v.target, v.targetText, why))
            return Diagnostic{Severity::Error, SourceLoc{v.target, 0, 0}, why};
    }
    auto t = parseTarget(v.targetText, isBuiltin(target) ? "hwdesc/targets/" + target + ".yaml" : v.target);
    if (!t)
        return t.errors();
    auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), std::make_shared<const hw::Target>(std::move(*t)), file->steps);
    if (r.ok())
        v.figures = analyzeFigures(r.program());
    return v;
}

Result<NewVariant> variantFromScheduleFile(const std::string& schedulePath, const TargetParser& parseTarget, const BuiltinTargetText& builtinText)
{
    std::string text, why;
    if (!readTextFile(schedulePath, text, why))
        return Diagnostic{Severity::Error, SourceLoc{schedulePath, 0, 0}, why};
    auto file = sched::parseScheduleFile(text, schedulePath);
    if (!file)
        return file.errors();
    const std::string dir = sched::directoryOf(absolute(schedulePath));
    const std::string target = isBuiltin(file->target) ? file->target : sched::joinPath(dir, file->target);
    auto v = variantFromTrace(text, sched::joinPath(dir, file->kernel), target, parseTarget, builtinText);
    if (!v)
        return v;
    // A trace that does not replay is no variant: say which step fails, where.
    if (!v->figures) {
        auto kernel = ir::parseKernel(v->kernelText, v->kernelPath, file->params);
        auto t = parseTarget(v->targetText, v->target);
        if (kernel && t) {
            auto r = sched::replay(std::make_shared<const ir::Kernel>(std::move(*kernel)), std::make_shared<const hw::Target>(std::move(*t)),
                                   file->steps);
            if (!r.ok())
                return r.error().diagnostic();
        }
    }
    v->name = fs::path(schedulePath).filename().string();
    if (v->name.ends_with(".sched.yaml"))
        v->name.resize(v->name.size() - std::string(".sched.yaml").size());
    if (!file->description.empty())
        v->notes = file->description;
    return v;
}

Result<VariantProgram> rebuildVariant(const Workspace& ws, const Variant& v, const TargetParser& parseTarget)
{
    const std::string where = "variant '" + v.name + "'";
    auto kernelFile = ws.file(v.kernelHash);
    auto targetFile = ws.file(v.targetHash);
    if (!kernelFile || !targetFile)
        return Diagnostic{Severity::Error, SourceLoc{ws.path(), 0, 0}, where + ": its kernel or target text is missing from the workspace"};
    auto file = sched::parseScheduleFile(v.trace, where);
    if (!file)
        return file.errors();
    auto kernel = ir::parseKernel(kernelFile->text, v.kernelPath, file->params);
    if (!kernel)
        return kernel.errors();
    auto target = parseTarget(targetFile->text, isBuiltin(v.target) ? "hwdesc/targets/" + v.target + ".yaml" : v.target);
    if (!target)
        return target.errors();
    VariantProgram out;
    out.file = std::move(*file);
    out.kernel = std::make_shared<const ir::Kernel>(std::move(*kernel));
    out.target = std::make_shared<const hw::Target>(std::move(*target));
    out.program = sched::Program::initial(out.kernel, out.target);
    for (const auto& step : out.file.steps) {
        sched::ApplyResult r = sched::apply(out.program, step);
        if (!r.ok()) {
            out.failedStep = r.error();
            break;
        }
        out.program = std::move(r.program());
    }
    return out;
}

DiskState diskState(const StoredFile& f, const BuiltinTargetText& builtinText)
{
    std::string text, why;
    if (f.path.starts_with("builtin:")) {
        text = builtinText(f.path.substr(8));
        if (text.empty())
            return DiskState::Missing;
    } else if (!readTextFile(f.path, text, why)) {
        return DiskState::Missing;
    }
    return contentHash(text) == f.hash ? DiskState::Same : DiskState::Changed;
}

bool isStoredSchedule(const Variant& v, const sched::ScheduleFile& schedule, const std::string& kernelText, const std::string& targetText)
{
    if (contentHash(kernelText) != v.kernelHash || contentHash(targetText) != v.targetHash)
        return false;
    auto stored = sched::parseScheduleFile(v.trace, "variant '" + v.name + "'");
    // Steps compare without where they were written.
    return stored && stored->params == schedule.params && stored->steps == schedule.steps;
}

Result<ExportedVariant> exportVariant(const Workspace& ws, const Variant& v, const std::string& schedulePath, const BuiltinTargetText& builtinText)
{
    auto file = sched::parseScheduleFile(v.trace, "variant '" + v.name + "'");
    if (!file)
        return file.errors();
    auto kernelFile = ws.file(v.kernelHash);
    auto targetFile = ws.file(v.targetHash);
    if (!kernelFile || !targetFile)
        return Diagnostic{Severity::Error, SourceLoc{ws.path(), 0, 0}, "variant '" + v.name + "': its kernel or target text is missing"};
    ExportedVariant out;
    const fs::path dir = fs::absolute(schedulePath).parent_path();
    std::string stem = fs::path(schedulePath).filename().string();
    if (stem.ends_with(".sched.yaml"))
        stem.resize(stem.size() - std::string(".sched.yaml").size());
    if (diskState(*kernelFile, builtinText) == DiskState::Same) {
        file->kernel = fs::path(v.kernelPath).lexically_relative(dir).string();
    } else {
        const fs::path copy = dir / (stem + ".kernel.yaml");
        out.extraFiles.push_back({copy.string(), kernelFile->text});
        out.notes.push_back(v.kernelPath + " differs from the kernel stored with the variant (or is missing): the stored kernel is written to "
                            + copy.string());
        file->kernel = copy.filename().string();
    }
    if (isBuiltin(v.target)) {
        file->target = v.target;
        if (diskState(*targetFile, builtinText) != DiskState::Same)
            out.notes.push_back("the built-in target " + v.target + " of this build differs from the one the variant was saved with");
    } else if (diskState(*targetFile, builtinText) == DiskState::Same) {
        file->target = fs::path(v.target).lexically_relative(dir).string();
    } else {
        const fs::path copy = dir / (stem + ".target.yaml");
        out.extraFiles.push_back({copy.string(), targetFile->text});
        out.notes.push_back(v.target + " differs from the target stored with the variant (or is missing): the stored target is written to "
                            + copy.string());
        file->target = copy.filename().string();
    }
    if (file->description.empty())
        file->description = v.notes;
    out.text = sched::formatScheduleFile(*file);
    return out;
}

} // namespace loopscope::store
