// Kernel files (*.kernel.yaml) -> kernel IR, with file:line:column diagnostics for every error.
#include "ir/kernel.h"
#include "common/c_names.h"
#include "common/interval.h"
#include "common/yaml_documents.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

namespace loopscope::ir {
namespace {

// ---------------------------------------------------------------------------------------------
// Source positions

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isIdentStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentChar(char c)
{
    return isIdentStart(c) || (c >= '0' && c <= '9');
}

unsigned long hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return static_cast<unsigned long>(c - '0');
    if (c >= 'a' && c <= 'f')
        return static_cast<unsigned long>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return static_cast<unsigned long>(c - 'A' + 10);
    return 0;
}

bool isIdentifier(const std::string& s)
{
    if (s.empty() || !isIdentStart(s[0]))
        return false;
    return std::all_of(s.begin(), s.end(), isIdentChar);
}

/// Maps YAML marks (0-based) and offsets inside scalars to 1-based file positions.
class SourceMap {
public:
    SourceMap(const std::string& text, std::string file) : m_text(text), m_file(std::move(file))
    {
        m_lineStarts.push_back(0);
        for (size_t i = 0; i < m_text.size(); ++i) {
            if (m_text[i] == '\n')
                m_lineStarts.push_back(i + 1);
        }
    }

    const std::string& file() const { return m_file; }

    SourceLoc at(int line0, int column0) const
    {
        if (line0 < 0 || column0 < 0)
            return SourceLoc{m_file, 1, 1};
        return SourceLoc{m_file, line0 + 1, column0 + 1};
    }

    /// Where a node starts; `fallback` when yaml-cpp has no mark for it (null nodes).
    SourceLoc of(const YAML::Node& n, const SourceLoc& fallback) const
    {
        if (!n.IsDefined() || n.IsNull() || n.Mark().is_null())
            return fallback;
        return at(n.Mark().line, n.Mark().column);
    }

    SourceLoc of(const YAML::Node& n) const { return of(n, SourceLoc{m_file, 1, 1}); }

    /// Position of character `offset` of a scalar's value. Walks the raw text from the node's
    /// mark, undoing quoting, escapes and line folding, so the column is exact for plain,
    /// single- and double-quoted scalars, and close for block scalars.
    SourceLoc inScalar(const YAML::Node& n, size_t offset) const
    {
        if (!n.IsDefined() || n.Mark().is_null() || n.Mark().line < 0)
            return of(n);
        const std::string& value = n.Scalar();
        size_t line = std::min(static_cast<size_t>(n.Mark().line), m_lineStarts.size() - 1);
        size_t r = std::min(m_lineStarts[line] + static_cast<size_t>(n.Mark().column), m_text.size());
        const size_t end = m_text.size();
        // A tag or an anchor may precede the scalar; the mark points at them.
        while (r < end && (m_text[r] == '!' || m_text[r] == '&')) {
            while (r < end && !isSpace(m_text[r]))
                ++r;
            while (r < end && (m_text[r] == ' ' || m_text[r] == '\t'))
                ++r;
        }
        char style = 'p';
        if (r < end && m_text[r] == '"') {
            style = 'd';
            ++r;
        } else if (r < end && m_text[r] == '\'') {
            style = 's';
            ++r;
        } else if (r < end && (m_text[r] == '|' || m_text[r] == '>')) {
            style = 'b';
            while (r < end && m_text[r] != '\n')
                ++r;
        }
        offset = std::min(offset, value.size());
        size_t v = 0;
        while (v < offset && r < end) {
            char c = m_text[r];
            char want = value[v];
            if (style == 'd' && c == '\\') {
                char e = r + 1 < end ? m_text[r + 1] : '\0';
                if (e == '\n' || e == '\r') {
                    r += 2;  // an escaped line break produces nothing
                    continue;
                }
                size_t len = 2;
                size_t produced = 1;
                if (e == 'x' || e == 'u' || e == 'U') {
                    len = e == 'x' ? 4 : e == 'u' ? 6 : 10;
                    unsigned long cp = 0;
                    for (size_t i = r + 2; i < std::min(r + len, end); ++i)
                        cp = cp * 16 + hexValue(m_text[i]);
                    produced = e == 'x' ? 1 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                } else if (e == 'N' || e == '_') {
                    produced = 2;
                } else if (e == 'L' || e == 'P') {
                    produced = 3;
                }
                r += len;
                v += produced;
                continue;
            }
            if (style == 's' && c == '\'' && r + 1 < end && m_text[r + 1] == '\'') {
                r += 2;
                ++v;
                continue;
            }
            if (c == want) {
                ++r;
                ++v;
                continue;
            }
            bool rawSpace = isSpace(c);
            bool valueSpace = isSpace(want);
            if (rawSpace && valueSpace) {  // a folded line break
                ++r;
                ++v;
            } else if (rawSpace) {  // indentation or trimmed whitespace
                ++r;
            } else if (valueSpace) {
                ++v;
            } else {  // lost track: continue linearly from here
                r += offset - v;
                v = offset;
            }
        }
        if (offset < value.size() && !isSpace(value[offset])) {
            while (r < end && isSpace(m_text[r]))
                ++r;
        }
        return atRaw(std::min(r, end));
    }

private:
    SourceLoc atRaw(size_t r) const
    {
        auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), r);
        size_t line = static_cast<size_t>(it - m_lineStarts.begin()) - 1;
        return SourceLoc{m_file, static_cast<int>(line + 1), static_cast<int>(r - m_lineStarts[line] + 1)};
    }

    const std::string& m_text;
    std::string m_file;
    std::vector<size_t> m_lineStarts;
};

/// Collects diagnostics while a kernel file is read.
struct Context {
    const SourceMap& map;
    std::vector<Diagnostic> errors;

    void error(const SourceLoc& loc, std::string message)
    {
        errors.push_back(Diagnostic{Severity::Error, loc, std::move(message)});
    }
};

// ---------------------------------------------------------------------------------------------
// Checked integer arithmetic: sizes and indices come from user input.

bool addOk(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }
bool subOk(int64_t a, int64_t b, int64_t& out) { return !__builtin_sub_overflow(a, b, &out); }
bool mulOk(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }


/// Parses a whole scalar as a decimal integer with an optional sign.
bool parseInt(const std::string& s, int64_t& out)
{
    if (s.empty())
        return false;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (*b == '+')
        ++b;
    auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e && b != e;
}

// ---------------------------------------------------------------------------------------------
// Expression text: tokens and a small syntax tree that remembers offsets for messages.

struct Token {
    enum class Kind { Ident, Int, Float, Op, End };
    Kind kind = Kind::End;
    std::string text;
    size_t pos = 0;
    int64_t intValue = 0;
    double floatValue = 0;
};

struct SyntaxError {
    size_t pos = 0;
    std::string message;
};

std::string describe(const Token& t)
{
    switch (t.kind) {
    case Token::Kind::End: return "end of expression";
    case Token::Kind::Ident: return "name '" + t.text + "'";
    case Token::Kind::Int:
    case Token::Kind::Float: return "number '" + t.text + "'";
    case Token::Kind::Op: return "'" + t.text + "'";
    }
    return "'" + t.text + "'";
}

constexpr size_t kMaxTokens = 2000;

