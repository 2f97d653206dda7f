// Search panel: the search on a worker thread, its front on a scatter, a point's changes.
#include "search_panel.h"

#include "charts/search_scatter.h"
#include "search/explain.h"

#include <QComboBox>
#include <QCursor>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <functional>

namespace loopscope::ui {

namespace {

QString bytesText(int64_t b)
{
    if (b >= 1024 * 1024)
        return QStringLiteral("%1 MiB").arg(static_cast<double>(b) / (1024.0 * 1024.0), 0, 'f', 1);
    if (b >= 1024)
        return QStringLiteral("%1 KiB").arg(static_cast<double>(b) / 1024.0, 0, 'f', 1);
    return QStringLiteral("%1 B").arg(b);
}

QString figuresText(const search::Figures& f)
{
    QLocale l;
    return QObject::tr("%1 cycles · %2 on chip · %3 µJ · %4 DRAM bytes")
        .arg(l.toString(static_cast<qlonglong>(f.cycles)), bytesText(f.onChipBytes))
        .arg(f.energyUj, 0, 'f', 2)
        .arg(l.toString(static_cast<qlonglong>(f.dramBytes)));
}

/// Posts the worker's progress to the panel's thread, at most every 100 ms.
class PanelSink : public search::SearchSink {
public:
    explicit PanelSink(std::function<void(search::SearchProgress, std::vector<search::SearchPoint>)> post)
        : m_post(std::move(post))
    {
    }
    void progress(const search::SearchProgress& p, const std::vector<search::SearchPoint>& front) override
    {
        auto now = std::chrono::steady_clock::now();
        if (now - m_last < std::chrono::milliseconds(100))
            return;
        m_last = now;
        m_post(p, front);
    }

private:
    std::function<void(search::SearchProgress, std::vector<search::SearchPoint>)> m_post;
    std::chrono::steady_clock::time_point m_last{};
};

} // namespace

SearchPanel::SearchPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("searchPanel"));
    m_objective = new QComboBox(this);
    m_objective->addItem(tr("cycles"), static_cast<int>(search::Objective::Cycles));
    m_objective->addItem(tr("energy"), static_cast<int>(search::Objective::Energy));
    m_objective->addItem(tr("on-chip memory"), static_cast<int>(search::Objective::Sram));
    m_objective->addItem(tr("energy x cycles"), static_cast<int>(search::Objective::Edp));
    m_objective->addItem(tr("DRAM traffic"), static_cast<int>(search::Objective::Dram));
    m_objective->addItem(tr("instructions (predicted)"), static_cast<int>(search::Objective::Instructions));
    m_objective->setToolTip(tr("Which point of the front is the best one (the front itself does not depend on it)"));
    m_seconds = new QDoubleSpinBox(this);
    m_seconds->setRange(0.5, 3600);
    m_seconds->setValue(10);
    m_seconds->setSuffix(tr(" s"));
    m_keep = new QSpinBox(this);
    m_keep->setRange(0, 0);
    m_keep->setToolTip(tr("The first steps of the current schedule the search keeps as they are"));
    m_maxUnroll = new QSpinBox(this);
    m_maxUnroll->setRange(1, 4096);
    m_maxUnroll->setValue(static_cast<int>(search::SpaceOptions{}.maxUnrollProduct));
    m_maxUnroll->setToolTip(tr("The most straight-line copies the unrolled loops of a stage may make in the candidates the search "
                               "draws (large unrolled bodies are where the instruction model is least sure); a schedule that "
                               "makes more still starts the search"));
    m_threads = new QSpinBox(this);
    m_threads->setRange(1, 256);
    m_threads->setValue(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    m_seed = new QSpinBox(this);
    m_seed->setRange(1, 1000000);
    m_startButton = new QPushButton(tr("&Search"), this);
    m_cancelButton = new QPushButton(tr("&Cancel"), this);
    m_bar = new QProgressBar(this);
    m_bar->setRange(0, 1000);
    m_status = new QLabel(tr("Search from the schedule shown: its first steps are kept, the rest is proposed."), this);
    m_status->setWordWrap(true);
    // Room for two lines from the start, the text at the top: the final status takes two at the
    // window's size, and a label that grew from one line to two when the run ended kept its
    // one-line height until the window was laid out again, its text cut off at the top and
    // the bottom.
    m_status->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_status->setMinimumHeight(2 * m_status->fontMetrics().lineSpacing());
    m_details = new QLabel(this);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_changes = new QListWidget(this);
    m_changes->setObjectName(QStringLiteral("searchChanges"));
    m_changes->setWordWrap(true);
    m_changes->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scatter = new SearchScatter(this);
    m_scatter->setMinimumSize(520, 320);

    auto* form = new QFormLayout;
    form->addRow(tr("Best for"), m_objective);
    form->addRow(tr("Time limit"), m_seconds);
    form->addRow(tr("Keep first steps"), m_keep);
    form->addRow(tr("Unrolled copies at most"), m_maxUnroll);
    form->addRow(tr("Threads"), m_threads);
    form->addRow(tr("Seed"), m_seed);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_startButton);
    buttons->addWidget(m_cancelButton);
    form->addRow(buttons);
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addLayout(form);
    sideLayout->addWidget(new QLabel(tr("<b>Selected point</b> (click a point to open it as the schedule; Undo goes back)"), side));
    sideLayout->addWidget(m_details);
    sideLayout->addWidget(new QLabel(tr("What it changes, and what each change buys:"), side));
    sideLayout->addWidget(m_changes, 1);
    auto* split = new QSplitter(this);
    split->addWidget(m_scatter);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({640, 440});
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(m_bar);
    layout->addWidget(m_status);

    connect(m_startButton, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancelButton, &QPushButton::clicked, this, [this] { cancel(); });
    connect(m_scatter, &SearchScatter::pointClicked, this, [this](int i) { openPoint(i); });
    connect(m_scatter, &SearchScatter::pointHovered, this, [this](int i, bool entered) {
        if (entered)
            QToolTip::showText(QCursor::pos(), pointText(i), m_scatter);
        else
            QToolTip::hideText();
    });
    updateControls();
}

