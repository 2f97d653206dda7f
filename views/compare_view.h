// Compare: two variants side by side: their figures with B/A ratios, the step difference, the
// two loop nests with the lines that differ marked, and a scatter of cycles against SRAM over
// all variants. Passive: it shows what it is given and emits the pair the user picks.
#pragma once

#include "charts/variants_scatter.h"
#include "store/compare.h"
#include "store/trace_diff.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QSplitter;
class QTableWidget;

namespace loopscope::ui {

/// What the view shows of a pair.
struct VariantComparison {
    int64_t a = -1;
    int64_t b = -1;
    QString nameA;
    QString nameB;
    std::vector<store::FigureComparison> figures;
    std::vector<store::StepChange> steps;
    std::string nestA;    ///< the printed loop nests
    std::string nestB;
    QString note;         ///< e.g. a variant whose trace does not replay, or whose files changed
};

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    /// Every variant: the choices of A and B, and the scatter's points.
    void setVariants(const std::vector<VariantPoint>& variants);
    void setComparison(const VariantComparison& c);
    const VariantComparison& comparison() const { return m_comparison; }

    QTableWidget* figuresTable() const { return m_figures; }
    QListWidget* stepsList() const { return m_steps; }
    QPlainTextEdit* nestA() const { return m_nestA; }
    QPlainTextEdit* nestB() const { return m_nestB; }
    VariantsScatter* scatter() const { return m_scatter; }
    QComboBox* choiceA() const { return m_choiceA; }
    QComboBox* choiceB() const { return m_choiceB; }
    /// Lines of each nest marked as differing (for tests).
    int markedLines(bool b) const;

signals:
    /// The user picked another pair (combo boxes, the swap button, a click on the scatter: B).
    void pairChosen(qint64 a, qint64 b);

private:
    void fillNests(const std::string& a, const std::string& b);
    void choose(int64_t a, int64_t b);

    QComboBox* m_choiceA;
    QComboBox* m_choiceB;
    QLabel* m_note;
    QTableWidget* m_figures;
    QListWidget* m_steps;
    QLabel* m_headerA;
    QLabel* m_headerB;
    QPlainTextEdit* m_nestA;
    QPlainTextEdit* m_nestB;
    VariantsScatter* m_scatter;
    QSplitter* m_split;
    VariantComparison m_comparison;
    int m_markedA = 0;
    int m_markedB = 0;
    bool m_filling = false;
};

} // namespace loopscope::ui