bool tokenize(const std::string& s, std::vector<Token>& out, SyntaxError& err)
{
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i];
        if (isSpace(c)) {
            ++i;
            continue;
        }
        Token t;
        t.pos = i;
        if (isIdentStart(c)) {
            size_t j = i;
            while (j < s.size() && isIdentChar(s[j]))
                ++j;
            t.kind = Token::Kind::Ident;
            t.text = s.substr(i, j - i);
            i = j;
        } else if (isDigit(c)
                   || (c == '.' && i + 1 < s.size() && isDigit(s[i + 1]))) {
            size_t j = i;
            bool isFloatLit = false;
            while (j < s.size() && isDigit(s[j]))
                ++j;
            if (j < s.size() && s[j] == '.') {
                isFloatLit = true;
                ++j;
                while (j < s.size() && isDigit(s[j]))
                    ++j;
            }
            if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
                size_t k = j + 1;
                if (k < s.size() && (s[k] == '+' || s[k] == '-'))
                    ++k;
                if (k < s.size() && isDigit(s[k])) {
                    isFloatLit = true;
                    j = k;
                    while (j < s.size() && isDigit(s[j]))
                        ++j;
                }
            }
            t.text = s.substr(i, j - i);
            if (j < s.size() && isIdentChar(s[j])) {
                err = {i, "malformed number '" + s.substr(i, j - i + 1) + "'"};
                return false;
            }
            if (isFloatLit) {
                t.kind = Token::Kind::Float;
                auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.floatValue);
                if (r.ec != std::errc() || !std::isfinite(t.floatValue)) {
                    err = {i, "number '" + t.text + "' is out of range"};
                    return false;
                }
            } else {
                t.kind = Token::Kind::Int;
                auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.intValue);
                if (r.ec != std::errc()) {
                    err = {i, "integer '" + t.text + "' is too large"};
                    return false;
                }
            }
            i = j;
        } else if (c == '+' && i + 1 < s.size() && s[i + 1] == '=') {
            t.kind = Token::Kind::Op;
            t.text = "+=";
            i += 2;
        } else if (std::string("+-*/()[],=").find(c) != std::string::npos) {
            t.kind = Token::Kind::Op;
            t.text = std::string(1, c);
            ++i;
        } else {
            std::string shown = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f
                                    ? std::string(1, c)
                                    : "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15])
                                          + std::string(1, "0123456789abcdef"[c & 15]);
            err = {i, "unexpected character '" + shown + "'"};
            return false;
        }
        out.push_back(std::move(t));
        // Trees of this size would only come from generated or corrupted text; the limit keeps
        // the recursive passes over them shallow.
        if (out.size() > kMaxTokens) {
            err = {out.back().pos, "expression is too long (more than " + std::to_string(kMaxTokens) + " tokens)"};
            return false;
        }
    }
    Token end;
    end.kind = Token::Kind::End;
    end.pos = s.size();
    out.push_back(end);
    return true;
}

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
    enum class Kind { Int, Float, Ident, Load, Add, Sub, Mul, Div, Neg };
    Kind kind = Kind::Int;
    int64_t intValue = 0;
    double floatValue = 0;
    std::string name;        ///< Ident, Load (tensor name)
    size_t pos = 0;          ///< the token: name, literal or operator
    size_t start = 0;        ///< first character of the whole subexpression
    std::vector<NodePtr> kids;
    std::vector<size_t> indexEnds;  ///< Load: end of each index expression (its ',' or ']')
};

/// Recursive descent over one expression string. Stage mode reads `T[...]` loads and rejects
/// division; shape mode allows division and rejects loads.
class Parser {
public:
    Parser(std::vector<Token> tokens, bool stageMode) : m_tokens(std::move(tokens)), m_stageMode(stageMode) {}

    std::optional<SyntaxError> error;

    /// expr, then the end of text.
    NodePtr parseWhole()
    {
        NodePtr e = expr();
        if (e && !atEnd())
            fail(peek().pos, "unexpected " + describe(peek()) + " after the expression");
        return error ? nullptr : std::move(e);
    }

    /// `T[axes] (= | +=) expr`. The left-hand side comes back as a Load node.
    bool parseStatement(NodePtr& lhs, bool& accumulate, size_t& opPos, NodePtr& rhs)
    {
        const Token& first = peek();
        if (first.kind != Token::Kind::Ident) {
            fail(first.pos, first.kind == Token::Kind::End
                                ? std::string("empty expression; expected e.g. 'C[i, j] += A[i, k] * B[k, j]'")
                                : "expected the output tensor, e.g. 'C[i, j] = ...', but found " + describe(first));
            return false;
        }
        Token name = next();
        if (!isOp(peek(), "[")) {
            fail(peek().pos, "expected '[' after '" + name.text + "': the left-hand side is an indexed tensor");
            return false;
        }
        lhs = load(name);
        if (!lhs)
            return false;
        const Token& op = peek();
        if (!isOp(op, "=") && !isOp(op, "+=")) {
            fail(op.pos, "expected '=' or '+=' after the left-hand side, found " + describe(op));
            return false;
        }
        accumulate = op.text == "+=";
        opPos = op.pos;
        next();
        rhs = parseWhole();
        return rhs != nullptr;
    }

private:
    static bool isOp(const Token& t, const char* op) { return t.kind == Token::Kind::Op && t.text == op; }
    const Token& peek() const { return m_tokens[std::min(m_i, m_tokens.size() - 1)]; }
    Token next()
    {
        Token t = peek();
        if (m_i < m_tokens.size() - 1)
            ++m_i;
        return t;
    }
    bool atEnd() const { return peek().kind == Token::Kind::End; }

    void fail(size_t pos, std::string message)
    {
        if (!error)
            error = SyntaxError{pos, std::move(message)};
    }

    static NodePtr binary(Node::Kind k, size_t pos, NodePtr a, NodePtr b)
    {
        auto n = std::make_unique<Node>();
        n->kind = k;
        n->pos = pos;
        n->start = a->start;
        n->kids.push_back(std::move(a));
        n->kids.push_back(std::move(b));
        return n;
    }

    NodePtr expr()
    {
        NodePtr left = term();
        while (left && (isOp(peek(), "+") || isOp(peek(), "-"))) {
            Token op = next();
            NodePtr right = term();
            if (!right)
                return nullptr;
            Node::Kind k = op.text == "+" ? Node::Kind::Add : Node::Kind::Sub;
            left = binary(k, op.pos, std::move(left), std::move(right));
        }
        return left;
    }

    NodePtr term()
    {
        NodePtr left = unary();
        while (left && (isOp(peek(), "*") || isOp(peek(), "/"))) {
            Token op = next();
            if (op.text == "/" && m_stageMode) {
                fail(op.pos, "division is not supported in stage expressions");
                return nullptr;
            }
            NodePtr right = unary();
            if (!right)
                return nullptr;
            Node::Kind k = op.text == "*" ? Node::Kind::Mul : Node::Kind::Div;
            left = binary(k, op.pos, std::move(left), std::move(right));
        }
        return left;
    }

    NodePtr unary()
    {
        if (isOp(peek(), "-")) {
            Token op = next();
            if (++m_depth > kMaxDepth) {
                fail(op.pos, "expression is nested too deeply");
                return nullptr;
            }
            NodePtr a = unary();
            --m_depth;
            if (!a)
                return nullptr;
            auto n = std::make_unique<Node>();
            n->kind = Node::Kind::Neg;
            n->pos = op.pos;
            n->start = op.pos;
            n->kids.push_back(std::move(a));
            return n;
        }
        return primary();
    }

    NodePtr primary()
    {
        const Token& t = peek();
        if (t.kind == Token::Kind::Int || t.kind == Token::Kind::Float) {
            Token lit = next();
            auto n = std::make_unique<Node>();
            n->kind = lit.kind == Token::Kind::Int ? Node::Kind::Int : Node::Kind::Float;
            n->intValue = lit.intValue;
            n->floatValue = lit.floatValue;
            n->name = lit.text;
            n->pos = n->start = lit.pos;
            return n;
        }
        if (t.kind == Token::Kind::Ident) {
            Token name = next();
            if (isOp(peek(), "[")) {
                if (!m_stageMode) {
                    fail(peek().pos, "unexpected '[': tensors cannot be read here");
                    return nullptr;
                }
                return load(name);
            }
            auto n = std::make_unique<Node>();
            n->kind = Node::Kind::Ident;
            n->name = name.text;
            n->pos = n->start = name.pos;
            return n;
        }
        if (isOp(t, "(")) {
            Token open = next();
            if (++m_depth > kMaxDepth) {
                fail(open.pos, "expression is nested too deeply");
                return nullptr;
            }
            NodePtr e = expr();
            --m_depth;
            if (!e)
                return nullptr;
            if (!isOp(peek(), ")")) {
                fail(peek().pos, "expected ')' to match '(', found " + describe(peek()));
                return nullptr;
            }
            next();
            e->start = open.pos;
            return e;
        }
        fail(t.pos, "expected a number, a name or '(', found " + describe(t));
        return nullptr;
    }

    /// `name[ e, e, ... ]` with the name already consumed and '[' next.
    NodePtr load(const Token& name)
    {
        Token open = next();
        if (++m_depth > kMaxDepth) {
            fail(open.pos, "expression is nested too deeply");
            return nullptr;
        }
        auto n = std::make_unique<Node>();
        n->kind = Node::Kind::Load;
        n->name = name.text;
        n->pos = n->start = name.pos;
        if (isOp(peek(), "]")) {
            fail(peek().pos, "'" + name.text + "[]' has no index");
            return nullptr;
        }
        while (true) {
            NodePtr e = expr();
            if (!e)
                return nullptr;
            n->kids.push_back(std::move(e));
            n->indexEnds.push_back(peek().pos);
            if (isOp(peek(), ",")) {
                next();
                continue;
            }
            if (isOp(peek(), "]")) {
                next();
                break;
            }
            fail(peek().pos, "expected ',' or ']' in the index of '" + name.text + "', found " + describe(peek()));
            return nullptr;
        }
        --m_depth;
        return n;
    }

