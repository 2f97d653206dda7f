// The Variants dock: the workspace's variants as a sortable table with their key figures, the
// actions on them (save the current schedule as a variant, open, duplicate, rename, delete,
// compare two) and the selected one's notes and files. Passive: it shows rows and emits intents.
#pragma once

#include "variants_model.h"

#include <QWidget>

class QAction;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace loopscope::ui {

class VariantsView : public QWidget {
    Q_OBJECT
public:
    explicit VariantsView(QWidget* parent = nullptr);

    /// The workspace shown: its file ("" when there is none), whether it may be written, and
    /// a line about it (where it is, or why there is none and what to do).
    void setWorkspace(const QString& path, bool readOnly, const QString& message);
    void setRows(std::vector<VariantRow> rows);
    /// The variant the open document came from (bold), or none.
    void setCurrent(std::optional<int64_t> id);
    /// Whether there is a schedule to save as a variant.
    void setCanSave(bool canSave, const QString& why = QString());
    /// Selects one variant (and scrolls to it).
    void selectVariant(int64_t id) { selectVariants({id}); }
    /// Selects these variants (and scrolls to the first).
    void selectVariants(const std::vector<int64_t>& ids);
    /// Scrolls the table so that a variant's cell in `column` (VariantsModel::Column) is in
    /// view, leaving the selection as it is.
    void revealCell(int64_t id, int column);
    /// The selected variants, in the order shown.
    std::vector<int64_t> selectedIds() const;
    /// Starts editing the selected variant's name in the table.
    void renameSelected();

    VariantsModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* workspaceLabel() const { return m_workspaceLabel; }
    QLabel* detailsLabel() const { return m_details; }
    /// "save", "open", "duplicate", "rename", "delete", "compare", "refresh".
    QAction* action(const QString& name) const;

signals:
    void saveRequested();
    void openRequested(qint64 id);
    void duplicateRequested(qint64 id);
    void renameRequested(qint64 id, const QString& name);
    void deleteRequested(qint64 id);
    /// Two variants to compare (A first); with one selected, B is -1 (the view asks for a second).
    void compareRequested(qint64 a, qint64 b);
    void refreshRequested();
    void createWorkspaceRequested();
    void openWorkspaceRequested();

private:
    void updateActions();
    void updateDetails();

    VariantsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_workspaceLabel;
    QLabel* m_details;
    QPushButton* m_createButton;
    QPushButton* m_openButton;
    std::map<QString, QAction*> m_actions;
    bool m_hasWorkspace = false;
    bool m_readOnly = false;
    bool m_canSave = false;
    QString m_cannotSave;
};

} // namespace loopscope::ui
