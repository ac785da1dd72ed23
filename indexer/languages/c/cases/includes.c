#include "util.h"
#include "../common/mem.h"
#include <stdio.h>
#include <zstd/zstd.h>
#include CONFIG_HEADER
#include ""

void use(void)
{
}
// expect:
// import util.h @1 name=*
// import ../common/mem.h @2 name=*
// import <stdio.h> @3 name=* -- a system header keeps its brackets: only include directories hold it
// import <zstd/zstd.h> @4 name=*
// -- a computed include (CONFIG_HEADER) and an empty one name no file