SearchPanel::~SearchPanel()
{
    m_cancel = true;
    join();
}

void SearchPanel::join()
{
    if (m_worker.joinable())
        m_worker.join();
}

void SearchPanel::setProgram(std::shared_ptr<const sched::Program> program)
{
    const bool sameSteps = m_program && program && m_program->trace.size() == program->trace.size();
    m_program = std::move(program);
    int steps = m_program ? static_cast<int>(m_program->trace.size()) : 0;
    m_keep->setRange(0, steps);
    // A point opened from the front begins with the steps the search kept: keeping as many
    // again searches on from it (session 16's walk-through: the count jumped to all its steps).
    const bool opened = m_openedTrace && m_program && m_program->trace == *m_openedTrace;
    if (opened)
        m_openedTrace.reset();
    if (!sameSteps && !opened)
        m_keep->setValue(steps);
    // The instruction model predicts CPU code only.
    const bool cpu = m_program && m_program->target->kind != "accelerator";
    if (auto* items = qobject_cast<QStandardItemModel*>(m_objective->model())) {
        QStandardItem* insn = items->item(m_objective->findData(static_cast<int>(search::Objective::Instructions)));
        insn->setEnabled(cpu);
        insn->setToolTip(cpu ? QString() : tr("The instruction model predicts the code of CPU targets only"));
        if (!cpu && m_objective->currentData().toInt() == static_cast<int>(search::Objective::Instructions))
            m_objective->setCurrentIndex(0);
    }
    if (m_program) {
        lower::LoopNest nest = lower::lower(*m_program);
        m_scatter->setCurrent(search::figuresOf(analysis::analyze(nest, *m_program->target)));
    } else {
        m_scatter->setCurrent(std::nullopt);
    }
    updateControls();
}

void SearchPanel::setTimeLimit(double seconds) { m_seconds->setValue(seconds); }
void SearchPanel::setKeptSteps(int steps) { m_keep->setValue(steps); }
int SearchPanel::keptSteps() const { return m_keep->value(); }
void SearchPanel::setMaxUnroll(int copies) { m_maxUnroll->setValue(copies); }

void SearchPanel::setObjective(search::Objective objective)
{
    m_objective->setCurrentIndex(m_objective->findData(static_cast<int>(objective)));
}

