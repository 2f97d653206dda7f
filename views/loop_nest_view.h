// Loop-nest view (the centre of the window): the lowered nest as indented code-like rows with
// kind badges, and every schedule primitive reachable from a loop or tensor row (context
// menu, toolbar, keyboard shortcuts, Alt+Up/Down and drag and drop to reorder).
#pragma once

#include <optional>
#include <vector>

#include "loop_nest_model.h"
#include "snapshot.h"

#include <QSet>
#include <QWidget>

class QAction;
class QLabel;
class QMenu;
class QSpinBox;
class QToolBar;
class QTreeView;

namespace loopscope::ui {

class LiveLabel;

class LoopNestView : public QWidget {
    Q_OBJECT
public:
    /// The primitives with a fixed action (the cache and placement primitives are offered per
    /// tensor in the context menu and the Cache menu).
    enum ActionId { Split, Tile, Fuse, Unroll, Vectorize, Parallel, MoveOut, MoveIn, CacheMenu, DoubleBuffer, Tensorize, ActionCount };

    explicit LoopNestView(QWidget* parent = nullptr);

    void setSnapshot(const Snapshot& snapshot);
    /// Shows why the last requested step was refused (empty message hides the banner).
    void showRejected(const QString& message);
    /// Emphasises loops and tensors (e.g. those a diagnostic or a failing step names).
    void setHighlight(const QStringList& loops, const QStringList& tensors, bool error = false);
    /// Selects a loop row by label or name and scrolls to it; false if there is none.
    bool selectLoop(const QString& loop, const QString& stage = QString());

    QAction* action(ActionId id) const { return m_actions[id]; }
    /// The actions of the fixed primitives, for the main window's Schedule menu.
    QList<QAction*> primitiveActions() const;
    /// The context menu a right-click on this row opens (owned by the caller).
    QMenu* contextMenuFor(const QModelIndex& index, QWidget* parent = nullptr);
    QTreeView* tree() const { return m_tree; }
    LoopNestModel* model() const { return m_model; }
    QSpinBox* factorBox() const { return m_factor; }
    /// The row the actions apply to.
    const NestRow* currentRow() const;
    /// What dropping a dragged loop row onto another loop row does: a reorder step that
    /// moves the loop to the other's position (loops of one stage only).
    void dropLoopOnto(const QModelIndex& dragged, const QModelIndex& onto);

signals:
    /// The user asked for a schedule step (the document decides whether it applies).
    void stepRequested(const loopscope::sched::Step& step);
    /// The user asked for several steps as one edit named `text` (a one-click tensorize: the
    /// caches it needs, then the tensorize).
    void stepsRequested(const std::vector<loopscope::sched::Step>& steps, const QString& text);
    /// The current loop changed ("" when the current row is not a loop): label, stage, and
    /// the tensors its body touches.
    void loopSelected(const QString& label, const QString& stage, const QStringList& touched);
    /// A tensor row became current.
    void tensorSelected(const QString& tensor);

private:
    void buildActions();
    void updateActions();
    void onCurrentChanged();
    void trigger(ActionId id);
    /// The step a loop primitive (Split ... MoveIn) means on the current loop, or nullopt and
    /// why not.
    QString factorRefused(const char* primitive) const;
    std::optional<sched::Step> loopStep(ActionId id, QString* why) const;
    /// Why a step would be refused on the program shown ("" when it applies).
    QString refusal(const sched::Step& step) const;
    /// The loop row an action on `r` means (the row itself, or the loop around a tensor row).
    const NestRow* loopFor(const NestRow* r) const;
    /// Loop variable directly inside / outside `r` in its stage, or "".
    QString neighbour(const NestRow& r, int delta) const;
    sched::Step baseStep(sched::Primitive p, const QString& stage) const;
    void addCacheActions(QMenu* menu, const NestRow& r);
    /// "tensorize onto the PE array" entries for the stage of row `r` (one per dataflow the
    /// target's array supports), each the plan of sched::planTensorize; nothing on a target
    /// without a PE array.
    void addTensorizeActions(QMenu* menu, const NestRow& r);
    /// Expansion and current row after new rows: all of it after a model reset, else only what
    /// differs from the labels.
    void restoreState(bool reset);

    LoopNestModel* m_model;
    QTreeView* m_tree;
    QToolBar* m_toolbar;
    QToolBar* m_memoryBar;
    LiveLabel* m_header;
    QLabel* m_banner;
    QSpinBox* m_factor;
    QAction* m_actions[ActionCount] = {};
    QAction* m_tensorizeButton = nullptr;  ///< the toolbar's Tensorize button (shown for PE-array targets)
    Snapshot m_snapshot;
    QString m_currentKey;       ///< label (loops) or code of the current row, kept across edits
    int m_currentOccurrence = 0;  ///< which of the rows with that key (a stage's init and update loops share labels)
    QString m_currentBuffer;    ///< the current alloc row's buffer: found by it when an edit changed its line (a double buffer)
    QSet<QString> m_collapsed;  ///< labels of loops the user collapsed
    bool m_restoring = false;
    friend class NestTree;
};

} // namespace loopscope::ui
