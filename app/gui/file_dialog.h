// The file dialogs of the app (open, save, choose a folder), sized so that the names of the
// examples read whole: Qt's own dialog (the one used without a platform dialog: under X without
// a desktop's theme, offscreen) opens at about 600 pixels, where the Name column cut
// "conv2d_s2_int8_tflite_small.sched.yaml" to "conv2d_s2_int8_t...small.sched.yaml" and the other
// columns to "690...tes", "YAM...ent".
#pragma once

#include <QFileDialog>
#include <QString>

class QWidget;

namespace loopscope::ui {

/// What a dialog asks for.
enum class FileDialogKind { OpenFile, SaveFile, Folder };

/// Sets up `dialog` for `kind` and sizes it: 900 x 560 pixels, or 90% of a smaller screen; in
/// Qt's own dialog the Name column takes what the Size, Type and Date columns, sized to their
/// contents, leave (whatever widths the last dialog left in the settings).
void prepareFileDialog(QFileDialog& dialog, FileDialogKind kind);

/// Runs a dialog prepared so (modal): the chosen path, or empty when cancelled. A name typed
/// without a suffix gets `defaultSuffix` before the dialog checks it (a save asks before it
/// replaces that file).
QString askFile(QWidget* parent, FileDialogKind kind, const QString& title, const QString& dir, const QString& filter = QString(),
                const QString& defaultSuffix = QString());

} // namespace loopscope::ui
