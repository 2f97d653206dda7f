// A candidate as a line of text, to store it beside a search point (a workspace) and read it
// back when the run resumes: "t=1,4,16;o=0,1,2;i=2,1,0;c=-1,0;d=0,0;v=0,0;u=2;z=1;a=-1|..."
// (per stage: tiles, outer and inner order, cache positions, double buffers, vector-last
// layouts, unrolled loops, vectorize, compute-at).
#pragma once

#include "search/search_space.h"

#include <string>

namespace loopscope::search {

std::string candidateToText(const Candidate& c);
/// False when `text` is not one (or does not fit `space`: wrong number of stages, loops or
/// tensors, a tile that is not one of the loop's factors).
bool candidateFromText(const std::string& text, const SearchSpace& space, Candidate& out);

} // namespace loopscope::search
