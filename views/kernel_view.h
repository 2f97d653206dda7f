// Kernel and target chooser: an example kernel or a kernel file, a built-in target or a target
// file, and the tree of the kernel's stages and tensors and the target's levels.
#pragma once

#include "kernel_model.h"
#include "snapshot.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;
class QTreeView;

namespace loopscope::ui {

class KernelView : public QWidget {
    Q_OBJECT
public:
    explicit KernelView(QWidget* parent = nullptr);

    /// Example kernel files offered in the kernel box.
    void setExampleKernels(const QStringList& paths);
    /// Built-in target names offered in the target box.
    void setBuiltinTargets(const QStringList& names);
    /// Shows what is open (without emitting anything); adds files not offered yet.
    void setCurrent(const QString& kernelPath, const QString& target, const QString& description);
    void setSnapshot(const Snapshot& snapshot);
    void setHighlightedTensors(const QStringList& tensors);

    KernelModel* model() const { return m_model; }
    QComboBox* kernelBox() const { return m_kernelBox; }
    QComboBox* targetBox() const { return m_targetBox; }
    QTreeView* tree() const { return m_tree; }

signals:
    void kernelChosen(const QString& path);
    void targetChosen(const QString& target);
    void openKernelRequested();
    void openTargetRequested();

private:
    void select(QComboBox* box, const QString& value, const QString& label);
    KernelModel* m_model;
    QComboBox* m_kernelBox;
    QComboBox* m_targetBox;
    QToolButton* m_openKernel;
    QToolButton* m_openTarget;
    QLabel* m_description;
    QTreeView* m_tree;
};

} // namespace loopscope::ui
