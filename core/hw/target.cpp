// Small queries on hardware targets.
#include "hw/target.h"

namespace loopscope::hw {

int Target::findLevel(const std::string& name) const
{
    for (size_t i = 0; i < levels.size(); ++i)
        if (levels[i].name == name)
            return static_cast<int>(i);
    return -1;
}

} // namespace loopscope::hw