    static constexpr int kMaxDepth = 200;
    std::vector<Token> m_tokens;
    size_t m_i = 0;
    bool m_stageMode = true;
    int m_depth = 0;
};

// ---------------------------------------------------------------------------------------------
// YAML helpers

/// Keys of a mapping in order, rejecting duplicates and non-scalar keys.
struct Entry {
    std::string key;
    YAML::Node keyNode;
    YAML::Node value;
};

bool mapEntries(Context& ctx, const YAML::Node& map, const std::string& what, std::vector<Entry>& out)
{
    bool ok = true;
    std::map<std::string, SourceLoc> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
        YAML::Node k = it->first;
        YAML::Node v = it->second;
        if (!k.IsScalar()) {
            ctx.error(ctx.map.of(k), "expected a name as key in " + what);
            ok = false;
            continue;
        }
        auto [prev, fresh] = seen.emplace(k.Scalar(), ctx.map.of(k));
        if (!fresh) {
            ctx.error(ctx.map.of(k), "duplicate key '" + k.Scalar() + "' in " + what + " (first given on line "
                                         + std::to_string(prev->second.line) + ")");
            ok = false;
            continue;
        }
        out.push_back(Entry{k.Scalar(), k, v});
    }
    return ok;
}

/// The value of a key, or an error at the key when it is empty.
bool requireValue(Context& ctx, const Entry& e, const std::string& what)
{
    if (!e.value.IsDefined() || e.value.IsNull()) {
        ctx.error(ctx.map.of(e.keyNode), "'" + e.key + "' needs a value" + (what.empty() ? "" : " (" + what + ")"));
        return false;
    }
    return true;
}

std::string joinNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

bool checkKeys(Context& ctx, const std::vector<Entry>& entries, const std::vector<std::string>& allowed,
               const std::string& where)
{
    bool ok = true;
    for (const Entry& e : entries) {
        if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
            ctx.error(ctx.map.of(e.keyNode),
                      "unknown key '" + e.key + "' in " + where + " (expected one of: " + joinNames(allowed) + ")");
            ok = false;
        }
    }
    return ok;
}

