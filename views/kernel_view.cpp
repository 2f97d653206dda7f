// Kernel and target chooser.
#include "kernel_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace loopscope::ui {

KernelView::KernelView(QWidget* parent) : QWidget(parent), m_model(new KernelModel(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* grid = new QGridLayout;
    grid->addWidget(new QLabel(tr("Kernel"), this), 0, 0);
    m_kernelBox = new QComboBox(this);
    m_kernelBox->setToolTip(tr("An example kernel, or a kernel file you opened. Choosing one starts a new, unscheduled document."));
    m_kernelBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kernelBox->setMinimumContentsLength(12);
    m_kernelBox->setPlaceholderText(tr("(choose a kernel)"));
    grid->addWidget(m_kernelBox, 0, 1);
    m_openKernel = new QToolButton(this);
    m_openKernel->setText(tr("Open..."));
    m_openKernel->setToolTip(tr("Open a .kernel.yaml file"));
    grid->addWidget(m_openKernel, 0, 2);
    grid->addWidget(new QLabel(tr("Target"), this), 1, 0);
    m_targetBox = new QComboBox(this);
    m_targetBox->setToolTip(tr("The hardware the schedule runs on; switching replays the trace on it (undoable)."));
    m_targetBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_targetBox->setMinimumContentsLength(12);
    grid->addWidget(m_targetBox, 1, 1);
    m_openTarget = new QToolButton(this);
    m_openTarget->setText(tr("Open..."));
    m_openTarget->setToolTip(tr("Open a target .yaml file (reloaded whenever it changes on disk)"));
    grid->addWidget(m_openTarget, 1, 2);
    grid->setColumnStretch(1, 1);
    layout->addLayout(grid);

    m_description = new QLabel(this);
    m_description->setWordWrap(true);
    m_description->setStyleSheet(QStringLiteral("QLabel { color: #455a64; }"));
    layout->addWidget(m_description);

    m_tree = new QTreeView(this);
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(KernelModel::NameColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree, 1);

    connect(m_kernelBox, &QComboBox::activated, this, [this](int i) { emit kernelChosen(m_kernelBox->itemData(i).toString()); });
    connect(m_targetBox, &QComboBox::activated, this, [this](int i) { emit targetChosen(m_targetBox->itemData(i).toString()); });
    connect(m_openKernel, &QToolButton::clicked, this, &KernelView::openKernelRequested);
    connect(m_openTarget, &QToolButton::clicked, this, &KernelView::openTargetRequested);
}

void KernelView::setExampleKernels(const QStringList& paths)
{
    m_kernelBox->clear();
    for (const QString& p : paths)
        m_kernelBox->addItem(QFileInfo(p).fileName().remove(QStringLiteral(".kernel.yaml")), QFileInfo(p).absoluteFilePath());
}

void KernelView::setBuiltinTargets(const QStringList& names)
{
    m_targetBox->clear();
    for (const QString& n : names)
        m_targetBox->addItem(n, n);
}

void KernelView::select(QComboBox* box, const QString& value, const QString& label)
{
    int i = box->findData(value);
    if (i < 0 && !value.isEmpty()) {
        box->addItem(label, value);
        i = box->count() - 1;
    }
    const QSignalBlocker block(box);
    box->setCurrentIndex(i);
}

void KernelView::setCurrent(const QString& kernelPath, const QString& target, const QString& description)
{
    // Nothing open: the kernel box shows a placeholder, never a kernel that is not open.
    if (kernelPath.isEmpty()) {
        const QSignalBlocker block(m_kernelBox);
        m_kernelBox->setCurrentIndex(-1);
    } else {
        select(m_kernelBox, QFileInfo(kernelPath).absoluteFilePath(), QFileInfo(kernelPath).fileName());
    }
    const bool file = target.contains(QLatin1Char('/'));
    select(m_targetBox, target, file ? tr("%1 (file)").arg(QFileInfo(target).fileName()) : target);
    m_description->setText(description);
    m_description->setVisible(!description.isEmpty());
}

void KernelView::setSnapshot(const Snapshot& snapshot)
{
    if (!m_model->setSnapshot(snapshot))
        return;
    m_tree->expandAll();
    // The target's details are reference material: start them folded.
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->index(r, 0).data().toString() == tr("Target") || m_model->index(r, 0).data().toString() == tr("Sizes"))
            m_tree->collapse(m_model->index(r, 0));
}

void KernelView::setHighlightedTensors(const QStringList& tensors) { m_model->setHighlightedTensors(tensors); }

} // namespace loopscope::ui
