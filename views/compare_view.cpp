// The compare view.
#include "compare_view.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

namespace loopscope::ui {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

const QColor kOnlyA(255, 222, 218);   // lines only in A (removed going to B)
const QColor kOnlyB(214, 242, 218);   // lines only in B
const QColor kFiller(242, 242, 242);  // the other side of a line only one nest has

QString figureText(double v, bool integral)
{
    const QLocale l(QLocale::English);
    return integral ? l.toString(static_cast<qlonglong>(std::llround(v))) : l.toString(v, 'f', v < 10 ? 4 : 2);
}

} // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("compareView"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);

    auto* top = new QHBoxLayout;
    m_choiceA = new QComboBox(this);
    m_choiceA->setObjectName(QStringLiteral("compareA"));
    m_choiceB = new QComboBox(this);
    m_choiceB->setObjectName(QStringLiteral("compareB"));
    for (QComboBox* c : {m_choiceA, m_choiceB}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        c->setMinimumContentsLength(14);
    }
    auto* swap = new QPushButton(tr("Swap"), this);
    swap->setObjectName(QStringLiteral("compareSwap"));
    auto* labelA = new QLabel(tr("<b style='color:#c83c28'>A</b>"), this);
    auto* labelB = new QLabel(tr("<b style='color:#1e823c'>B</b>"), this);
    top->addWidget(labelA);
    top->addWidget(m_choiceA);
    top->addWidget(labelB);
    top->addWidget(m_choiceB);
    top->addWidget(swap);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("compareNote"));
    m_note->setWordWrap(true);
    top->addWidget(m_note, 1);
    layout->addLayout(top);
    auto chosen = [this] {
        if (!m_filling)
            choose(m_choiceA->currentData().toLongLong(), m_choiceB->currentData().toLongLong());
    };
    connect(m_choiceA, &QComboBox::currentIndexChanged, this, chosen);
    connect(m_choiceB, &QComboBox::currentIndexChanged, this, chosen);
    connect(swap, &QPushButton::clicked, this, [this] { choose(m_comparison.b, m_comparison.a); });

    // Figures, steps and the chart of all variants above; the two nests side by side below.
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->setChildrenCollapsible(false);
    auto* upper = new QSplitter(Qt::Horizontal, m_split);
    upper->setChildrenCollapsible(false);
    auto* lower = new QSplitter(Qt::Horizontal, m_split);
    lower->setChildrenCollapsible(false);
    m_figures = new QTableWidget(0, 4, upper);
    m_figures->setObjectName(QStringLiteral("compareFigures"));
    m_figures->setHorizontalHeaderLabels({tr("figure"), QStringLiteral("A"), QStringLiteral("B"), tr("B/A")});
    m_figures->verticalHeader()->hide();
    m_figures->verticalHeader()->setDefaultSectionSize(m_figures->fontMetrics().height() + 4);
    m_figures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_figures->setSelectionMode(QAbstractItemView::NoSelection);
    m_figures->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_figures->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_figures->setToolTip(tr("Lower is better for every figure: a ratio B/A below 1 (green) means B needs less"));
    m_steps = new QListWidget(upper);
    m_steps->setObjectName(QStringLiteral("compareSteps"));
    m_steps->setToolTip(tr("The steps of A and B aligned: = in both, ~ changed, - only in A, + only in B"));

    auto* nests = new QWidget(lower);
    auto* grid = new QHBoxLayout(nests);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto column = [&](QLabel*& header, QPlainTextEdit*& edit, const char* name) {
        auto* box = new QVBoxLayout;
        box->setSpacing(2);
        header = new QLabel(nests);
        header->setTextFormat(Qt::RichText);
        edit = new QPlainTextEdit(nests);
        edit->setObjectName(QString::fromLatin1(name));
        edit->setReadOnly(true);
        edit->setLineWrapMode(QPlainTextEdit::NoWrap);
        edit->setFont(mono);
        box->addWidget(header);
        box->addWidget(edit, 1);
        grid->addLayout(box, 1);
    };
    column(m_headerA, m_nestA, "compareNestA");
    column(m_headerB, m_nestB, "compareNestB");
    // The two nests scroll together: their lines are aligned.
    connect(m_nestA->verticalScrollBar(), &QScrollBar::valueChanged, m_nestB->verticalScrollBar(), &QScrollBar::setValue);
    connect(m_nestB->verticalScrollBar(), &QScrollBar::valueChanged, m_nestA->verticalScrollBar(), &QScrollBar::setValue);

    m_scatter = new VariantsScatter(upper);
    connect(m_scatter, &VariantsScatter::pointClicked, this, [this](qint64 id) {
        if (id != m_comparison.a)
            choose(m_comparison.a, id);
    });
    upper->addWidget(m_figures);
    upper->addWidget(m_steps);
    upper->addWidget(m_scatter);
    upper->setStretchFactor(0, 4);
    upper->setStretchFactor(1, 3);
    upper->setStretchFactor(2, 4);
    lower->addWidget(nests);
    m_split->addWidget(upper);
    m_split->addWidget(lower);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 3);
    layout->addWidget(m_split, 1);
}

void CompareView::choose(int64_t a, int64_t b)
{
    if (a < 0 || b < 0)
        return;
    emit pairChosen(a, b);
}

