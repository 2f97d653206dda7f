// Exceptions out of event handlers become a dialog (see guarded_application.h). Qt itself may
// not be unwound through: each event is delivered inside its own try block, so an exception never
// crosses more than the handler that threw it.
#include "guarded_application.h"

#include <QMessageBox>
#include <QTimer>

#include <cstdio>
#include <exception>
#include <new>

namespace loopscope::ui {

GuardedApplication::GuardedApplication(int& argc, char** argv) : QApplication(argc, argv) {}

bool GuardedApplication::notify(QObject* receiver, QEvent* event)
{
    try {
        return QApplication::notify(receiver, event);
    } catch (const std::bad_alloc&) {
        report(tr("out of memory"));
    } catch (const std::exception& e) {
        report(tr("internal error: %1").arg(QString::fromStdString(e.what())));
    } catch (...) {
        report(tr("internal error: an unknown exception"));
    }
    return false;
}

void GuardedApplication::report(const QString& why)
{
    const QString text = tr("The last action stopped: %1.\n\nThe schedule and its unsaved changes are kept; saving them is safe. "
                            "This is a bug in Loopscope: please report what you did.")
                             .arg(why);
    std::fprintf(stderr, "loopscope: %s\n", why.toLocal8Bit().constData());
    if (m_sink) {
        m_sink(text);
        return;
    }
    // Not from inside the handler that failed: the dialog's own event loop starts afresh.
    QTimer::singleShot(0, this, [text] { QMessageBox::critical(nullptr, tr("Internal error"), text); });
}

} // namespace loopscope::ui
