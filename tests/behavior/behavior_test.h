#pragma once

// The storage behaviours every backend must show, gated by its declared capabilities: one
// suite, run once per backend (tests/behavior/CMakeLists.txt). Here the class, its helpers
// and checks; in behavior_test.cpp the cases of a storage with names, in
// behavior_image_test.cpp those of a storage that is one image (an NBD export).
#include "tests/behavior/behavior_root.h"
#include "tests/unit/unit_checks.h"

#include "core/storage/path.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <set>
#include <thread>

namespace strata {

#define NEEDS(cap)                                   \
    do {                                             \
        if (!m_root->caps().has(Capability::cap))    \
            QSKIP("backend does not declare " #cap); \
    } while (false)

// Runs work(0) .. work(count - 1) on `threads` threads at once, each taking the next index.
template <typename F>
void inParallel(std::size_t threads, std::size_t count, F &&work)
{
    std::atomic<std::size_t> next{0};
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (std::size_t i; (i = next.fetch_add(1)) < count;)
                work(i);
        });
}

class BehaviorTest : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<BehaviorRoot> m_root;
    Operator &op() { return m_root->op(); }
    std::string p(std::string_view rel) { return m_root->path(rel); }

    std::vector<std::byte> readAll(const std::string &path)
    {
        auto data = op().readAll(path, 1ull << 30);
        if (!data)
            qWarning("readAll %s: %s", path.c_str(), data.error().message().c_str());
        return data ? *data : std::vector<std::byte>{};
    }

    void writeFile(const std::string &path, std::span<const std::byte> data)
    {
        auto st = op().writeAll(path, data);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().message().c_str());
    }

    std::set<std::string> listNames(const std::string &dir, std::size_t pageSize, std::size_t *pages = nullptr,
                                    std::size_t *total = nullptr)
    {
        std::set<std::string> names;
        ListOptions options;
        options.pageSize = pageSize;
        std::size_t count = 0, n = 0;
        do {
            auto page = op().list(dir, options);
            if (!page) {
                qWarning("list: %s", page.error().message().c_str());
                break;
            }
            for (const auto &e : page->entries) {
                names.insert(e.name);
                ++count;
            }
            ++n;
            options.pageToken = page->nextPageToken;
        } while (!options.pageToken.empty());
        if (pages)
            *pages = n;
        if (total)
            *total = count;
        return names;
    }

    // The cases: names starting with "image" run on a single-object backend only.
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void imageStat();
    void imageRoundTrip();
    void imageExtents();
    void imageTooSmall();
    void imageReads();
    void roundTrip_data();
    void roundTrip();
    void rangedReads();
    void readsInOrderBetweenOtherRequests();
    void readerReads();
    void versionedReads();
    void overwrite();
    void noClobber();
    void statFileAndDir();
    void listEmptyDir();
    void listNested();
    void listTenThousandPaged();
    void specialNames_data();
    void specialNames();
    void errorKinds();
    void pathEscapeRefused();
    void remove();
    void rename();
    void copy();
    void abortLeavesNothing();
    void sparseExtents();
    void manyReadsInFlight();
};

} // namespace strata
