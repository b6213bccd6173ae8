// The data path allocates nothing per chunk: copying four times the bytes costs (almost)
// no more allocations. Counted by this binary's own operator new (alloc_counter.cpp).
#include "tests/transfer/alloc_counter.h"
#include "tests/transfer/transfer_suite.h"

namespace strata::test {

void TransferSuite::noAllocationPerChunk()
{
    // Stores that keep the bytes in this process (memory) or buffer them for the network
    // allocate as they store: that is storage, not the engine.
    if (!m_dst->localPath())
        QSKIP("counts the engine's allocations against a local file destination only");
    // Each read from a network source is a request (URL, signature, headers): allocated
    // by the protocol, once per request, not by the engine's data path.
    if (m_src->backend() != "memory" && m_src->backend() != "file")
        QSKIP("counts the engine's allocations with an in-process or local source only");
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("16.bin"), 16u << 20, 1));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("64.bin"), 64u << 20, 2));
    // Small chunks make a per-chunk allocation stand out: 256 against 1024 chunks.
    auto o = options();
    o.chunkSize = 64u << 10;
    o.maxBytesInFlight = 1u << 20;
    o.partSize = 32u << 20;
    o.jobs = 1;
    // No observer and no journal: those allocate by design, per update and per part.
    TransferQueue quiet(*m_registry, QueueOptions{{}, 1}, nullptr);
    auto allocations = [&](const std::string &name) -> std::int64_t {
        const auto before = allocationCount();
        auto id = quiet.enqueue(spec({m_src->uri(name)}, m_dst->uri(name), o));
        if (!id || quiet.wait(*id) != JobState::Completed)
            return -1;
        return std::int64_t(allocationCount() - before);
    };
    const auto small = allocations("16.bin");
    const auto large = allocations("64.bin");
    QVERIFY(small > 0 && large > 0);
    qInfo("allocations: %lld for 16 MiB, %lld for 64 MiB", static_cast<long long>(small),
          static_cast<long long>(large));
    QVERIFY2(large - small < 100,
             ("768 more chunks cost " + std::to_string(large - small) + " more allocations").c_str());
}

} // namespace strata::test
