// Shared by the view tests: snapshots built from schedule files (as the document builds them),
// offscreen rendering, and checks that a picture is not blank.
#pragma once

#include "snapshot.h"

#include "analysis/cost_report.h"
#include "lower/loop_nest.h"
#include "sched/schedule_file.h"
#include "target_loader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSet>
#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <string>

namespace loopscope::viewtest {

inline QString sourceDir()
{
    return QStringLiteral(LOOPSCOPE_SOURCE_DIR);
}

/// Every examples/schedules/*.sched.yaml, sorted.
inline QStringList exampleSchedules()
{
    QDir dir(sourceDir() + QStringLiteral("/examples/schedules"));
    QStringList out;
    for (const QString& f : dir.entryList({QStringLiteral("*.sched.yaml")}, QDir::Files, QDir::Name))
        out << dir.filePath(f);
    return out;
}

inline QString examplePath(const QString& name)
{
    return sourceDir() + QStringLiteral("/examples/schedules/") + name + QStringLiteral(".sched.yaml");
}

/// Opens, lowers and analyses a schedule, as the document does after an edit. An empty
/// snapshot (and the reason in *error) when the schedule does not open.
inline ui::Snapshot snapshotOf(const QString& path, int revision = 1, QString* error = nullptr)
{
    auto opened = sched::openSchedule(path.toStdString(), [](const std::string& n, const std::string& d) {
        return hw::resolveTarget(n, d);
    });
    if (!opened) {
        if (error)
            *error = QString::fromStdString(opened.errorText());
        return {};
    }
    ui::Snapshot s;
    auto program = std::make_shared<const sched::Program>(opened->program);
    auto nest = std::make_shared<const lower::LoopNest>(lower::lower(*program));
    s.report = std::make_shared<const analysis::CostReport>(analysis::analyze(*nest, *program->target));
    s.program = program;
    s.nest = nest;
    s.revision = revision;
    return s;
}

/// Writes a schedule file for an example kernel into `dir` and returns its path.
inline QString writeSchedule(const QString& dir, const QString& name, const QString& kernel, const QString& target,
                             const QString& params, const QString& steps)
{
    QString path = dir + QLatin1Char('/') + name + QStringLiteral(".sched.yaml");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    QString kernelPath = kernel.contains(QLatin1Char('/')) ? kernel
                                                           : sourceDir() + QStringLiteral("/examples/kernels/") + kernel + QStringLiteral(".kernel.yaml");
    QString text = QStringLiteral("kernel: %1\ntarget: %2\n").arg(kernelPath, target);
    if (!params.isEmpty())
        text += QStringLiteral("params: %1\n").arg(params);
    text += QStringLiteral("steps:\n") + (steps.isEmpty() ? QString() : steps);
    if (steps.isEmpty())
        text = text.trimmed() + QStringLiteral(" []\n");
    f.write(text.toUtf8());
    return path;
}

/// Lays the widget out at `size`, shows it offscreen and grabs it.
inline QImage render(QWidget& w, QSize size)
{
    w.resize(size);
    if (!w.isVisible())
        w.show();
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    return w.grab().toImage();
}

/// Distinct colours of an image, counted up to `cap`.
inline int colourCount(const QImage& image, int cap = 64)
{
    QSet<QRgb> seen;
    const QImage img = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) {
            seen.insert(img.pixel(x, y));
            if (seen.size() >= cap)
                return cap;
        }
    return static_cast<int>(seen.size());
}

/// Saves a picture under /tmp/loopscope-views for a person to look at.
inline void savePicture(const QImage& image, const QString& name)
{
    QDir().mkpath(QStringLiteral("/tmp/loopscope-views"));
    image.save(QStringLiteral("/tmp/loopscope-views/") + name + QStringLiteral(".png"));
}

/// Base name of a schedule path: "matmul_f32_tiled".
inline QString baseName(const QString& path)
{
    QString f = QFileInfo(path).fileName();
    return f.left(f.indexOf(QStringLiteral(".sched.yaml")));
}

} // namespace loopscope::viewtest

#include "ir/kernel.h"
#include "support/random_schedule.h"

#include <vector>

namespace loopscope::viewtest {

/// Kernels for random schedules: every example kernel at a small size, and the test
/// pipelines (halos, strides, fan-out).
struct RandomCase {
    QString kernel;   ///< path
    std::map<std::string, int64_t> params;
    std::string target;
};

inline std::vector<RandomCase> randomCases()
{
    const QString ex = sourceDir() + QStringLiteral("/examples/kernels/");
    const QString data = sourceDir() + QStringLiteral("/tests/data/kernels/");
    return {
        {ex + "matmul_f32.kernel.yaml", {{"M", 24}, {"N", 20}, {"K", 12}}, "cortex-m7"},
        {ex + "matmul_int8.kernel.yaml", {{"M", 32}, {"N", 32}, {"K", 16}}, "gemmini-16x16"},
        {ex + "conv2d_int8.kernel.yaml", {}, "cortex-m4"},
        {ex + "conv2d_s2_int8.kernel.yaml", {}, "cortex-m7"},
        {ex + "dense_int8.kernel.yaml", {}, "cortex-m7"},
        {ex + "depthwise_conv_int8.kernel.yaml", {}, "cortex-m7"},
        {ex + "dwsep_conv.kernel.yaml", {{"H", 12}, {"W", 10}}, "cortex-m7"},
        {ex + "pointwise_conv_int8.kernel.yaml", {}, "gemmini-16x16"},
        {data + "halo_pipeline.kernel.yaml", {}, "cortex-m7"},
        {data + "fanout_pipeline.kernel.yaml", {}, "cortex-m7"},
        {data + "stride_pipeline.kernel.yaml", {}, "cortex-m7"},
        {data + "chain_pipeline.kernel.yaml", {}, "cortex-m7"},
    };
}

/// `count` snapshots of random legal schedules of a case (seeded, so reproducible).
inline std::vector<ui::Snapshot> randomSnapshots(const RandomCase& c, int count, uint64_t seed, QString* error = nullptr)
{
    std::vector<ui::Snapshot> out;
    auto kernel = ir::loadKernelFile(c.kernel.toStdString(), c.params);
    auto target = hw::loadBuiltinTarget(c.target);
    if (!kernel || !target) {
        if (error)
            *error = QString::fromStdString(kernel ? target.errorText() : kernel.errorText());
        return out;
    }
    auto k = std::make_shared<const ir::Kernel>(*kernel);
    auto t = std::make_shared<const hw::Target>(*target);
    const sched::Program initial = sched::Program::initial(k, t);
    test::Rng rng(seed);
    for (int i = 0; i < count; ++i) {
        auto program = std::make_shared<const sched::Program>(test::randomSchedule(initial, rng, 1 + static_cast<int>(rng.below(8))));
        auto nest = std::make_shared<const lower::LoopNest>(lower::lower(*program));
        ui::Snapshot s;
        s.report = std::make_shared<const analysis::CostReport>(analysis::analyze(*nest, *t));
        s.program = program;
        s.nest = nest;
        s.revision = i + 1;
        out.push_back(s);
    }
    return out;
}

} // namespace loopscope::viewtest
