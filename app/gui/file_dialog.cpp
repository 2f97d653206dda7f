#include "file_dialog.h"

#include <QGuiApplication>
#include <QHeaderView>
#include <QScreen>
#include <QTreeView>

namespace loopscope::ui {

void prepareFileDialog(QFileDialog& dialog, FileDialogKind kind)
{
    switch (kind) {
    case FileDialogKind::OpenFile:
        dialog.setFileMode(QFileDialog::ExistingFile);
        dialog.setAcceptMode(QFileDialog::AcceptOpen);
        break;
    case FileDialogKind::SaveFile:
        dialog.setFileMode(QFileDialog::AnyFile);
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        break;
    case FileDialogKind::Folder:
        dialog.setFileMode(QFileDialog::Directory);
        dialog.setOption(QFileDialog::ShowDirsOnly, true);
        dialog.setAcceptMode(QFileDialog::AcceptOpen);
        break;
    }
    QSize room(900, 560);
    const QWidget* parent = dialog.parentWidget();
    const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen();
    if (screen)
        room = room.boundedTo(screen->availableSize() * 0.9);
    dialog.resize(room.expandedTo(dialog.minimumSizeHint()));
    // Qt's own dialog restores its columns' widths from the last one opened (QSettings), so a
    // larger dialog alone kept the cut names: the Name column takes what the Size, Type and Date
    // columns, sized to their contents, leave. A platform dialog has no such view.
    if (auto* view = dialog.findChild<QTreeView*>(QStringLiteral("treeView"))) {
        QHeaderView* header = view->header();
        header->setStretchLastSection(false);
        header->setSectionResizeMode(0, QHeaderView::Stretch);
        for (int column = 1; column < header->count(); ++column)
            header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
}

QString askFile(QWidget* parent, FileDialogKind kind, const QString& title, const QString& dir, const QString& filter,
                const QString& defaultSuffix)
{
    QFileDialog dialog(parent, title, dir, filter);
    prepareFileDialog(dialog, kind);
    dialog.setDefaultSuffix(defaultSuffix);
    const bool accepted = dialog.exec() == QDialog::Accepted;
    // The dialog saves its header in the user's Qt settings, which every Qt program's own
    // dialog reads: leave the columns resizable by hand there, at the widths they have now.
    if (auto* view = dialog.findChild<QTreeView*>(QStringLiteral("treeView"))) {
        QHeaderView* header = view->header();
        for (int column = 0; column < header->count(); ++column) {
            const int width = header->sectionSize(column);
            header->setSectionResizeMode(column, QHeaderView::Interactive);
            header->resizeSection(column, width);
        }
        header->setStretchLastSection(true);
    }
    if (!accepted)
        return QString();
    const QStringList chosen = dialog.selectedFiles();
    return chosen.isEmpty() ? QString() : chosen.front();
}

} // namespace loopscope::ui
