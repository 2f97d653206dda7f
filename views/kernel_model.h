// The kernel and the target as a tree: stages (with their axes and how they are placed),
// tensors (shape, dtype, role, size), size parameters, and the target's levels and units.
#pragma once

#include "snapshot.h"

#include <QAbstractItemModel>
#include <QSet>
#include <QStringList>

#include <vector>

namespace loopscope::ui {

class KernelModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, DetailColumn, ColumnCount };
    enum Role { TensorRole = Qt::UserRole + 1, HighlightRole };

    explicit KernelModel(QObject* parent = nullptr);

    /// Rebuilds the tree; false (and no reset) when nothing shown changed.
    bool setSnapshot(const Snapshot& snapshot);
    /// Emphasises tensors (those the selected loop touches).
    void setHighlightedTensors(const QStringList& tensors);
    /// Index of a tensor's row, or invalid.
    QModelIndex findTensor(const QString& tensor) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = QModelIndex()) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Info {
        QString name;
        QString detail;
        QString tooltip;
        QString tensor;
        bool section = false;
        bool operator==(const Info&) const = default;
    };
    struct Node : Info {
        int parent = -1;
        std::vector<int> children;
        bool operator==(const Node&) const = default;
    };
    int add(int parent, Info info);
    QModelIndex indexOf(int node, int column = 0) const;
    std::vector<Node> m_nodes;
    std::vector<int> m_top;
    QSet<QString> m_highlight;
};

} // namespace loopscope::ui
