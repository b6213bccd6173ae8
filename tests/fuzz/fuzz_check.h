#pragma once

#include <cstdio>
#include <cstdlib>

// An invariant of the code under test: a failure aborts, so libFuzzer keeps the input.
// (assert() is compiled out of the RelWithDebInfo fuzz tree.)
#define FUZZ_CHECK(cond)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                      \
        }                                                                                      \
    } while (0)
