// The app's window in a process of its own, editing a schedule as a person would, for the crash
// test (test_gui_workspace kills it with SIGKILL): `gui_journal_child FILE RECOVERY_FOLDER SEED`
// opens FILE in a MainWindow that journals its edits, then makes random edits (splits,
// merged split-factor drags, undo, redo), one after another once the journal has the previous
// one, and prints for each edit
//   state N STEPS                    (the steps after edit N, printed when the document changes,
//                                     before the undo stack tells the journal: a kill right after
//                                     the journal's write still leaves this line)
//   applied N INDEX COUNT STEPS      (after the edit: the undo stack's index and size)
//   journaled N                      (the journal's entry N is in the workspace file)
#include "edit_journal.h"
#include "main_window.h"
#include "schedule_document.h"
#include "workspace_controller.h"

#include <QApplication>
#include <QMessageBox>
#include <QTimer>
#include <QUndoStack>

#include <cstdio>
#include <random>

using namespace loopscope;
using namespace loopscope::ui;

namespace {

QString stepsText(const ScheduleDocument& doc)
{
    QStringList parts;
    for (const auto& s : doc.steps())
        parts << QString::fromStdString(sched::describe(s));
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QLatin1Char('|'));
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: gui_journal_child FILE RECOVERY_FOLDER SEED\n");
        return 2;
    }
    MainWindow window(MainWindow::Options{false, false, QString::fromLocal8Bit(argv[2])});
    window.setSavePrompt([](const QString&) { return int(QMessageBox::Discard); });
    window.resize(1440, 900);
    window.show();
    QString error;
    if (!window.openFile(QString::fromLocal8Bit(argv[1]), &error)) {
        std::fprintf(stderr, "cannot open: %s\n", qPrintable(error));
        return 2;
    }
    ScheduleDocument* doc = window.document();
    doc->setAsyncThresholdMs(1e12);  // every change rebuilds (and says so) before the edit returns
    QUndoStack* stack = doc->undoStack();
    std::mt19937 rng(static_cast<unsigned>(std::atoi(argv[3])));
    std::vector<std::string> loops = {"i", "j", "k"};
    int applied = 0;
    int mergeSession = 0;
    int merges = 0;

    // One edit that changes the undo stack; tries again until one does.
    auto edit = [&]() {
        for (int attempt = 0; attempt < 50; ++attempt) {
            const int before = stack->index();
            const int count = stack->count();
            const QString state = stepsText(*doc);
            const unsigned r = rng() % 10;
            if (r < 2 && stack->canUndo()) {
                stack->undo();
            } else if (r < 3 && stack->canRedo()) {
                stack->redo();
            } else if (r < 5 && !doc->steps().empty() && doc->steps()[0].primitive == sched::Primitive::Split) {
                // A drag of the first split's factor: consecutive ones merge into one command.
                if (merges++ % 3 == 0)
                    mergeSession = doc->newMergeSession();
                sched::Step s = doc->steps()[0];
                const int64_t factors[] = {2, 4, 8, 16};
                s.factor = factors[rng() % 4];
                doc->editStep(0, s, mergeSession);
            } else {
                sched::Step s;
                s.primitive = sched::Primitive::Split;
                s.loops = {loops[rng() % loops.size()]};
                s.factor = 2;
                if (!doc->applyStep(s)) {
                    loops.push_back(s.loops[0] + ".outer");
                    loops.push_back(s.loops[0] + ".inner");
                }
            }
            if (stack->index() != before || stack->count() != count || stepsText(*doc) != state)
                return true;
        }
        return false;
    };
    QObject::connect(doc, &ScheduleDocument::changed, &app, [&] {
        std::printf("state %d %s\n", applied + 1, qPrintable(stepsText(*doc)));
        std::fflush(stdout);
    });
    std::function<void()> next = [&]() {
        if (!edit()) {
            std::fprintf(stderr, "no edit applies\n");
            QApplication::exit(3);
            return;
        }
        ++applied;
        std::printf("applied %d %d %d %s\n", applied, stack->index(), stack->count(), qPrintable(stepsText(*doc)));
        std::fflush(stdout);
    };
    QObject::connect(window.workspace()->journal(), &EditJournal::entryWritten, &app, [&](qint64 seq, const QString&) {
        std::printf("journaled %lld\n", static_cast<long long>(seq));
        std::fflush(stdout);
        if (seq == applied)  // the next edit once this one is in the file, after a moment
            QTimer::singleShot(static_cast<int>(rng() % 4), &app, next);
    });
    QObject::connect(window.workspace()->journal(), &EditJournal::writeFailed, &app, [](const QString& why) {
        std::fprintf(stderr, "journal: %s\n", qPrintable(why));
        QApplication::exit(4);
    });
    std::printf("ready\n");
    std::fflush(stdout);
    QTimer::singleShot(0, &app, next);
    return app.exec();
}
