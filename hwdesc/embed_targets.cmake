file(WRITE ${OUT} "// generated\n#include <string>\n")