bool SearchPanel::start()
{
    if (m_running || !m_program)
        return false;
    join();
    int keep = m_keep->value();
    sched::ApplyResult base =
        sched::replay(m_program->kernel, m_program->target, std::vector<sched::Step>(m_program->trace.begin(), m_program->trace.begin() + keep));
    if (!base.ok()) {
        m_message = QString::fromStdString(base.error().str());
        m_status->setText(m_message);
        return false;
    }
    m_searched = m_program;
    search::SearchOptions opt;
    opt.objective = static_cast<search::Objective>(m_objective->currentData().toInt());
    opt.timeLimitSeconds = m_seconds->value();
    opt.budget = m_budget;
    opt.threads = m_threads->value();
    opt.seed = static_cast<uint64_t>(m_seed->value());
    opt.space.maxUnrollProduct = m_maxUnroll->value();
    // The steps not kept are where the search starts from, when its space holds them.
    opt.start.assign(m_program->trace.begin() + keep, m_program->trace.end());
    m_runOptions = opt;
    m_cancel = false;
    m_running = true;
    m_front.clear();
    m_best = -1;
    m_selected = -1;
    m_progress = {};
    m_message.clear();
    m_scatter->setPoints({});
    m_changes->clear();
    m_details->clear();
    m_bar->setValue(0);
    m_status->setText(tr("Searching..."));
    updateControls();
    m_worker = std::thread([this, program = base.program(), opt] {
        PanelSink sink([this](search::SearchProgress p, std::vector<search::SearchPoint> front) {
            QMetaObject::invokeMethod(this, [this, p, front = std::move(front)]() mutable { showProgress(p, std::move(front)); }, Qt::QueuedConnection);
        });
        // An exception must not end the thread (std::terminate): it ends the run with a message.
        search::SearchResult r;
        try {
            r = search::runSearch(program, opt, &sink, &m_cancel);
        } catch (const std::exception& e) {
            r.message = std::string("the search stopped: internal error: ") + e.what();
        } catch (...) {
            r.message = "the search stopped: internal error: an unknown exception";
        }
        QMetaObject::invokeMethod(this, [this, r = std::move(r)]() mutable { showResult(std::move(r)); }, Qt::QueuedConnection);
    });
    return true;
}

void SearchPanel::cancel()
{
    if (m_running) {
        m_cancel = true;
        m_status->setText(tr("Cancelling..."));
    }
}

void SearchPanel::setFront(std::vector<search::SearchPoint> front)
{
    std::sort(front.begin(), front.end(), [](const search::SearchPoint& a, const search::SearchPoint& b) {
        return std::tie(a.figures.cycles, a.figures.onChipBytes, a.figures.energyUj, a.index)
               < std::tie(b.figures.cycles, b.figures.onChipBytes, b.figures.energyUj, b.index);
    });
    m_front = std::move(front);
    std::vector<search::Figures> fs;
    for (const auto& p : m_front)
        fs.push_back(p.figures);
    m_scatter->setPoints(fs);
    m_best = -1;
    for (int i = 0; i < static_cast<int>(m_front.size()); ++i)
        if (m_best < 0 || search::objectiveValue(m_runOptions.objective, m_front[i].figures)
                              < search::objectiveValue(m_runOptions.objective, m_front[m_best].figures))
            m_best = i;
    if (m_selected >= static_cast<int>(m_front.size()))
        m_selected = -1;
    m_scatter->setSelected(m_selected);
}

void SearchPanel::showProgress(const search::SearchProgress& p, std::vector<search::SearchPoint> front)
{
    if (!m_running)
        return;
    m_progress = p;
    setFront(std::move(front));
    double share = 0;
    if (m_runOptions.budget > 0)
        share = static_cast<double>(p.drawn) / static_cast<double>(m_runOptions.budget);
    if (m_runOptions.timeLimitSeconds > 0)
        share = std::max(share, p.seconds / m_runOptions.timeLimitSeconds);
    m_bar->setValue(static_cast<int>(1000 * std::min(1.0, share)));
    QLocale l;
    m_status->setText(tr("%1 evaluated (%2/s), %3 feasible, front %4 points; best so far %5")
                          .arg(l.toString(static_cast<qlonglong>(p.evaluated)), l.toString(static_cast<qlonglong>(p.rate)),
                               l.toString(static_cast<qlonglong>(p.feasible)))
                          .arg(p.frontSize)
                          .arg(p.best ? figuresText(*p.best) : tr("none")));
    emit progressed();
}

