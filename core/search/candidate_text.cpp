// Text form of a search candidate.
#include "search/candidate_text.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace loopscope::search {

namespace {

template <typename T>
void list(std::ostringstream& os, char key, const std::vector<T>& v)
{
    os << key << '=';
    for (size_t i = 0; i < v.size(); ++i)
        os << (i ? "," : "") << static_cast<long long>(v[i]);
    os << ';';
}

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    for (char ch : s) {
        if (ch == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    out.push_back(cur);
    return out;
}

bool numbers(const std::string& s, std::vector<long long>& out)
{
    out.clear();
    if (s.empty())
        return true;
    for (const auto& part : split(s, ',')) {
        long long v = 0;
        auto r = std::from_chars(part.data(), part.data() + part.size(), v);
        if (r.ec != std::errc() || r.ptr != part.data() + part.size())
            return false;
        out.push_back(v);
    }
    return true;
}

bool isPermutation(const std::vector<int>& v, size_t n)
{
    if (v.size() != n)
        return false;
    std::vector<int> s = v;
    std::sort(s.begin(), s.end());
    for (size_t i = 0; i < n; ++i)
        if (s[i] != static_cast<int>(i))
            return false;
    return true;
}

} // namespace

std::string candidateToText(const Candidate& c)
{
    std::ostringstream os;
    for (size_t s = 0; s < c.stages.size(); ++s) {
        const auto& cs = c.stages[s];
        if (s)
            os << '|';
        list(os, 't', cs.tile);
        list(os, 'o', cs.outerOrder);
        list(os, 'i', cs.innerOrder);
        list(os, 'c', cs.cacheAt);
        list(os, 'd', cs.doubleBuffer);
        list(os, 'v', cs.vectorLast);
        if (std::find(cs.widen.begin(), cs.widen.end(), 1) != cs.widen.end())
            list(os, 'w', cs.widen);  // only when something widens: older texts stay valid and unchanged
        os << "u=" << cs.unroll << ";z=" << (cs.vectorize ? 1 : 0) << ";a=" << cs.computeAt;
        if (cs.tensorize >= 0) {
            os << ';';
            list(os, 'm', cs.tile2);
            os << "g=" << cs.tensorize << ";f=" << cs.dataflow;
        }
    }
    return os.str();
}

bool candidateFromText(const std::string& text, const SearchSpace& space, Candidate& out)
{
    Candidate c = space.identity();
    std::vector<std::string> stages = split(text, '|');
    if (stages.size() != c.stages.size())
        return false;
    for (size_t s = 0; s < stages.size(); ++s) {
        const SpaceStage& sp = space.stages()[s];
        Candidate::Stage& cs = c.stages[s];
        for (const auto& field : split(stages[s], ';')) {
            if (field.size() < 2 || field[1] != '=')
                return false;
            std::vector<long long> v;
            if (!numbers(field.substr(2), v))
                return false;
            auto ints = [&v] { return std::vector<int>(v.begin(), v.end()); };
            auto bytes = [&v] { return std::vector<uint8_t>(v.begin(), v.end()); };
            switch (field[0]) {
            case 't': cs.tile.assign(v.begin(), v.end()); break;
            case 'o': cs.outerOrder = ints(); break;
            case 'i': cs.innerOrder = ints(); break;
            case 'c': cs.cacheAt = ints(); break;
            case 'd': cs.doubleBuffer = bytes(); break;
            case 'v': cs.vectorLast = bytes(); break;
            case 'w': cs.widen = bytes(); break;
            case 'u': if (v.size() != 1) return false; cs.unroll = static_cast<int>(v[0]); break;
            case 'z': if (v.size() != 1) return false; cs.vectorize = v[0] != 0; break;
            case 'a': if (v.size() != 1) return false; cs.computeAt = static_cast<int>(v[0]); break;
            case 'g': if (v.size() != 1 || v[0] < 0 || v[0] >= static_cast<long long>(sp.arrayMappings.size())) return false; cs.tensorize = static_cast<int>(v[0]); break;
            case 'm': cs.tile2.assign(v.begin(), v.end()); break;
            case 'f': if (v.size() != 1 || v[0] < 0 || v[0] > 1) return false; cs.dataflow = static_cast<int>(v[0]); break;
            default: return false;
            }
        }
        size_t n = sp.loops.size(), nt = sp.tensors.size();
        if (cs.tile.size() != n || !isPermutation(cs.outerOrder, n) || !isPermutation(cs.innerOrder, n) || cs.cacheAt.size() != nt
            || cs.doubleBuffer.size() != nt || cs.vectorLast.size() != nt || cs.widen.size() != nt || cs.tile2.size() != n)
            return false;
        for (size_t l = 0; l < n; ++l) {
            const auto& f = sp.loops[l].factors;
            if (std::find(f.begin(), f.end(), cs.tile[l]) == f.end())
                return false;
        }
    }
    space.canonicalize(c);
    out = std::move(c);
    return true;
}

} // namespace loopscope::search
