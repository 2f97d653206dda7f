// The variants of a workspace as a table: name, key figures, measured instructions, when it
// was modified and what it was derived from; sortable by the numbers, not their text.
#pragma once

#include "store/records.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace loopscope::ui {

/// A variant with what the table shows beside its record.
struct VariantRow {
    store::Variant variant;
    QString parentName;          ///< "" when it was derived from nothing (or its parent was deleted)
    /// Whether the kernel and target files on disk still have the text stored with the variant.
    QString kernelOnDisk = QStringLiteral("same");   ///< same, changed or missing
    QString targetOnDisk = QStringLiteral("same");
    bool filesDiffer() const { return kernelOnDisk != QLatin1String("same") || targetOnDisk != QLatin1String("same"); }
};

class VariantsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, DerivedFrom, Cycles, Latency, SramPeak, Energy, DramTraffic, Measured, Modified, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, IdRole };

    explicit VariantsModel(QObject* parent = nullptr);
    void setRows(std::vector<VariantRow> rows);
    const std::vector<VariantRow>& rows() const { return m_rows; }
    /// The row of a variant, or -1.
    int rowOf(int64_t id) const;
    /// The variant the open document came from (shown in bold), or none.
    void setCurrent(std::optional<int64_t> id);

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Editing a name asks for the rename (renameRequested); the model changes only when the
    /// workspace has done it and the rows are set again.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /// "12.3 KiB", "1.5 MiB".
    static QString bytesText(int64_t bytes);

signals:
    void renameRequested(qint64 id, const QString& name);

private:
    std::vector<VariantRow> m_rows;
    std::optional<int64_t> m_current;
};

} // namespace loopscope::ui