void SearchPanel::showResult(search::SearchResult r)
{
    join();
    m_running = false;
    m_progress = r.progress;
    setFront(std::move(r.front));
    m_bar->setValue(1000);
    QLocale l;
    if (!r.feasible) {
        m_message = QString::fromStdString(r.message);
    } else {
        QString why = r.cancelled ? tr("cancelled") : r.timedOut ? tr("time limit reached") : tr("budget reached");
        // Every candidate drawn is evaluated, pruned (cannot be made to fit) or a duplicate.
        m_message = tr("Done (%1): %2 candidates, %3 evaluated in %4 s (%5/s), %6 repaired to fit, %7 pruned (cannot fit), %8 duplicates; "
                       "front %9 points. ")
                        .arg(why, l.toString(static_cast<qlonglong>(r.progress.drawn)), l.toString(static_cast<qlonglong>(r.progress.evaluated)))
                        .arg(r.progress.seconds, 0, 'f', 1)
                        .arg(l.toString(static_cast<qlonglong>(r.progress.rate)), l.toString(static_cast<qlonglong>(r.progress.repaired)),
                             l.toString(static_cast<qlonglong>(r.progress.pruned)), l.toString(static_cast<qlonglong>(r.progress.duplicates)))
                        .arg(m_front.size())
                    + tr("Best for %1: %2").arg(m_objective->currentText(), m_best >= 0 ? figuresText(m_front[m_best].figures) : QString());
        if (r.progress.rejected > 0)
            m_message += tr(" (%1 candidates were rejected: a defect, please report it)").arg(r.progress.rejected);
        if (!r.start.empty())
            m_message += ". " + tr("It %1.").arg(QString::fromStdString(r.start));
        if (r.startUnrolledCopies > 0)
            m_message += " " + tr("Unrolled copies at most %1 searches among bodies that large.").arg(r.startUnrolledCopies);
    }
    m_status->setText(m_message);
    if (m_best >= 0)
        selectPoint(m_best);
    updateControls();
    emit finished();
}

QString SearchPanel::statusText() const { return m_status->text(); }

QString SearchPanel::pointText(int index) const
{
    if (index < 0 || index >= static_cast<int>(m_front.size()))
        return {};
    const auto& p = m_front[index];
    return tr("Point %1%2: %3; %4 steps").arg(index + 1).arg(index == m_best ? tr(" (best)") : QString(), figuresText(p.figures)).arg(p.trace.size());
}

void SearchPanel::selectPoint(int index)
{
    if (index < 0 || index >= static_cast<int>(m_front.size()) || !m_searched)
        return;
    m_selected = index;
    m_scatter->setSelected(index);
    m_details->setText(pointText(index));
    m_changes->clear();
    search::PointExplanation e = search::explainPoint(*m_searched, m_front[index].trace);
    if (e.commonSteps > 0)
        m_changes->addItem(tr("keeps the first %1 steps").arg(e.commonSteps));
    for (const auto& c : e.changes)
        m_changes->addItem(QString::fromStdString(search::describeChange(c)));
    if (e.changes.empty())
        m_changes->addItem(tr("no change: this is the schedule searched from"));
}

void SearchPanel::openPoint(int index)
{
    if (index < 0 || index >= static_cast<int>(m_front.size()))
        return;
    selectPoint(index);
    m_openedTrace = m_front[index].trace;
    emit openRequested(m_front[index].trace, pointText(index));
}

QStringList SearchPanel::changeLines() const
{
    QStringList out;
    for (int i = 0; i < m_changes->count(); ++i)
        out << m_changes->item(i)->text();
    return out;
}

void SearchPanel::updateControls()
{
    m_startButton->setEnabled(!m_running && m_program);
    m_cancelButton->setEnabled(m_running);
    for (QWidget* w : std::initializer_list<QWidget*>{m_objective, m_seconds, m_keep, m_maxUnroll, m_threads, m_seed})
        w->setEnabled(!m_running);
}

} // namespace loopscope::ui