const Entry* findEntry(const std::vector<Entry>& entries, const std::string& key)
{
    for (const Entry& e : entries) {
        if (e.key == key)
            return &e;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Size expressions: shapes and explicit axis extents.

bool evalSize(Context& ctx, const YAML::Node& node, const std::map<std::string, int64_t>& params,
              int64_t& out)
{
    if (!node.IsScalar()) {
        ctx.error(ctx.map.of(node), "expected a size: an integer, a parameter or arithmetic of parameters");
        return false;
    }
    const std::string& text = node.Scalar();
    std::vector<Token> tokens;
    SyntaxError err;
    if (!tokenize(text, tokens, err)) {
        ctx.error(ctx.map.inScalar(node, err.pos), err.message);
        return false;
    }
    Parser parser(std::move(tokens), false);
    NodePtr root = parser.parseWhole();
    if (!root) {
        ctx.error(ctx.map.inScalar(node, parser.error ? parser.error->pos : 0),
                  parser.error ? parser.error->message : "invalid size");
        return false;
    }
    // Iterative evaluation is not needed: the parser bounds the depth.
    struct Eval {
        Context& ctx;
        const YAML::Node& node;
        const std::map<std::string, int64_t>& params;

        bool run(const Node& n, int64_t& v)
        {
            switch (n.kind) {
            case Node::Kind::Int: v = n.intValue; return true;
            case Node::Kind::Float:
                return fail(n.pos, "size '" + n.name + "' must be an integer");
            case Node::Kind::Ident: {
                auto it = params.find(n.name);
                if (it == params.end())
                    return fail(n.pos, "unknown parameter '" + n.name + "'");
                v = it->second;
                return true;
            }
            case Node::Kind::Load: return fail(n.pos, "tensors cannot be read in a size");
            case Node::Kind::Neg: {
                int64_t a;
                if (!run(*n.kids[0], a))
                    return false;
                if (!subOk(0, a, v))
                    return fail(n.pos, "size overflows");
                return true;
            }
            case Node::Kind::Add:
            case Node::Kind::Sub:
            case Node::Kind::Mul:
            case Node::Kind::Div: {
                int64_t a, b;
                if (!run(*n.kids[0], a) || !run(*n.kids[1], b))
                    return false;
                bool ok = true;
                if (n.kind == Node::Kind::Add)
                    ok = addOk(a, b, v);
                else if (n.kind == Node::Kind::Sub)
                    ok = subOk(a, b, v);
                else if (n.kind == Node::Kind::Mul)
                    ok = mulOk(a, b, v);
                else if (b == 0)
                    return fail(n.pos, "division by zero");
                else if (a == std::numeric_limits<int64_t>::min() && b == -1)
                    ok = false;
                else
                    v = floorDiv(a, b);  // rounding down: "(H - 3)/2 + 1" is 0 (not 1) when H = 2
                if (!ok)
                    return fail(n.pos, "size overflows");
                return true;
            }
            }
            return false;
        }

        bool fail(size_t pos, std::string message)
        {
            ctx.error(ctx.map.inScalar(node, pos), std::move(message));
            return false;
        }
    };
    Eval ev{ctx, node, params};
    return ev.run(*root, out);
}

// ---------------------------------------------------------------------------------------------
// Stages

/// Where a load sits in the expression text, for messages about it.
struct LoadSite {
    Access access;
    size_t namePos = 0;
    std::vector<size_t> indexPos;    ///< start of each index expression
    std::vector<std::string> indexText;  ///< each index expression as written
};

/// What the parser learned about a stage beyond the IR, for checks across stages.
struct StageInfo {
    YAML::Node computeNode;
    size_t lhsPos = 0;
    std::vector<LoadSite> loads;
    SourceLoc requantLoc;
    std::vector<std::pair<int, SourceLoc>> requantTensors;  ///< tensors read by the epilogue
};

/// Affine form under construction: terms in order of first appearance.
struct AffineBuild {
    std::vector<std::pair<int, int64_t>> terms;
    int64_t constant = 0;
    bool hasTerms() const
    {
        return std::any_of(terms.begin(), terms.end(), [](const auto& t) { return t.second != 0; });
    }
};

class StageBuilder {
public:
    StageBuilder(Context& ctx, const Kernel& kernel, int number, const YAML::Node& stageNode)
        : m_ctx(ctx), m_kernel(kernel), m_number(number), m_node(stageNode)
    {
    }

    bool build(Stage& st, StageInfo& info);

private:
    bool failAt(size_t pos, std::string message)
    {
        m_ctx.error(m_ctx.map.inScalar(m_compute, pos), std::move(message));
        return false;
    }
    /// Why an axis cannot be called `name` in the exported C, where it names a loop counter;
    /// "" when it can.
    std::string axisNameProblem(const std::string& name) const
    {
        std::string why = cNameProblem(name, CNameUse::Axis);
        if (why.empty())
            why = derivedNameClash(name, m_kernel.name);
        return why.empty() ? why : "axis name '" + name + "' " + why + "; the exported C names a loop counter after it";
    }
    bool failNode(const YAML::Node& n, std::string message)
    {
        m_ctx.error(m_ctx.map.of(n), std::move(message));
        return false;
    }

    bool buildLhs(const Node& lhs);
    ExprPtr convert(const Node& n);
    bool affine(const Node& n, AffineBuild& out);
    bool inferExtents(const std::vector<Entry>* axesEntries);
    bool checkBounds();
    bool buildRequant(const Entry& e);
    bool buildChannel(const YAML::Node& n, Requantize& q);
    bool quantParam(const Entry& e, QuantParam& out, int64_t lo, int64_t hi, std::vector<const Entry*>& perChannel);

    Context& m_ctx;
    const Kernel& m_kernel;
    int m_number;
    YAML::Node m_node;
    YAML::Node m_compute;
    Stage* m_stage = nullptr;
    StageInfo* m_info = nullptr;
    bool m_floatStage = false;
    std::vector<size_t> m_axisPos;  ///< first appearance of each axis in the text
};

bool StageBuilder::build(Stage& st, StageInfo& info)
{
    m_stage = &st;
    m_info = &info;
    const std::string where = "stage " + std::to_string(m_number);
    if (!m_node.IsMap())
        return failNode(m_node, where + " must be a mapping with a 'compute' expression");
    std::vector<Entry> entries;
    if (!mapEntries(m_ctx, m_node, where, entries))
        return false;
    if (!checkKeys(m_ctx, entries, {"compute", "padding", "requantize", "axes"}, where))
        return false;
    const Entry* compute = findEntry(entries, "compute");
    if (!compute)
        return failNode(m_node, where + " has no 'compute' expression");
    if (!requireValue(m_ctx, *compute, "an expression such as 'C[i, j] += A[i, k] * B[k, j]'"))
        return false;
    if (!compute->value.IsScalar())
        return failNode(compute->value, "'compute' must be a string such as 'C[i, j] += A[i, k] * B[k, j]'");
    m_compute = compute->value;
    st.source = m_compute.Scalar();
    st.loc = m_ctx.map.of(m_compute);
    info.computeNode = m_compute;

    if (const Entry* pad = findEntry(entries, "padding")) {
        if (!requireValue(m_ctx, *pad, "'zero' or 'none'"))
            return false;
        if (!pad->value.IsScalar() || (pad->value.Scalar() != "zero" && pad->value.Scalar() != "none"))
            return failNode(pad->value, "padding must be 'zero' or 'none'");
        st.padZero = pad->value.Scalar() == "zero";
    }

    std::vector<Token> tokens;
    SyntaxError err;
    if (!tokenize(st.source, tokens, err))
        return failAt(err.pos, err.message);
    Parser parser(std::move(tokens), true);
    NodePtr lhs, rhs;
    size_t opPos = 0;
    if (!parser.parseStatement(lhs, st.accumulate, opPos, rhs))
        return failAt(parser.error ? parser.error->pos : 0,
                      parser.error ? parser.error->message : std::string("invalid expression"));
    if (!buildLhs(*lhs))
        return false;
    st.value = convert(*rhs);
    if (!st.value)
        return false;
    if (st.accumulate && st.spatialCount() == static_cast<int>(st.axes.size()))
        return failAt(opPos, "'+=' needs a reduction axis (an axis on the right-hand side that is not on the "
                             "left-hand side); use '=' for an elementwise stage");
    if (st.padZero && !st.accumulate)
        return failNode(findEntry(entries, "padding")->value,
                        "padding: zero applies to '+=' stages only (it skips out-of-bounds terms of a sum)");

    std::vector<Entry> axesEntries;
    const Entry* axes = findEntry(entries, "axes");
    if (axes) {
        if (!requireValue(m_ctx, *axes, "a mapping of axis extents, e.g. {r: 3}"))
            return false;
        if (!axes->value.IsMap())
            return failNode(axes->value, "'axes' must be a mapping of axis extents, e.g. {r: 3}");
        if (!mapEntries(m_ctx, axes->value, "'axes'", axesEntries))
            return false;
    }
    if (!inferExtents(axes ? &axesEntries : nullptr))
        return false;
    // The cost model counts every statement execution exactly in 64 bits, and each stage point
    // may move several elements across several levels: past 2^48 points (2.8e14 MACs, minutes
    // even on a TMAC/s accelerator) its counts could overflow.
    int64_t points = 1;
    for (const Axis& a : st.axes)
        if (!mulOk(points, a.extent, points) || points > kMaxStagePoints) {
            const std::string extents = [&] {
                std::string out;
                for (const Axis& b : st.axes)
                    out += (out.empty() ? "" : " x ") + std::to_string(b.extent);
                return out;
            }();
            return failAt(m_info->lhsPos, "stage " + st.name + " iterates over " + extents + " points, more than 2^48 ("
                                              + std::to_string(kMaxStagePoints) + "); give its kernel smaller sizes");
        }
    if (!checkBounds())
        return false;

    if (const Entry* rq = findEntry(entries, "requantize")) {
        if (!buildRequant(*rq))
            return false;
    }
    return true;
}

bool StageBuilder::buildLhs(const Node& lhs)
{
    Stage& st = *m_stage;
    int t = m_kernel.findTensor(lhs.name);
    if (t < 0)
        return failAt(lhs.pos, "unknown tensor '" + lhs.name + "'");
    const Tensor& out = m_kernel.tensors[t];
    st.name = out.name;
    st.output.tensor = t;
    m_info->lhsPos = lhs.pos;
    m_floatStage = isFloat(out.dtype);
    if (lhs.kids.size() != out.shape.size())
        return failAt(lhs.pos, "'" + out.name + "' has " + std::to_string(out.shape.size()) + " dimension"
                                   + (out.shape.size() == 1 ? "" : "s") + " but the left-hand side gives "
                                   + std::to_string(lhs.kids.size()) + " index" + (lhs.kids.size() == 1 ? "" : "es"));
    for (size_t d = 0; d < lhs.kids.size(); ++d) {
        const Node& ix = *lhs.kids[d];
        if (ix.kind != Node::Kind::Ident)
            return failAt(ix.start, "the left-hand side must index '" + out.name
                                        + "' with plain axis names, e.g. " + out.name + "[i, j]");
        if (m_kernel.params.count(ix.name))
            return failAt(ix.pos, "'" + ix.name + "' is a parameter; the left-hand side needs axis names");
        if (m_kernel.findTensor(ix.name) >= 0)
            return failAt(ix.pos, "'" + ix.name + "' is a tensor; the left-hand side needs axis names");
        if (st.findAxis(ix.name) >= 0)
            return failAt(ix.pos, "axis '" + ix.name + "' appears twice on the left-hand side");
        if (const std::string why = axisNameProblem(ix.name); !why.empty())
            return failAt(ix.pos, why);
        st.axes.push_back(Axis{ix.name, out.shape[d], false});
        m_axisPos.push_back(ix.pos);
        AffineExpr a;
        a.terms.push_back({static_cast<int>(d), 1});
        st.output.index.push_back(a);
    }
    return true;
}

ExprPtr StageBuilder::convert(const Node& n)
{
    Stage& st = *m_stage;
    switch (n.kind) {
    case Node::Kind::Int: return Expr::makeConst(n.intValue);
    case Node::Kind::Float:
        if (!m_floatStage) {
            failAt(n.pos, "float literal '" + n.name + "' in an integer stage (output '" + st.name + "' is "
                              + dtypeName(m_kernel.tensors[st.output.tensor].dtype) + ")");
            return nullptr;
        }
        return Expr::makeFloatConst(n.floatValue);
    case Node::Kind::Ident: {
        auto p = m_kernel.params.find(n.name);
        if (p != m_kernel.params.end())
            return Expr::makeConst(p->second);
        if (m_kernel.findTensor(n.name) >= 0)
            failAt(n.pos, "tensor '" + n.name + "' needs an index, e.g. " + n.name + "[i]");
        else if (st.findAxis(n.name) >= 0)
            failAt(n.pos, "axis '" + n.name + "' can only appear inside a tensor index");
        else
            failAt(n.pos, "unknown name '" + n.name + "': not a tensor or parameter (axes appear only inside "
                                                      "tensor indices)");
        return nullptr;
    }
    case Node::Kind::Load: {
        int t = m_kernel.findTensor(n.name);
        if (t < 0) {
            failAt(n.pos, "unknown tensor '" + n.name + "'");
            return nullptr;
        }
        const Tensor& tensor = m_kernel.tensors[t];
        if (t == st.output.tensor) {
            failAt(n.pos, "stage " + std::to_string(m_number) + " reads its own output '" + n.name + "'");
            return nullptr;
        }
        if (isFloat(tensor.dtype) != m_floatStage) {
            const Tensor& out = m_kernel.tensors[st.output.tensor];
            failAt(n.pos, "stage mixes float32 and integer tensors: '" + tensor.name + "' is "
                              + dtypeName(tensor.dtype) + " but the output '" + out.name + "' is "
                              + dtypeName(out.dtype));
            return nullptr;
        }
        if (n.kids.size() != tensor.shape.size()) {
            failAt(n.pos, "'" + tensor.name + "' has " + std::to_string(tensor.shape.size()) + " dimension"
                              + (tensor.shape.size() == 1 ? "" : "s") + " but is indexed with "
                              + std::to_string(n.kids.size()));
            return nullptr;
        }
        LoadSite site;
        site.access.tensor = t;
        site.namePos = n.pos;
        for (const NodePtr& ix : n.kids) {
            AffineBuild ab;
            if (!affine(*ix, ab))
                return nullptr;
            AffineExpr e;
            for (const auto& [axis, coeff] : ab.terms) {
                if (coeff != 0)
                    e.terms.push_back({axis, coeff});
            }
            e.constant = ab.constant;
            site.access.index.push_back(std::move(e));
            site.indexPos.push_back(ix->start);
        }
        for (size_t d = 0; d < n.kids.size(); ++d) {
            size_t b = n.kids[d]->start;
            size_t e = d < n.indexEnds.size() ? n.indexEnds[d] : b;
            std::string text = e > b ? st.source.substr(b, e - b) : std::string();
            while (!text.empty() && isSpace(text.back()))
                text.pop_back();
            site.indexText.push_back(text);
        }
        m_info->loads.push_back(site);
        return Expr::makeLoad(site.access);
    }
    case Node::Kind::Neg: {
        ExprPtr a = convert(*n.kids[0]);
        return a ? Expr::makeNeg(std::move(a)) : nullptr;
    }
    case Node::Kind::Add:
    case Node::Kind::Sub:
    case Node::Kind::Mul: {
        ExprPtr a = convert(*n.kids[0]);
        if (!a)
            return nullptr;
        ExprPtr b = convert(*n.kids[1]);
        if (!b)
            return nullptr;
        Expr::Kind k = n.kind == Node::Kind::Add ? Expr::Kind::Add : n.kind == Node::Kind::Sub ? Expr::Kind::Sub
                                                                                                 : Expr::Kind::Mul;
        return Expr::makeBinary(k, std::move(a), std::move(b));
    }
    case Node::Kind::Div: failAt(n.pos, "division is not supported in stage expressions"); return nullptr;
    }
    return nullptr;
}

bool StageBuilder::affine(const Node& n, AffineBuild& out)
{
    Stage& st = *m_stage;
    switch (n.kind) {
    case Node::Kind::Int: out.constant = n.intValue; return true;
    case Node::Kind::Float: return failAt(n.pos, "index '" + n.name + "' must be an integer");
    case Node::Kind::Load: return failAt(n.pos, "an index cannot read a tensor ('" + n.name + "')");
    case Node::Kind::Div: return failAt(n.pos, "division is not supported in stage expressions");
    case Node::Kind::Ident: {
        auto p = m_kernel.params.find(n.name);
        if (p != m_kernel.params.end()) {
            out.constant = p->second;
            return true;
        }
        if (m_kernel.findTensor(n.name) >= 0)
            return failAt(n.pos, "tensor '" + n.name + "' cannot be used as an index");
        int axis = st.findAxis(n.name);
        if (axis < 0) {
            if (!st.accumulate)
                return failAt(n.pos, "axis '" + n.name + "' is not on the left-hand side; only a '+=' stage may "
                                                         "reduce over it");
            if (const std::string why = axisNameProblem(n.name); !why.empty())
                return failAt(n.pos, why);
            st.axes.push_back(Axis{n.name, 0, true});
            m_axisPos.push_back(n.pos);
            axis = static_cast<int>(st.axes.size()) - 1;
        }
        out.terms.push_back({axis, 1});
        return true;
    }
    case Node::Kind::Neg: {
        if (!affine(*n.kids[0], out))
            return false;
        for (auto& t : out.terms) {
            if (!subOk(0, t.second, t.second))
                return failAt(n.pos, "index overflows");
        }
        if (!subOk(0, out.constant, out.constant))
            return failAt(n.pos, "index overflows");
        return true;
    }
    case Node::Kind::Add:
    case Node::Kind::Sub: {
        AffineBuild a, b;
        if (!affine(*n.kids[0], a) || !affine(*n.kids[1], b))
            return false;
        bool sub = n.kind == Node::Kind::Sub;
        for (const auto& term : b.terms) {
            // Not a structured binding: clang before 16 cannot capture one in a lambda.
            const int axis = term.first;
            const int64_t coeff = term.second;
            auto it = std::find_if(a.terms.begin(), a.terms.end(), [&](const auto& t) { return t.first == axis; });
            if (it == a.terms.end()) {
                a.terms.push_back({axis, 0});
                it = a.terms.end() - 1;
            }
            if (!(sub ? subOk(it->second, coeff, it->second) : addOk(it->second, coeff, it->second)))
                return failAt(n.pos, "index overflows");
        }
        if (!(sub ? subOk(a.constant, b.constant, a.constant) : addOk(a.constant, b.constant, a.constant)))
            return failAt(n.pos, "index overflows");
        out = std::move(a);
        return true;
    }
    case Node::Kind::Mul: {
        AffineBuild a, b;
        if (!affine(*n.kids[0], a) || !affine(*n.kids[1], b))
            return false;
        if (a.hasTerms() && b.hasTerms())
            return failAt(n.pos, "index is not affine: it multiplies two axis expressions (coefficients must be "
                                 "constant integers)");
        AffineBuild& var = a.hasTerms() ? a : b;
        int64_t k = a.hasTerms() ? b.constant : a.constant;
        for (auto& t : var.terms) {
            if (!mulOk(t.second, k, t.second))
                return failAt(n.pos, "index overflows");
        }
        if (!mulOk(var.constant, k, var.constant))
            return failAt(n.pos, "index overflows");
        out = std::move(var);
        return true;
    }
    }
    return false;
}

/// `channel:` of a requantize: an affine expression of the stage's spatial axes that is the
/// row-major flat index of the output's last dimensions (the output channel of TFLite's NHWC
/// layouts, `k`; or `c*M + m` when the output is written [N, H, W, C, M], which is TFLite's
/// [N, H, W, C*M] for a depthwise convolution with channel multiplier M). Anything else would
/// pick some other element's multipliers.
bool StageBuilder::buildChannel(const YAML::Node& n, Requantize& q)
{
    Stage& st = *m_stage;
    const std::string text = n.IsScalar() ? n.Scalar() : std::string();
    if (text.empty())
        return failNode(n, "'channel' must be a spatial axis name or an affine expression of them, e.g. k or c*M + m");
    std::vector<Token> tokens;
    SyntaxError err;
    if (!tokenize(text, tokens, err)) {
        m_ctx.error(m_ctx.map.inScalar(n, err.pos), err.message);
        return false;
    }
    Parser parser(std::move(tokens), true);
    NodePtr e = parser.parseWhole();
    if (!e) {
        m_ctx.error(m_ctx.map.inScalar(n, parser.error ? parser.error->pos : 0),
                    parser.error ? parser.error->message : std::string("invalid expression"));
        return false;
    }
    // affine() reports at positions of m_compute and adds unknown names as reduction axes:
    // point it at this scalar and undo any axis it adds.
    const YAML::Node compute = m_compute;
    const size_t axes = st.axes.size();
    m_compute = n;
    AffineBuild ab;
    const bool ok = affine(*e, ab);
    m_compute = compute;
    if (st.axes.size() != axes) {
        const std::string name = st.axes[axes].name;
        st.axes.resize(axes);
        m_axisPos.resize(axes);
        return failNode(n, "'channel' uses '" + name + "', which is not an axis of the left-hand side of stage " + std::to_string(m_number));
    }
    if (!ok)
        return false;
    AffineExpr c;
    for (const auto& [axis, coeff] : ab.terms) {
        if (coeff == 0)
            continue;
        if (st.axes[axis].reduction)
            return failNode(n, "'channel' must use axes of the left-hand side of stage " + std::to_string(m_number) + "; '"
                                   + st.axes[axis].name + "' is a reduction axis");
        c.terms.push_back({axis, coeff});
    }
    c.constant = ab.constant;
    // The output's last dimensions, innermost first, as long as the expression has their axes
    // with the row-major strides.
    const std::vector<int64_t>& shape = m_kernel.tensors[st.output.tensor].shape;
    int64_t stride = 1;
    size_t matched = 0;
    for (size_t d = shape.size(); d-- > 0 && matched < c.terms.size();) {
        const int axis = st.output.index[d].terms.empty() ? -1 : st.output.index[d].terms[0].axis;
        if (axis < 0 || c.coeffOf(axis) != stride)
            break;
        ++matched;
        stride *= shape[d];
    }
    if (c.terms.empty() || matched != c.terms.size() || c.constant != 0) {
        // Name the expressions that would be right here: the last axis, and the row-major index
        // of the last two dimensions (c*M + m), the forms TFLite's layouts need.
        const Tensor& out = m_kernel.tensors[st.output.tensor];
        if (shape.empty())
            return failNode(n, "'channel' needs an output with dimensions; " + out.name + " is a scalar");
        std::string dims;
        for (size_t d = 0; d < st.output.index.size(); ++d)
            dims += (d ? ", " : "") + affineToString(st, st.output.index[d]);
        const size_t last = shape.size() - 1;
        std::string choices = affineToString(st, st.output.index[last]);
        if (shape.size() >= 2) {
            AffineExpr two;
            two.terms.push_back({st.output.index[last - 1].terms[0].axis, shape[last]});
            two.terms.push_back({st.output.index[last].terms[0].axis, 1});
            choices += " (its last dimension) or " + affineToString(st, two) + " (its last two)";
        }
        return failNode(n, "'channel: " + text + "' is not the output channel of " + out.name + "[" + dims
                               + "]: it must be the row-major index of the output's last dimensions, here " + choices);
    }
    q.channel = c;
    q.channels = stride;
    return true;
}

bool StageBuilder::inferExtents(const std::vector<Entry>* axesEntries)
{
    Stage& st = *m_stage;
    std::vector<bool> known(st.axes.size(), false);
    for (size_t a = 0; a < st.axes.size(); ++a)
        known[a] = !st.axes[a].reduction;
    if (axesEntries) {
        for (const Entry& e : *axesEntries) {
            int a = st.findAxis(e.key);
            if (a < 0) {
                std::vector<std::string> names;
                for (const Axis& ax : st.axes)
                    names.push_back(ax.name);
                return failNode(e.keyNode, "'" + e.key + "' is not an axis of stage " + std::to_string(m_number)
                                               + " (its axes: " + joinNames(names) + ")");
            }
            if (!requireValue(m_ctx, e, "an extent"))
                return false;
            int64_t extent = 0;
            if (!evalSize(m_ctx, e.value, m_kernel.params, extent))
                return false;
            if (extent < 1)
                return failNode(e.value,
                                "extent of axis '" + e.key + "' must be positive, got " + std::to_string(extent));
            if (!st.axes[a].reduction && extent != st.axes[a].extent)
                return failNode(e.value, "axis '" + e.key + "' is given extent " + std::to_string(extent)
                                             + " but the output '" + st.name + "' gives it "
                                             + std::to_string(st.axes[a].extent));
            st.axes[a].extent = extent;
            known[a] = true;
        }
    }
    for (size_t a = 0; a < st.axes.size(); ++a) {
        if (known[a])
            continue;
        // A reduction axis takes the size of a dimension it indexes alone: W[r, s, c, k] gives r
        // the extent of W's first dimension.
        const LoadSite* from = nullptr;
        size_t fromDim = 0;
        for (const LoadSite& site : m_info->loads) {
            for (size_t d = 0; d < site.access.index.size(); ++d) {
                const AffineExpr& ix = site.access.index[d];
                if (ix.terms.size() != 1 || ix.terms[0].axis != static_cast<int>(a) || ix.terms[0].coeff != 1
                    || ix.constant != 0)
                    continue;
                const Tensor& t = m_kernel.tensors[site.access.tensor];
                if (!from) {
                    from = &site;
                    fromDim = d;
                    st.axes[a].extent = t.shape[d];
                } else if (t.shape[d] != st.axes[a].extent) {
                    const Tensor& ft = m_kernel.tensors[from->access.tensor];
                    return failAt(site.indexPos[d], "reduction axis '" + st.axes[a].name + "' has inconsistent extents: "
                                                        + std::to_string(st.axes[a].extent) + " from '" + ft.name
                                                        + "' dimension " + std::to_string(fromDim) + " but "
                                                        + std::to_string(t.shape[d]) + " from '" + t.name
                                                        + "' dimension " + std::to_string(d));
                }
            }
        }
        if (!from)
            return failAt(m_axisPos[a], "cannot infer the extent of reduction axis '" + st.axes[a].name
                                            + "': it never indexes a dimension alone; give it with 'axes: {"
                                            + st.axes[a].name + ": N}'");
    }
    int64_t points = 1;
    for (const Axis& ax : st.axes) {
        if (!mulOk(points, ax.extent, points))
            return failNode(m_compute, "stage " + std::to_string(m_number) + " has too many iterations");
    }
    return true;
}

bool StageBuilder::checkBounds()
{
    Stage& st = *m_stage;
    for (const LoadSite& site : m_info->loads) {
        const Tensor& t = m_kernel.tensors[site.access.tensor];
        for (size_t d = 0; d < site.access.index.size(); ++d) {
            const AffineExpr& ix = site.access.index[d];
            int64_t lo = ix.constant, hi = ix.constant;
            bool ok = true;
            for (const AffineExpr::Term& term : ix.terms) {
                int64_t span = 0;
                ok = ok && mulOk(term.coeff, st.axes[term.axis].extent - 1, span);
                ok = ok && (span < 0 ? addOk(lo, span, lo) : addOk(hi, span, hi));
            }
            std::string what = "index '" + site.indexText[d] + "' of '" + t.name + "' dimension "
                               + std::to_string(d);
            std::string range = "[0, " + std::to_string(t.shape[d]) + ")";
            if (!ok)
                return failAt(site.indexPos[d], what + " overflows");
            if (st.padZero) {
                if (hi < 0 || lo >= t.shape[d])
                    return failAt(site.indexPos[d], what + " is never inside " + range + " (it spans ["
                                                        + std::to_string(lo) + ", " + std::to_string(hi) + "])");
                continue;
            }
            if (lo < 0 || hi >= t.shape[d])
                return failAt(site.indexPos[d], what + " reaches " + std::to_string(lo < 0 ? lo : hi)
                                                    + ", outside " + range
                                                    + " (use 'padding: zero' to skip out-of-bounds terms)");
        }
    }
    return true;
}

bool StageBuilder::quantParam(const Entry& e, QuantParam& out, int64_t lo, int64_t hi,
                              std::vector<const Entry*>& perChannel)
{
    if (!requireValue(m_ctx, e, "an int32 tensor name or an integer"))
        return false;
    if (!e.value.IsScalar())
        return failNode(e.value, "'" + e.key + "' must be a tensor name or an integer");
    const std::string& s = e.value.Scalar();
    int64_t v = 0;
    if (parseInt(s, v)) {
        if (v < lo || v > hi)
            return failNode(e.value, "'" + e.key + "' must be in [" + std::to_string(lo) + ", " + std::to_string(hi)
                                         + "], got " + std::to_string(v));
        out.tensor = -1;
        out.value = v;
        return true;
    }
    int t = m_kernel.findTensor(s);
    if (t < 0)
        return failNode(e.value, "'" + e.key + "' must be a tensor name or an integer; '" + s + "' is neither");
    out.tensor = t;
    perChannel.push_back(&e);
    return true;
}

bool StageBuilder::buildRequant(const Entry& rq)
{
    Stage& st = *m_stage;
    if (!requireValue(m_ctx, rq, "a mapping with multiplier, shift, ..."))
        return false;
    m_info->requantLoc = m_ctx.map.of(rq.keyNode);
    const Tensor& out = m_kernel.tensors[st.output.tensor];
    if (!st.accumulate)
        return failNode(rq.keyNode, "requantize needs a '+=' stage (it is the epilogue of a sum)");
    if (out.dtype != DType::Int8 && out.dtype != DType::Int16)
        return failNode(rq.keyNode, std::string("requantize needs an int8 or int16 output; '") + out.name + "' is "
                                        + dtypeName(out.dtype));
    if (!rq.value.IsMap())
        return failNode(rq.value, "'requantize' must be a mapping with multiplier, shift and optionally bias, "
                                  "channel, output_offset, act_min, act_max");
    std::vector<Entry> entries;
    if (!mapEntries(m_ctx, rq.value, "'requantize'", entries))
        return false;
    if (!checkKeys(m_ctx, entries, {"bias", "multiplier", "shift", "channel", "output_offset", "act_min", "act_max"},
                   "'requantize'"))
        return false;
    Requantize q;
    q.actMin = dtypeMin(out.dtype);
    q.actMax = dtypeMax(out.dtype);
    std::vector<const Entry*> perChannel;
    const Entry* mult = findEntry(entries, "multiplier");
    const Entry* shift = findEntry(entries, "shift");
    if (!mult)
        return failNode(rq.value, "'requantize' needs a 'multiplier' (a tensor name or an integer)");
    if (!shift)
        return failNode(rq.value, "'requantize' needs a 'shift' (a tensor name or an integer)");
    if (!quantParam(*mult, q.multiplier, 0, std::numeric_limits<int32_t>::max(), perChannel))
        return false;
    if (!quantParam(*shift, q.shift, -31, 30, perChannel))
        return false;
    const Entry* bias = findEntry(entries, "bias");
    if (bias && (!bias->value.IsDefined() || bias->value.IsNull()))
        bias = nullptr;  // "bias: null" or "bias: ~" means no bias, like leaving it out
    if (bias) {
        int t = bias->value.IsScalar() ? m_kernel.findTensor(bias->value.Scalar()) : -1;
        if (t < 0)
            return failNode(bias->value, "'bias' must name an int32 tensor");
        q.bias = t;
        perChannel.push_back(bias);
    }
    auto intEntry = [&](const char* key, int64_t& v, int64_t lo, int64_t hi) {
        const Entry* e = findEntry(entries, key);
        if (!e)
            return true;
        if (!requireValue(m_ctx, *e, "an integer"))
            return false;
        if (!e->value.IsScalar() || !parseInt(e->value.Scalar(), v))
            return failNode(e->value, std::string("'") + key + "' must be an integer");
        if (v < lo || v > hi)
            return failNode(e->value, std::string("'") + key + "' must be in [" + std::to_string(lo) + ", "
                                          + std::to_string(hi) + "], got " + std::to_string(v));
        return true;
    };
    if (!intEntry("output_offset", q.outputOffset, std::numeric_limits<int32_t>::min(),
                  std::numeric_limits<int32_t>::max())
        || !intEntry("act_min", q.actMin, dtypeMin(out.dtype), dtypeMax(out.dtype))
        || !intEntry("act_max", q.actMax, dtypeMin(out.dtype), dtypeMax(out.dtype)))
        return false;
    if (q.actMin > q.actMax)
        return failNode(findEntry(entries, "act_min") ? findEntry(entries, "act_min")->value : rq.value,
                        "act_min " + std::to_string(q.actMin) + " is greater than act_max " + std::to_string(q.actMax));
    const Entry* channel = findEntry(entries, "channel");
    if (channel) {
        if (!requireValue(m_ctx, *channel, "a spatial axis name or an affine expression of them, e.g. c*M + m"))
            return false;
        if (!buildChannel(channel->value, q))
            return false;
    }
    for (const Entry* e : perChannel) {
        int t = m_kernel.findTensor(e->value.Scalar());
        const Tensor& pt = m_kernel.tensors[t];
        if (!q.channel)
            return failNode(e->value, "per-channel '" + e->key + "' tensor '" + pt.name
                                          + "' needs 'channel: <axis>' in 'requantize'");
        if (pt.dtype != DType::Int32 || pt.shape.size() != 1)
            return failNode(e->value, "'" + e->key + "' tensor '" + pt.name + "' must be a one-dimensional int32 "
                                          "tensor, not " + dtypeName(pt.dtype) + " with "
                                          + std::to_string(pt.shape.size()) + " dimensions");
        // One entry per output channel, as TFLite's per-channel arrays: a longer array is as
        // wrong as a shorter one (its entries would belong to some other layout).
        if (pt.shape[0] != q.channels)
            return failNode(e->value, "'" + e->key + "' tensor '" + pt.name + "' has " + std::to_string(pt.shape[0])
                                          + " entries but the output has " + std::to_string(q.channels) + " channels (channel '"
                                          + channel->value.Scalar() + "')");
        if (t == st.output.tensor)
            return failNode(e->value, "'" + e->key + "' cannot be the stage's own output");
        m_info->requantTensors.push_back({t, m_ctx.map.of(e->value)});
    }
    st.requant = q;
    return true;
}

// ---------------------------------------------------------------------------------------------
// The whole file

class KernelReader {
public:
    KernelReader(const std::string& text, const std::string& path, const std::map<std::string, int64_t>& overrides)
        : m_text(text), m_map(text, path), m_ctx{m_map, {}}, m_overrides(overrides)
    {
        m_kernel.path = path;
    }

    Result<Kernel> read();

private:
    bool readParams(const Entry* params);
    bool readTensors(const Entry& tensors);
    bool readStages(const Entry& stages);
    bool checkPipeline();

    const std::string& m_text;
    SourceMap m_map;
    Context m_ctx;
    const std::map<std::string, int64_t>& m_overrides;
    Kernel m_kernel;
    std::vector<StageInfo> m_infos;
};

Result<Kernel> KernelReader::read()
{
    // One document: YAML::Load would read the first and drop the rest without a word.
    const YamlDocuments documents = scanYamlDocuments(m_text);
    if (documents.kind == YamlDocuments::Kind::NotUtf8)
        return Diagnostic{Severity::Error, m_map.at(documents.line, documents.column), documents.message};
    if (documents.kind == YamlDocuments::Kind::Second || documents.kind == YamlDocuments::Kind::Stuck)
        return Diagnostic{Severity::Error, m_map.at(documents.line, documents.column),
                          documents.kind == YamlDocuments::Kind::Second ? "a kernel file holds one YAML document; a second one starts here"
                                                                        : "invalid YAML: unexpected " + documents.message};
    YAML::Node root;
    try {
        root = YAML::Load(m_text);
    } catch (const YAML::Exception& e) {
        SourceLoc loc = e.mark.is_null() ? SourceLoc{m_map.file(), 1, 1} : m_map.at(e.mark.line, e.mark.column);
        return Diagnostic{Severity::Error, loc, "invalid YAML: " + printableText(e.msg)};
    }
    const SourceLoc start{m_map.file(), 1, 1};
    if (!root.IsDefined() || root.IsNull())
        return Diagnostic{Severity::Error, start, "empty kernel file: expected name, params, tensors and stages"};
    if (!root.IsMap())
        return Diagnostic{Severity::Error, m_map.of(root, start),
                          "a kernel file must be a mapping with name, params, tensors and stages"};
    // A file that is not a kernel (a schedule may name any file as its kernel) is refused
    // without quoting any of it.
    const std::vector<std::string> kernelKeys = {"name", "description", "params", "tensors", "stages"};
    std::vector<std::string> topKeys;
    for (auto it = root.begin(); it != root.end(); ++it)
        topKeys.push_back(it->first.IsScalar() ? it->first.Scalar() : std::string());
    if (!isFileOfKind(topKeys, kernelKeys))
        return Diagnostic{Severity::Error, start, "not a kernel file: its top-level keys are not those of a kernel (name, params, tensors, stages)"};
    std::vector<Entry> top;
    bool keysOk = mapEntries(m_ctx, root, "the kernel file", top);
    keysOk = checkKeys(m_ctx, top, {"name", "description", "params", "tensors", "stages"}, "the kernel file") && keysOk;
    if (!keysOk)
        return m_ctx.errors;

    const Entry* name = findEntry(top, "name");
    if (!name) {
        m_ctx.error(start, "the kernel file has no 'name'");
    } else if (requireValue(m_ctx, *name, "an identifier")) {
        if (!name->value.IsScalar() || !isIdentifier(name->value.Scalar()))
            m_ctx.error(m_map.of(name->value), "kernel name must be an identifier (letters, digits, '_')");
        else if (const std::string why = cNameProblem(name->value.Scalar(), CNameUse::Kernel); !why.empty())
            m_ctx.error(m_map.of(name->value), "kernel name '" + name->value.Scalar() + "' " + why
                                                   + "; the exported C names its function and files after the kernel");
        else
            m_kernel.name = name->value.Scalar();
    }
    if (const Entry* d = findEntry(top, "description")) {
        if (d->value.IsDefined() && !d->value.IsNull() && !d->value.IsScalar())
            m_ctx.error(m_map.of(d->value), "'description' must be text");
    }
    if (!readParams(findEntry(top, "params")) || !m_ctx.errors.empty())
        return m_ctx.errors;

    const Entry* tensors = findEntry(top, "tensors");
    if (!tensors)
        return Diagnostic{Severity::Error, start, "the kernel file has no 'tensors'"};
    if (!readTensors(*tensors))
        return m_ctx.errors;
    const Entry* stages = findEntry(top, "stages");
    if (!stages)
        return Diagnostic{Severity::Error, start, "the kernel file has no 'stages'"};
    if (!readStages(*stages) || !checkPipeline())
        return m_ctx.errors;
    return std::move(m_kernel);
}

bool KernelReader::readParams(const Entry* params)
{
    if (params && params->value.IsDefined() && !params->value.IsNull()) {
        if (!params->value.IsMap()) {
            m_ctx.error(m_map.of(params->value), "'params' must be a mapping of names to integers, e.g. {M: 64}");
            return false;
        }
        std::vector<Entry> entries;
        bool ok = mapEntries(m_ctx, params->value, "'params'", entries);
        for (const Entry& e : entries) {
            if (!isIdentifier(e.key)) {
                m_ctx.error(m_map.of(e.keyNode), "parameter name '" + e.key + "' is not an identifier");
                ok = false;
                continue;
            }
            if (!requireValue(m_ctx, e, "an integer")) {
                ok = false;
                continue;
            }
            if (e.value.IsScalar() && e.value.Tag() == "!") {   // "16" is a string in YAML (schedules and targets refuse it too)
                m_ctx.error(m_map.of(e.value), "parameter '" + e.key + "' must be an integer, got the quoted string '" + e.value.Scalar() + "'");
                ok = false;
                continue;
            }
            int64_t v = 0;
            if (!e.value.IsScalar() || !parseInt(e.value.Scalar(), v)) {
                m_ctx.error(m_map.of(e.value), "parameter '" + e.key + "' must be an integer");
                ok = false;
                continue;
            }
            m_kernel.params[e.key] = v;
        }
        if (!ok)
            return false;
    }
    for (const auto& [key, value] : m_overrides) {
        auto it = m_kernel.params.find(key);
        if (it == m_kernel.params.end()) {
            std::vector<std::string> names;
            for (const auto& p : m_kernel.params)
                names.push_back(p.first);
            SourceLoc loc = params ? m_map.of(params->keyNode) : SourceLoc{m_map.file(), 1, 1};
            m_ctx.error(loc, "override of unknown parameter '" + key + "' (" +
                                 (names.empty() ? std::string("the kernel has no parameters")
                                                : "the kernel's parameters are: " + joinNames(names)) + ")");
            return false;
        }
        it->second = value;
    }
    return true;
}

bool KernelReader::readTensors(const Entry& tensors)
{
    if (!requireValue(m_ctx, tensors, "a mapping of tensor names to {shape, dtype}"))
        return false;
    if (!tensors.value.IsMap() || tensors.value.size() == 0) {
        m_ctx.error(m_map.of(tensors.value), "'tensors' must be a non-empty mapping of names to {shape, dtype}");
        return false;
    }
    std::vector<Entry> entries;
    bool ok = mapEntries(m_ctx, tensors.value, "'tensors'", entries);
    for (const Entry& e : entries) {
        Tensor t;
        t.name = e.key;
        t.loc = m_map.of(e.keyNode);
        if (!isIdentifier(e.key)) {
            m_ctx.error(t.loc, "tensor name '" + e.key + "' is not an identifier");
            ok = false;
            continue;
        }
        if (m_kernel.params.count(e.key)) {
            m_ctx.error(t.loc, "tensor '" + e.key + "' has the name of a parameter");
            ok = false;
            continue;
        }
        std::string why = cNameProblem(e.key, CNameUse::Tensor);
        if (why.empty())
            why = derivedNameClash(e.key, m_kernel.name);
        if (!why.empty()) {
            m_ctx.error(t.loc, "tensor name '" + e.key + "' " + why + "; the exported C passes the tensor by this name");
            ok = false;
            continue;
        }
        if (!requireValue(m_ctx, e, "{shape: [...], dtype: ...}")) {
            ok = false;
            continue;
        }
        if (!e.value.IsMap()) {
            m_ctx.error(m_map.of(e.value), "tensor '" + e.key + "' must be a mapping {shape: [...], dtype: ...}");
            ok = false;
            continue;
        }
        std::vector<Entry> fields;
        if (!mapEntries(m_ctx, e.value, "tensor '" + e.key + "'", fields)
            || !checkKeys(m_ctx, fields, {"shape", "dtype"}, "tensor '" + e.key + "'")) {
            ok = false;
            continue;
        }
        const Entry* shape = findEntry(fields, "shape");
        const Entry* dtype = findEntry(fields, "dtype");
        if (!shape || !dtype) {
            m_ctx.error(m_map.of(e.value), "tensor '" + e.key + "' needs " + (shape ? "a 'dtype'" : "a 'shape'"));
            ok = false;
            continue;
        }
        if (!requireValue(m_ctx, *dtype, "int8, int16, int32 or float32")) {
            ok = false;
            continue;
        }
        if (!dtype->value.IsScalar() || !parseDType(dtype->value.Scalar(), t.dtype)) {
            const std::string given = dtype->value.IsScalar() ? dtype->value.Scalar() : std::string("?");
            m_ctx.error(m_map.of(dtype->value),
                        "unknown dtype '" + given + "' (expected int8, int16, int32 or float32)");
            ok = false;
            continue;
        }
        if (!requireValue(m_ctx, *shape, "a list of sizes")) {
            ok = false;
            continue;
        }
        if (!shape->value.IsSequence() || shape->value.size() == 0) {
            m_ctx.error(m_map.of(shape->value),
                        "shape of '" + e.key + "' must be a non-empty list of sizes, e.g. [M, K]");
            ok = false;
            continue;
        }
        if (shape->value.size() > kMaxTensorRank) {
            m_ctx.error(m_map.of(shape->value), "'" + e.key + "' has " + std::to_string(shape->value.size()) + " dimensions; at most "
                                                    + std::to_string(kMaxTensorRank) + " are supported (the interpreter that verifies schedules holds no more)");
            ok = false;
            continue;
        }
        bool shapeOk = true;
        int64_t elements = 1;
        size_t d = 0;
        for (auto it = shape->value.begin(); it != shape->value.end(); ++it, ++d) {
            YAML::Node dim = *it;
            int64_t v = 0;
            if (!evalSize(m_ctx, dim, m_kernel.params, v)) {
                shapeOk = false;
                break;
            }
            if (v < 1) {
                m_ctx.error(m_map.of(dim), "dimension " + std::to_string(d) + " of '" + e.key + "' is "
                                               + std::to_string(v) + "; sizes must be positive");
                shapeOk = false;
                break;
            }
            // Tensors past 2^40 elements cannot be allocated anywhere this tool runs.
            if (!mulOk(elements, v, elements) || elements > kMaxTensorElements) {
                m_ctx.error(m_map.of(dim), "tensor '" + e.key + "' is too large");
                shapeOk = false;
                break;
            }
            t.shape.push_back(v);
        }
        if (!shapeOk) {
            ok = false;
            continue;
        }
        m_kernel.tensors.push_back(std::move(t));
    }
    return ok;
}

bool KernelReader::readStages(const Entry& stages)
{
    if (!requireValue(m_ctx, stages, "a list of stages"))
        return false;
    if (!stages.value.IsSequence() || stages.value.size() == 0) {
        m_ctx.error(m_map.of(stages.value), "'stages' must be a non-empty list of stages (- compute: ...)");
        return false;
    }
    bool ok = true;
    int number = 0;
    for (auto it = stages.value.begin(); it != stages.value.end(); ++it) {
        Stage st;
        StageInfo info;
        StageBuilder b(m_ctx, m_kernel, ++number, *it);
        if (!b.build(st, info)) {
            ok = false;
            continue;
        }
        m_kernel.stages.push_back(std::move(st));
        m_infos.push_back(std::move(info));
    }
    return ok;
}

bool KernelReader::checkPipeline()
{
    auto at = [&](size_t s, size_t pos) { return m_map.inScalar(m_infos[s].computeNode, pos); };
    const size_t n = m_kernel.stages.size();
    for (size_t s = 0; s < n; ++s) {
        const Stage& st = m_kernel.stages[s];
        for (size_t p = 0; p < s; ++p) {
            if (m_kernel.stages[p].output.tensor == st.output.tensor) {
                m_ctx.error(at(s, m_infos[s].lhsPos), "tensor '" + st.name + "' is already written by stage "
                                                          + std::to_string(p + 1) + "; each tensor has one producer");
                return false;
            }
        }
        const bool fl = isFloat(m_kernel.tensors[st.output.tensor].dtype);
        if (fl != isFloat(m_kernel.tensors[m_kernel.stages[0].output.tensor].dtype)) {
            m_ctx.error(at(s, m_infos[s].lhsPos), "stage " + std::to_string(s + 1) + " computes in "
                                                      + (fl ? "float32" : "integers")
                                                      + " but stage 1 does not; a kernel is all float32 or all integer");
            return false;
        }
    }
    for (size_t s = 0; s < n; ++s) {
        for (const LoadSite& site : m_infos[s].loads) {
            int p = m_kernel.producerOf(site.access.tensor);
            if (p > static_cast<int>(s)) {
                m_ctx.error(at(s, site.namePos), "stage " + std::to_string(s + 1) + " reads '"
                                                     + m_kernel.tensors[site.access.tensor].name + "' before stage "
                                                     + std::to_string(p + 1) + " writes it");
                return false;
            }
        }
        for (const auto& [t, loc] : m_infos[s].requantTensors) {
            int p = m_kernel.producerOf(t);
            if (p >= 0) {
                m_ctx.error(loc, "requantize parameter '" + m_kernel.tensors[t].name + "' is written by stage "
                                     + std::to_string(p + 1) + "; requantize parameters must be kernel inputs");
                return false;
            }
        }
    }
    return true;
}

} // namespace

Result<Kernel> parseKernel(const std::string& text, const std::string& path,
                           const std::map<std::string, int64_t>& overrides)
{
    try {
        KernelReader reader(text, path, overrides);
        return reader.read();
    } catch (const YAML::Exception& e) {
        SourceLoc loc{path, e.mark.is_null() ? 1 : e.mark.line + 1, e.mark.is_null() ? 1 : e.mark.column + 1};
        return Diagnostic{Severity::Error, loc, "invalid YAML: " + printableText(e.msg)};
    } catch (const std::exception& e) {
        return Diagnostic{Severity::Error, SourceLoc{path, 1, 1}, std::string("cannot read kernel: ") + e.what()};
    }
}

Result<Kernel> loadKernelFile(const std::string& path, const std::map<std::string, int64_t>& overrides)
{
    std::string text, error;
    if (!readTextFile(path, text, error))
        return Diagnostic{Severity::Error, SourceLoc{path, 0, 0}, error};
    return parseKernel(text, path, overrides);
}

} // namespace loopscope::ir
