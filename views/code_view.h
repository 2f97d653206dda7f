// Code view: the C the current schedule exports (<kernel>.c from core/codegen), syntax
// highlighted and updated live; the lines of the selected loop are marked.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace loopscope::ui {

/// C99 highlighting: keywords, types, numbers, strings, comments and preprocessor lines.
class CHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit CHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    std::vector<Rule> m_rules;
    QTextCharFormat m_comment;
    QTextCharFormat m_preprocessor;
};

class CodeView : public QWidget {
    Q_OBJECT
public:
    explicit CodeView(QWidget* parent = nullptr);

    /// Shows new code; the scroll position is kept. `fileName` is shown above it.
    void setCode(const std::string& code, const QString& fileName);
    /// Marks the lines of a loop (its printed label, e.g. "O:h.outer"; "" clears) and
    /// scrolls to its header.
    void setHighlightedLoop(const QString& label);

    QString text() const;
    QPlainTextEdit* editor() const { return m_edit; }
    /// C identifier of a loop label as the generator writes it ("O:h.outer" -> "O_h_outer").
    static QString loopIdentifier(const QString& label);

signals:
    void exportRequested();

private:
    void applyHighlight(bool scroll);
    QPlainTextEdit* m_edit;
    QLabel* m_title;
    QPushButton* m_export;
    CHighlighter* m_highlighter;
    std::string m_code;
    QString m_fileName;
    QString m_loop;
};

} // namespace loopscope::ui