void CompareView::setVariants(const std::vector<VariantPoint>& variants)
{
    m_filling = true;
    for (QComboBox* c : {m_choiceA, m_choiceB}) {
        const qint64 keep = c->currentData().toLongLong();
        c->clear();
        for (const auto& v : variants)
            c->addItem(v.name, QVariant::fromValue<qint64>(v.id));
        c->setCurrentIndex(std::max(0, c->findData(QVariant::fromValue<qint64>(keep))));
    }
    m_filling = false;
    m_scatter->setPoints(variants);
    m_scatter->setMarked(m_comparison.a, m_comparison.b);
}

void CompareView::setComparison(const VariantComparison& c)
{
    m_comparison = c;
    m_filling = true;
    m_choiceA->setCurrentIndex(m_choiceA->findData(QVariant::fromValue<qint64>(c.a)));
    m_choiceB->setCurrentIndex(m_choiceB->findData(QVariant::fromValue<qint64>(c.b)));
    m_filling = false;
    m_note->setText(c.note);
    m_note->setVisible(!c.note.isEmpty());

    m_figures->setRowCount(static_cast<int>(c.figures.size()));
    for (int r = 0; r < static_cast<int>(c.figures.size()); ++r) {
        const store::FigureComparison& f = c.figures[static_cast<std::size_t>(r)];
        auto* name = new QTableWidgetItem(qs(f.name));
        auto* a = new QTableWidgetItem(figureText(f.a, f.integral));
        auto* b = new QTableWidgetItem(figureText(f.b, f.integral));
        auto* ratio = new QTableWidgetItem(f.ratio ? QStringLiteral("%1\u00d7").arg(*f.ratio, 0, 'f', *f.ratio < 0.1 ? 3 : 2) : QStringLiteral("-"));
        for (QTableWidgetItem* i : {a, b, ratio})
            i->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (f.ratio && std::abs(*f.ratio - 1) > 0.005) {
            // Lower is better: B below A is green, above red.
            ratio->setForeground(*f.ratio < 1 ? QColor(20, 120, 40) : QColor(180, 40, 30));
            QFont bold = ratio->font();
            bold.setBold(true);
            ratio->setFont(bold);
        }
        m_figures->setItem(r, 0, name);
        m_figures->setItem(r, 1, a);
        m_figures->setItem(r, 2, b);
        m_figures->setItem(r, 3, ratio);
    }

    m_steps->clear();
    for (const store::StepChange& s : c.steps) {
        QString text;
        QColor background;
        switch (s.kind) {
        case store::ChangeKind::Same: text = QStringLiteral("= ") + qs(s.after); break;
        case store::ChangeKind::Changed:
            text = QStringLiteral("~ %1  \u2192  %2").arg(qs(s.before), qs(s.after));
            background = QColor(255, 243, 205);
            break;
        case store::ChangeKind::Removed:
            text = QStringLiteral("- ") + qs(s.before);
            background = kOnlyA;
            break;
        case store::ChangeKind::Added:
            text = QStringLiteral("+ ") + qs(s.after);
            background = kOnlyB;
            break;
        }
        auto* item = new QListWidgetItem(text, m_steps);
        if (background.isValid())
            item->setBackground(background);
    }
    if (c.steps.empty())
        new QListWidgetItem(tr("(neither has steps)"), m_steps);

    m_headerA->setText(tr("<b style='color:#c83c28'>A</b> %1").arg(c.nameA.toHtmlEscaped()));
    m_headerB->setText(tr("<b style='color:#1e823c'>B</b> %1").arg(c.nameB.toHtmlEscaped()));
    fillNests(c.nestA, c.nestB);
    m_scatter->setMarked(c.a, c.b);
}

void CompareView::fillNests(const std::string& a, const std::string& b)
{
    // Lines aligned by the difference: a run of lines only in A beside the run only in B that
    // replaces it, the shorter side padded with blank lines.
    struct Row {
        QString a, b;
        QColor colourA, colourB;
    };
    std::vector<Row> rows;
    std::vector<std::string> onlyA, onlyB;
    auto flush = [&] {
        const std::size_t n = std::max(onlyA.size(), onlyB.size());
        for (std::size_t i = 0; i < n; ++i)
            rows.push_back({i < onlyA.size() ? qs(onlyA[i]) : QString(), i < onlyB.size() ? qs(onlyB[i]) : QString(),
                            i < onlyA.size() ? kOnlyA : kFiller, i < onlyB.size() ? kOnlyB : kFiller});
        onlyA.clear();
        onlyB.clear();
    };
    for (const store::LineChange& l : store::diffLines(store::splitLines(a), store::splitLines(b))) {
        if (l.kind == store::ChangeKind::Removed) {
            onlyA.push_back(l.text);
        } else if (l.kind == store::ChangeKind::Added) {
            onlyB.push_back(l.text);
        } else {
            flush();
            rows.push_back({qs(l.text), qs(l.text), QColor(), QColor()});
        }
    }
    flush();
    m_markedA = m_markedB = 0;
    auto fill = [&rows](QPlainTextEdit* edit, bool sideB, int& marked) {
        edit->clear();
        QTextCursor cursor(edit->document());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            const QColor colour = sideB ? r.colourB : r.colourA;
            if (i > 0)
                cursor.insertBlock();
            QTextBlockFormat format;
            if (colour.isValid())
                format.setBackground(colour);
            cursor.setBlockFormat(format);
            cursor.insertText(sideB ? r.b : r.a);
            marked += colour == (sideB ? kOnlyB : kOnlyA) ? 1 : 0;
        }
        edit->moveCursor(QTextCursor::Start);
    };
    fill(m_nestA, false, m_markedA);
    fill(m_nestB, true, m_markedB);
}

int CompareView::markedLines(bool b) const { return b ? m_markedB : m_markedA; }

} // namespace loopscope::ui
