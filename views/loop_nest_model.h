// The lowered loop nest as a tree of code-like rows (one per printed line of lower::print):
// loops, guards, allocations, copies and the statements of the body, with kind badges.
#pragma once

#include "snapshot.h"

#include <QAbstractItemModel>
#include <QFont>
#include <QSet>
#include <QStringList>

#include <vector>

namespace loopscope::ui {

/// One row of the nest. Rows are numbered in print order; a loop's or guard's body rows are
/// its children, an allocation's body follows it at the same depth (as printed).
struct NestRow {
    /// Matmul: one accelerator instruction on a block (a tensorized stage); Fill: the padding halo
    /// of a tensorized operand written in the scratchpad.
    enum class Kind { Tensor, Loop, Guard, Alloc, Copy, Init, Load, Compute, Store, Matmul, Fill };
    Kind kind = Kind::Compute;
    QString code;               ///< the printed line without indentation and comment
    QStringList badges;         ///< "reduction", "unrolled", "cache_read", "DRAM -> SRAM", "4 KiB"...
    QString tooltip;
    int parent = -1;            ///< enclosing loop or guard row, -1 at the top
    std::vector<int> children;
    int depth = 0;
    // loops
    int stage = -1;
    int var = -1;
    QString stageName;
    QString loopName;           ///< the variable's name in its stage: "h.outer"
    QString label;              ///< as printed (and named in reports): "O:h.outer"
    int64_t extent = 0;
    sched::LoopKind loopKind = sched::LoopKind::Serial;
    bool reduction = false;
    // rows about a tensor (home, alloc, copy, load, store, compute)
    QString tensor;
    QString buffer;
    QString level;
    QStringList touched;        ///< tensors this row (and, for a loop, its body) reads or writes
    int enclosingLoop = -1;     ///< innermost loop row around this row

    bool operator==(const NestRow&) const = default;
};

class LoopNestModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Role {
        KindRole = Qt::UserRole + 1,   ///< int(NestRow::Kind)
        BadgesRole,                    ///< QStringList
        LoopRole,                      ///< loop name in its stage ("" if not a loop)
        LabelRole,                     ///< printed loop label ("O:h.outer")
        StageRole,                     ///< stage name of a loop
        TensorRole,                    ///< the tensor a row is about
        TouchedRole,                   ///< QStringList
        HighlightRole,                 ///< int: 0 none, 1 touched by the selection, 2 error
        RowIdRole,                     ///< int: index into rows()
    };

    explicit LoopNestModel(QObject* parent = nullptr);

    /// Rebuilds the rows. The loops and tensors of a failing step are highlighted as errors.
    /// When the new rows have the same tree as the old ones (most edits: a factor, a double
    /// buffer, an unroll change texts and badges, not the shape), the rows are replaced in
    /// place and only those that differ are reported (dataChanged), so that the view keeps its
    /// expansion, selection and scroll position and repaints only what changed. Otherwise the
    /// model is reset. Returns true when it was reset.
    bool setSnapshot(const Snapshot& snapshot);
    /// Loops (labels or names) and tensors to emphasise; `error` marks them as a problem.
    void setHighlight(const QStringList& loops, const QStringList& tensors, bool error = false);

    const std::vector<NestRow>& rows() const { return m_rows; }
    const NestRow* row(const QModelIndex& index) const;
    QModelIndex indexOfRow(int rowId) const;
    /// The row of a loop by label or name (and stage, if given), or an invalid index.
    QModelIndex findLoop(const QString& loop, const QString& stage = QString()) const;
    const Snapshot& snapshot() const { return m_snapshot; }

    QModelIndex index(int row, int column, const QModelIndex& parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    int highlightOf(const NestRow& r) const;
    std::vector<int> m_top;
    std::vector<NestRow> m_rows;
    Snapshot m_snapshot;
    QFont m_font;       ///< the rows' fixed-pitch font (asked for every row painted)
    QFont m_boldFont;   ///< loops and accelerator instructions
    QSet<QString> m_hlLoops;
    QSet<QString> m_hlTensors;
    bool m_hlError = false;
};

/// "4 KiB", "1.5 MiB".
QString humanBytes(int64_t bytes);

} // namespace loopscope::ui
