// loopscope-cli: batch use of the Loopscope core (no Qt).
#include "commands.h"

#include <iostream>

int main(int argc, char** argv)
{
    return loopscope::cli::runCli(argc, argv, std::cout, std::cerr);
}
