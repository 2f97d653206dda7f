// Code view and its C highlighter.
#include "code_view.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace loopscope::ui {

CHighlighter::CHighlighter(QTextDocument* document) : QSyntaxHighlighter(document)
{
    QTextCharFormat keyword;
    keyword.setForeground(QColor(0x00, 0x33, 0x99));
    keyword.setFontWeight(QFont::Bold);
    QTextCharFormat type;
    type.setForeground(QColor(0x00, 0x7a, 0x7a));
    QTextCharFormat number;
    number.setForeground(QColor(0x98, 0x1a, 0x1a));
    QTextCharFormat string;
    string.setForeground(QColor(0x2e, 0x7d, 0x32));
    QTextCharFormat call;
    call.setForeground(QColor(0x6a, 0x1b, 0x9a));
    m_comment.setForeground(QColor(0x70, 0x70, 0x70));
    m_comment.setFontItalic(true);
    m_preprocessor.setForeground(QColor(0x8d, 0x5a, 0x00));

    m_rules.push_back({QRegularExpression(QStringLiteral("\\b[A-Za-z_][A-Za-z0-9_]*(?=\\s*\\()")), call});
    m_rules.push_back({QRegularExpression(QStringLiteral(
                           "\\b(for|if|else|while|do|return|break|continue|switch|case|default|static|const|inline|"
                           "extern|sizeof|typedef|struct|volatile|restrict|goto)\\b")),
                       keyword});
    m_rules.push_back({QRegularExpression(QStringLiteral(
                           "\\b(void|char|short|int|long|float|double|unsigned|signed|size_t|u?int(8|16|32|64)_t)\\b")),
                       type});
    m_rules.push_back({QRegularExpression(QStringLiteral("\\b(0[xX][0-9a-fA-F]+|[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?[fFuUlL]*)\\b")),
                       number});
    m_rules.push_back({QRegularExpression(QStringLiteral("\"([^\"\\\\]|\\\\.)*\"")), string});
}

void CHighlighter::highlightBlock(const QString& text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.startsWith(QLatin1Char('#'))) {
        setFormat(0, text.size(), m_preprocessor);
        setCurrentBlockState(0);
        return;
    }
    for (const Rule& r : m_rules) {
        auto it = r.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(m.capturedStart(), m.capturedLength(), r.format);
        }
    }
    // Comments last: they win over everything inside them. State 1 = inside /* */.
    int start = previousBlockState() == 1 ? 0 : -1;
    int pos = 0;
    setCurrentBlockState(0);
    while (pos < text.size()) {
        if (start < 0) {
            const int block = text.indexOf(QLatin1String("/*"), pos);
            const int line = text.indexOf(QLatin1String("//"), pos);
            if (line >= 0 && (block < 0 || line < block)) {
                setFormat(line, text.size() - line, m_comment);
                return;
            }
            if (block < 0)
                return;
            start = block;
            pos = block + 2;
        }
        const int end = text.indexOf(QLatin1String("*/"), pos);
        if (end < 0) {
            setFormat(start, text.size() - start, m_comment);
            setCurrentBlockState(1);
            return;
        }
        setFormat(start, end + 2 - start, m_comment);
        pos = end + 2;
        start = -1;
    }
}

CodeView::CodeView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_title->setMinimumWidth(80);
    top->addWidget(m_title, 1);
    m_export = new QPushButton(tr("Export..."), this);
    m_export->setToolTip(tr("Write <kernel>.h and <kernel>.c, as loopscope-cli export does"));
    top->addWidget(m_export);
    layout->addLayout(top);
    m_edit = new QPlainTextEdit(this);
    m_edit->setReadOnly(true);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    layout->addWidget(m_edit, 1);
    m_highlighter = new CHighlighter(m_edit->document());
    connect(m_export, &QPushButton::clicked, this, &CodeView::exportRequested);
    setCode(std::string(), QString());
}

QString CodeView::loopIdentifier(const QString& label)
{
    QString id = label;
    for (QChar& c : id)
        if (!c.isLetterOrNumber() && c != QLatin1Char('_'))
            c = QLatin1Char('_');
    return id;
}

QString CodeView::text() const { return m_edit->toPlainText(); }

void CodeView::setCode(const std::string& code, const QString& fileName)
{
    m_export->setEnabled(!code.empty());
    if (code.empty()) {
        m_title->setText(tr("No code: open a kernel first."));
        m_code.clear();
        m_edit->clear();
        return;
    }
    const int lines = static_cast<int>(std::count(code.begin(), code.end(), '\n'));
    m_title->setText(tr("<b>%1</b> &mdash; %2 lines of C99 (what Export writes)").arg(fileName.toHtmlEscaped()).arg(lines));
    if (code == m_code)
        return;
    const bool fresh = m_code.empty() || fileName != m_fileName;
    m_code = code;
    m_fileName = fileName;
    const int v = m_edit->verticalScrollBar()->value();
    const int h = m_edit->horizontalScrollBar()->value();
    m_edit->setPlainText(QString::fromStdString(code));
    if (fresh) {
        // Start at the kernel function, past the portable boilerplate.
        static const QRegularExpression entry(QStringLiteral("^void [A-Za-z_][A-Za-z0-9_]*\\("));
        for (QTextBlock b = m_edit->document()->begin(); b.isValid(); b = b.next())
            if (entry.match(b.text()).hasMatch()) {
                m_edit->verticalScrollBar()->setValue(b.firstLineNumber());
                break;
            }
    } else {
        m_edit->verticalScrollBar()->setValue(v);
        m_edit->horizontalScrollBar()->setValue(h);
    }
    applyHighlight(false);
}

void CodeView::setHighlightedLoop(const QString& label)
{
    if (label == m_loop)
        return;
    m_loop = label;
    applyHighlight(true);
}

void CodeView::applyHighlight(bool scroll)
{
    QList<QTextEdit::ExtraSelection> selections;
    if (!m_loop.isEmpty()) {
        const QRegularExpression header(QStringLiteral("\\bfor \\(int %1 = ").arg(QRegularExpression::escape(loopIdentifier(m_loop))));
        const QRegularExpression use(QStringLiteral("\\b%1\\b").arg(QRegularExpression::escape(loopIdentifier(m_loop))));
        QTextCharFormat headerFormat;
        headerFormat.setBackground(QColor(0xff, 0xe0, 0x82));
        headerFormat.setProperty(QTextFormat::FullWidthSelection, true);
        QTextCharFormat useFormat;
        useFormat.setBackground(QColor(0xff, 0xf3, 0xb0));
        useFormat.setProperty(QTextFormat::FullWidthSelection, true);
        QTextBlock first;
        for (QTextBlock b = m_edit->document()->begin(); b.isValid(); b = b.next()) {
            const QString t = b.text();
            const bool isHeader = t.contains(header);
            if (!isHeader && !t.contains(use))
                continue;
            if (isHeader && !first.isValid())
                first = b;
            QTextEdit::ExtraSelection sel;
            sel.cursor = QTextCursor(b);
            sel.format = isHeader ? headerFormat : useFormat;
            selections << sel;
        }
        if (scroll && first.isValid()) {
            QTextCursor c(first);
            m_edit->setTextCursor(c);
            m_edit->centerCursor();
        }
    }
    m_edit->setExtraSelections(selections);
}

} // namespace loopscope::ui
