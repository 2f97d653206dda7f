// An immutable picture of the document after an edit: what every view draws from.
#pragma once

#include "analysis/cost_report.h"
#include "lower/loop_nest.h"
#include "sched/program.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace loopscope::ui {

/// The C a snapshot's nest exports to, generated once. The document generates it at once when
/// it is short, else on a worker thread after the edit (the Code panel says so until it is
/// ready); whoever reads it first otherwise generates it, and a reader that asks while the
/// worker writes it waits for the same text. Thread-safe.
class GeneratedCode {
public:
    explicit GeneratedCode(std::function<std::string()> generate) : m_generate(std::move(generate)) {}
    /// A text that is already known (no generation).
    static std::shared_ptr<const GeneratedCode> of(std::string text)
    {
        auto code = std::make_shared<GeneratedCode>(nullptr);
        code->m_text = std::move(text);
        code->m_ready.store(true, std::memory_order_release);
        std::call_once(code->m_once, [] {});
        return code;
    }

    /// The text (generates it, or waits for the thread generating it).
    const std::string& text() const
    {
        std::call_once(m_once, [this] {
            m_text = m_generate ? m_generate() : std::string();
            m_generate = nullptr;
            m_ready.store(true, std::memory_order_release);
        });
        return m_text;
    }
    /// The text is generated: text() returns at once.
    bool ready() const { return m_ready.load(std::memory_order_acquire); }

private:
    mutable std::once_flag m_once;
    mutable std::function<std::string()> m_generate;
    mutable std::string m_text;
    mutable std::atomic<bool> m_ready{false};
};

/// Everything the views show for one state of the document. Views never change it; the
/// document builds a new one after every edit (apply -> lower -> analyse; the C on demand).
struct Snapshot {
    std::shared_ptr<const sched::Program> program;        ///< null when nothing is open
    std::shared_ptr<const lower::LoopNest> nest;
    std::shared_ptr<const analysis::CostReport> report;
    std::shared_ptr<const GeneratedCode> generated;       ///< the exported <kernel>.c; null when nothing is open
    std::optional<sched::ScheduleError> failedStep;       ///< first failing step of the trace, if any
    int revision = 0;                                     ///< increases with every edit (for histories)

    bool empty() const { return !program; }
    /// The exported <kernel>.c text ("" when nothing is open); may generate it or wait for it.
    const std::string& code() const
    {
        static const std::string none;
        return generated ? generated->text() : none;
    }
    /// The C is generated (or there is none): code() returns at once.
    bool codeReady() const { return !generated || generated->ready(); }
};

} // namespace loopscope::ui
