// The application object of loopscope: an exception that escapes an event handler or a slot
// (a bug, memory running out) becomes a dialog instead of ending the program and losing the
// user's unsaved edits.
#pragma once

#include <QApplication>

#include <functional>

namespace loopscope::ui {

class GuardedApplication : public QApplication {
public:
    GuardedApplication(int& argc, char** argv);

    /// Delivers the event; an exception thrown while handling it is reported (a dialog, once the
    /// event loop is back; the text also goes to stderr) and the event counts as not handled.
    bool notify(QObject* receiver, QEvent* event) override;

    /// Tests only: receives the report instead of the dialog.
    void setReportSink(std::function<void(const QString&)> sink) { m_sink = std::move(sink); }

private:
    void report(const QString& why);

    std::function<void(const QString&)> m_sink;
};

} // namespace loopscope::ui
