#include "api.h"

extern "C" {
int api_version(void) { return version(); }
}

extern "C" void api_free(void* p) { release(p); }

#ifdef _WIN32
void sleep_ms(int ms) { Sleep(ms); }
#else
void sleep_ms(int ms) { usleep(ms * 1000); }
#endif

FMT_BEGIN_NAMESPACE
void after_macro() { format(1); }
FMT_END_NAMESPACE

TEST(Parser, Empty) { EXPECT_EQ(0, parse("")); }

int broken(int x { return 0; }
void kept_after() { ok(); }
// expect:
// syntax-errors: 1 -- the missing `)` of broken: what parses is kept
// entity function api_version 4-4 -- inside extern "C" {…}
// entity function api_free 7-7
// entity function sleep_ms 10-10
// entity function sleep_ms#2 12-12 -- every #if branch is read
// entity function after_macro 16-16 -- the all-caps macro lines around it read as blank
// entity function TEST 19-19 -- a gtest case: named by its macro; in a test file it is test code
// entity function broken 21-21
// entity function kept_after 22-22
// call api_version -> version/0 @4
// call api_free -> release/1 @7
// call sleep_ms -> Sleep/1 @10
// call sleep_ms#2 -> usleep/1 @12
// call after_macro -> format/1 @16
// call TEST -> EXPECT_EQ/2 @19
// call TEST -> parse/1 @19
// call kept_after -> ok/0 @22
// import api.h @1 name=*
// export api_version local=api_version
// export api_free local=api_free
// export sleep_ms local=sleep_ms
// export sleep_ms local=sleep_ms#2
// export after_macro local=after_macro
// export TEST local=TEST
// export broken local=broken
// export kept_after local=kept_after
