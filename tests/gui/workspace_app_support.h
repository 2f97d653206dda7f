// What the workspace's GUI tests share: a project folder of the tutorial's matmul schedules, a
// main window whose prompts answer as the test says, and reading the Variants table.
#pragma once

#include "main_window.h"
#include "schedule_document.h"
#include "variants_view.h"
#include "workspace_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QMessageBox>
#include <QTableView>

#include <memory>

namespace loopscope::ui::wstest {

inline QString source(const QString& rel) { return QStringLiteral(LOOPSCOPE_SOURCE_DIR "/") + rel; }

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

/// A project folder: the matmul kernel and the tutorial's schedules naming it.
inline void makeProject(const QString& dir)
{
    QDir().mkpath(dir);
    QFile::copy(source("examples/kernels/matmul_f32.kernel.yaml"), dir + "/matmul_f32.kernel.yaml");
    for (const QString& name : QDir(source("docs/tutorial")).entryList({"matmul_[1-6]*.sched.yaml"})) {
        QByteArray text = readAll(source("docs/tutorial/") + name);
        text.replace("kernel: ../../examples/kernels/matmul_f32.kernel.yaml", "kernel: matmul_f32.kernel.yaml");
        writeAll(dir + "/" + name, text);
    }
    writeAll(dir + "/naive.sched.yaml", "kernel: matmul_f32.kernel.yaml\ntarget: cortex-m7\nsteps: []\n");
}

inline QString stepsText(const ScheduleDocument& doc)
{
    QStringList parts;
    for (const auto& s : doc.steps())
        parts << QString::fromStdString(sched::describe(s));
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QLatin1Char('|'));
}

/// The Variants table's rows in the order shown.
inline QStringList shownNames(VariantsView* view)
{
    QStringList names;
    auto* model = view->table()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->index(r, VariantsModel::Name).data().toString();
    return names;
}

inline QString cell(VariantsView* view, const QString& name, int column)
{
    auto* model = view->table()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, VariantsModel::Name).data().toString() == name)
            return model->index(r, column).data().toString();
    return QStringLiteral("<no row %1>").arg(name);
}

struct Window {
    std::unique_ptr<MainWindow> w;
    WorkspaceController* ws = nullptr;
    QString nextName;
    QString nextNotes;
    bool confirm = true;
};

inline std::unique_ptr<Window> makeWindow(const QString& recovery)
{
    auto out = std::make_unique<Window>();
    out->w = std::make_unique<MainWindow>(MainWindow::Options{false, false, recovery});
    out->w->setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
    out->w->setPathPrompt([](MainWindow::Prompt, const QString&) { return QString(); });
    out->w->setDescriptionPrompt([](const QString&) { return MainWindow::DescriptionAnswer::Keep; });
    out->ws = out->w->workspace();
    Window* raw = out.get();
    out->ws->setNamePrompt([raw](const QString&, QString& name, QString& notes) {
        if (!raw->nextName.isEmpty())
            name = raw->nextName;
        notes = raw->nextNotes;
        return true;
    });
    out->ws->setConfirmPrompt([raw](const QString&, const QString&) { return raw->confirm; });
    out->ws->setFilePrompt([](bool, const QString&) { return QString(); });
    out->ws->setRecoveryPrompt([](const QString&) { return WorkspaceController::RecoveryAnswer::Later; });
    out->w->resize(1440, 900);
    out->w->show();
    QCoreApplication::processEvents();
    return out;
}

inline sched::Step split(const std::string& loop, int64_t factor)
{
    sched::Step s;
    s.primitive = sched::Primitive::Split;
    s.loops = {loop};
    s.factor = factor;
    return s;
}

} // namespace loopscope::ui::wstest
