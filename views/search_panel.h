// Search panel: runs the schedule search (core/search) on worker threads from the schedule
// shown, keeping its first steps, and draws the Pareto front as it grows; hovering a point
// shows its figures, clicking it asks for it to be opened (the main window replaces the
// steps, undoably) and lists what it changes against the schedule searched from and what
// each change buys. The window never waits for the search: Cancel stops it at once.
#pragma once

#include "search/search.h"

#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

QT_BEGIN_NAMESPACE
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
QT_END_NAMESPACE

namespace loopscope::ui {

class SearchScatter;

class SearchPanel : public QWidget {
    Q_OBJECT
public:
    explicit SearchPanel(QWidget* parent = nullptr);
    ~SearchPanel() override;

    /// The schedule shown in the window: what a new search starts from, and the mark on the
    /// chart. A running search keeps the program it started from.
    void setProgram(std::shared_ptr<const sched::Program> program);
    /// Candidates at most (0: the time limit only); with a budget the result is the same
    /// for any thread count.
    void setBudget(int64_t candidates) { m_budget = candidates; }
    void setTimeLimit(double seconds);
    void setKeptSteps(int steps);
    /// The first steps of the current schedule a new search keeps (the panel's "Keep first
    /// steps"): all of them when a schedule with another number of steps is set, unchanged when
    /// that schedule is a point of the front opened from this panel (its first steps are the
    /// ones kept).
    int keptSteps() const;
    /// The most straight-line copies the unrolled loops of a stage may make in the candidates
    /// drawn (SpaceOptions::maxUnrollProduct; a schedule that makes more still starts the search).
    void setMaxUnroll(int copies);
    void setObjective(search::Objective objective);

    /// Starts a search (false when one runs or nothing is open).
    bool start();
    /// Stops the running search; its front so far stays.
    void cancel();
    bool isRunning() const { return m_running; }

    /// The front shown, sorted by cycles (index i is point i of the chart).
    const std::vector<search::SearchPoint>& front() const { return m_front; }
    int bestIndex() const { return m_best; }
    /// The last progress shown.
    const search::SearchProgress& lastProgress() const { return m_progress; }
    /// The message of the last run ("no feasible schedule: ..." when nothing fits).
    QString statusText() const;
    /// Point i's figures as one line.
    QString pointText(int index) const;
    /// Selects point i and lists what it changes (as a click does, without opening it).
    void selectPoint(int index);
    /// Selects point i and asks for it to be opened.
    void openPoint(int index);
    /// The lines of the change list shown for the selected point.
    QStringList changeLines() const;
    SearchScatter* scatter() const { return m_scatter; }

signals:
    /// Open this schedule (the whole trace) as the document's new steps.
    void openRequested(const std::vector<loopscope::sched::Step>& trace, const QString& description);
    /// A run ended (finished, cancelled, timed out or found nothing).
    void finished();
    void progressed();

private:
    void showProgress(const search::SearchProgress& p, std::vector<search::SearchPoint> front);
    void showResult(search::SearchResult result);
    void setFront(std::vector<search::SearchPoint> front);
    void updateControls();
    void join();

    QComboBox* m_objective = nullptr;
    QDoubleSpinBox* m_seconds = nullptr;
    QSpinBox* m_keep = nullptr;
    /// The trace of the point openPoint asked for, until a program with it is set (the document
    /// may rebuild it on a worker, after the request returns).
    std::optional<std::vector<sched::Step>> m_openedTrace;
    QSpinBox* m_maxUnroll = nullptr;
    QSpinBox* m_threads = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_startButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_bar = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_details = nullptr;
    QListWidget* m_changes = nullptr;
    SearchScatter* m_scatter = nullptr;

    std::shared_ptr<const sched::Program> m_program;  ///< the window's schedule
    std::shared_ptr<const sched::Program> m_searched; ///< what the last run started from (all its steps)
    std::vector<search::SearchPoint> m_front;
    int m_best = -1;
    int m_selected = -1;
    search::SearchProgress m_progress;
    QString m_message;
    int64_t m_budget = 0;
    search::SearchOptions m_runOptions;  ///< of the running (or last) search
    bool m_running = false;
    std::atomic<bool> m_cancel{false};
    std::thread m_worker;
};

} // namespace loopscope::ui
