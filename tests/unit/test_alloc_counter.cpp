// The benchmark engine's allocation counter counts every heap allocation of the process:
// C++ new, and allocations made inside C libraries (zstd, curl, glibc itself).
#include "core/bench/alloc_counter.h"

#include <QtTest>

#include <curl/curl.h>
#include <zstd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace strata;

class AllocCounterTest : public QObject {
    Q_OBJECT

private:
    template <typename F>
    static AllocCounts counted(F &&f)
    {
        const AllocCounts before = allocCounts();
        setAllocCounting(true);
        f();
        setAllocCounting(false);
        const AllocCounts after = allocCounts();
        return {after.allocs - before.allocs, after.bytes - before.bytes};
    }

private Q_SLOTS:
    void init()
    {
        if (!allocCountingAvailable())
            QSKIP("a sanitizer build: the sanitizer owns malloc, nothing is counted");
    }

    void countsNew()
    {
        std::unique_ptr<std::vector<char>> v;
        const auto n = counted([&] { v = std::make_unique<std::vector<char>>(100000); });
        QCOMPARE(n.allocs, std::uint64_t(2)); // the vector object and its buffer
        QVERIFY(n.bytes >= 100000);
    }

    // zstd allocates its context with malloc inside libzstd.so: counted.
    void countsInsideZstd()
    {
        ZSTD_CCtx *cctx = nullptr;
        const auto n = counted([&] { cctx = ZSTD_createCCtx(); });
        QVERIFY(cctx);
        QVERIFY2(n.allocs >= 1, "an allocation inside libzstd was not counted");
        QVERIFY(n.bytes >= sizeof(void *));
        ZSTD_freeCCtx(cctx);
    }

    // curl's easy handle: calloc and strdup-style allocations inside libcurl.so.
    void countsInsideCurl()
    {
        CURL *curl = nullptr;
        const auto n = counted([&] { curl = curl_easy_init(); });
        QVERIFY(curl);
        QVERIFY2(n.allocs >= 1, "an allocation inside libcurl was not counted");
        curl_easy_cleanup(curl);
    }

    // glibc's own functions allocate through the replaced malloc too.
    void countsInsideGlibc()
    {
        char *copy = nullptr;
        const auto n = counted([&] { copy = strdup("hello, allocation counter"); });
        QCOMPARE(n.allocs, std::uint64_t(1));
        std::free(copy);
        void *aligned = nullptr;
        const auto m = counted([&] { QCOMPARE(posix_memalign(&aligned, 4096, 8192), 0); });
        QCOMPARE(m.allocs, std::uint64_t(1));
        QCOMPARE(m.bytes, std::uint64_t(8192));
        QCOMPARE(reinterpret_cast<std::uintptr_t>(aligned) % 4096, std::uintptr_t(0));
        std::free(aligned);
    }

    // Other threads' allocations count, and nothing is counted while counting is off.
    void threadsAndOff()
    {
        const auto n = counted([] {
            std::vector<std::thread> threads;
            for (int i = 0; i < 4; ++i)
                threads.emplace_back([] {
                    // Through a volatile pointer: the compiler may not pair malloc with free away.
                    void *(*volatile allocate)(std::size_t) = std::malloc;
                    for (int k = 0; k < 1000; ++k)
                        std::free(allocate(64));
                });
            for (auto &t : threads)
                t.join();
        });
        QVERIFY(n.allocs >= 4000);
        const AllocCounts before = allocCounts();
        void *(*volatile allocate)(std::size_t) = std::malloc;
        std::free(allocate(1000));
        QCOMPARE(allocCounts().allocs, before.allocs);
    }
};

QTEST_GUILESS_MAIN(AllocCounterTest)
#include "test_alloc_counter.moc"
