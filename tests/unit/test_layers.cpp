// Every operation passes through every layer. The backend below counts what reaches it;
// each operation of Operation is invoked once (invoke() switches over the enum without a
// default, so a new operation does not compile here until it is added) and the test
// asserts that logging logged it, metrics counted it, the retry layer retried it when it
// may run twice (and only then), and the capability check refused it when the storage
// lacks what it needs, before the backend saw it.
#include "tests/unit/unit_checks.h"

#include "core/storage/capability_layer.h"
#include "core/storage/logging_layer.h"
#include "core/storage/metrics_layer.h"
#include "core/storage/retry_layer.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>

namespace strata {

namespace {

constexpr Capabilities kEverything{Capability::Stat,
                                   Capability::List,
                                   Capability::Read,
                                   Capability::Write,
                                   Capability::Remove,
                                   Capability::CreateDir,
                                   Capability::Rename,
                                   Capability::Copy,
                                   Capability::Extents,
                                   Capability::RangedRead,
                                   Capability::PositionalWrite,
                                   Capability::ListRecursive,
                                   Capability::Versions,
                                   Capability::Uploads,
                                   Capability::Details};

// Counts each operation that reaches it; with failFirst, the first call of each operation
// that can fail fails with a temporary error.
struct Counts {
    std::array<int, kOperationCount> seen{};
    bool failFirst = false;
    Status reach(Operation op)
    {
        if (seen[std::size_t(op)]++ == 0 && failFirst)
            return Error(ErrorKind::Network, "first attempt of " + std::string(toString(op)));
        return {};
    }
};

class CountingWriter final : public Writer {
public:
    explicit CountingWriter(Counts &c) : m_counts(c) {}
    Status write(std::span<const std::byte>) override { return m_counts.reach(Operation::WriterWrite); }
    Status writeAt(std::uint64_t, std::span<const std::byte>) override
    {
        return m_counts.reach(Operation::WriterWriteAt);
    }
    Status setLength(std::uint64_t) override { return m_counts.reach(Operation::WriterSetLength); }
    Status zero(std::uint64_t, std::uint64_t) override { return m_counts.reach(Operation::WriterZero); }
    Result<std::size_t> writeQueue(IoQueue &) override
    {
        if (auto st = m_counts.reach(Operation::WriterWriteQueue); !st)
            return std::move(st).error();
        return std::size_t(0);
    }
    Status commit() override { return m_counts.reach(Operation::WriterCommit); }
    void abort() override { m_counts.seen[std::size_t(Operation::WriterAbort)]++; }
    void suspend() override { m_counts.seen[std::size_t(Operation::WriterSuspend)]++; }

private:
    Counts &m_counts;
};

class CountingReader final : public Reader {
public:
    explicit CountingReader(Counts &c) : m_counts(c) {}
    Result<std::size_t> read(std::uint64_t, std::span<std::byte> buffer) override
    {
        if (auto st = m_counts.reach(Operation::ReaderRead); !st)
            return std::move(st).error();
        return buffer.size();
    }
    Status copyRangeTo(std::uint64_t, std::uint64_t, Writer &) override
    {
        return m_counts.reach(Operation::ReaderCopyRange);
    }
    Result<Entry> stat() override
    {
        if (auto st = m_counts.reach(Operation::ReaderStat); !st)
            return std::move(st).error();
        return Entry{};
    }

private:
    Counts &m_counts;
};

class CountingBackend final : public Backend {
public:
    Counts counts;
    Capabilities caps = kEverything;

    Capabilities capabilities() const override { return caps; }
    Uri uriFor(std::string_view path) const override { return Uri::parse("mem://test")->withPath(std::string(path)); }
    Result<Entry> stat(std::string_view) override { return value(Operation::Stat, Entry{}); }
    Result<ListPage> list(std::string_view, const ListOptions &) override { return value(Operation::List, ListPage{}); }
    Result<std::size_t> read(std::string_view, std::uint64_t, std::span<std::byte> b) override
    {
        return value(Operation::Read, b.size());
    }
    Result<std::size_t> readQueue(std::string_view, IoQueue &) override
    {
        return value(Operation::ReadQueue, std::size_t(0));
    }
    Result<std::size_t> readVersion(std::string_view, std::uint64_t, std::span<std::byte> b,
                                    const ObjectVersion &) override
    {
        return value(Operation::ReadVersion, b.size());
    }
    Result<std::unique_ptr<Writer>> write(std::string_view, const WriteOptions &) override
    {
        if (auto st = counts.reach(Operation::OpenWriter); !st)
            return std::move(st).error();
        return std::unique_ptr<Writer>(std::make_unique<CountingWriter>(counts));
    }
    Status put(std::string_view, std::span<const std::byte>, const WriteOptions &) override
    {
        return counts.reach(Operation::Put);
    }
    Status remove(std::string_view, std::string_view) override { return counts.reach(Operation::Remove); }
    Status removeMany(std::span<const std::string>, std::string_view) override
    {
        return counts.reach(Operation::RemoveMany);
    }
    Status createDir(std::string_view) override { return counts.reach(Operation::CreateDir); }
    Status rename(std::string_view, std::string_view, bool) override { return counts.reach(Operation::Rename); }
    Status setPermissions(std::string_view, std::uint32_t, std::string_view) override
    {
        return counts.reach(Operation::SetPermissions);
    }
    Result<std::unique_ptr<Reader>> openReader(std::string_view, const Entry &) override
    {
        if (auto st = counts.reach(Operation::OpenReader); !st)
            return std::move(st).error();
        return std::unique_ptr<Reader>(std::make_unique<CountingReader>(counts));
    }
    Status copy(std::string_view, std::string_view) override { return counts.reach(Operation::Copy); }
    Result<std::vector<Extent>> extents(std::string_view) override
    {
        return value(Operation::Extents, std::vector<Extent>{});
    }
    Status copyRange(std::string_view, std::uint64_t, std::uint64_t, Writer &) override
    {
        return counts.reach(Operation::CopyRange);
    }
    Result<VersionPage> listVersions(std::string_view, const ListOptions &) override
    {
        return value(Operation::ListVersions, VersionPage{});
    }
    Result<UploadPage> listUploads(std::string_view, const ListOptions &) override
    {
        return value(Operation::ListUploads, UploadPage{});
    }
    Result<ObjectDetails> details(std::string_view) override { return value(Operation::Details, ObjectDetails{}); }
    Status changeDetails(std::string_view, const DetailsChange &) override
    {
        return counts.reach(Operation::ChangeDetails);
    }
    void willRead(std::string_view, std::span<const Extent>) override
    {
        counts.seen[std::size_t(Operation::WillRead)]++;
    }
    void discardPending(std::string_view, const std::string &) override
    {
        counts.seen[std::size_t(Operation::DiscardPending)]++;
    }

private:
    template <typename T>
    Result<T> value(Operation op, T v)
    {
        if (auto st = counts.reach(op); !st)
            return std::move(st).error();
        return v;
    }
};

// Invokes `op` once on the top of a stack. Writer and reader operations need a writer or a
// reader, opened first (their opening is counted too; the callers subtract it).
Status invoke(Backend &top, Operation op)
{
    std::array<std::byte, 16> buffer{};
    const std::array<std::string, 2> paths{"/a", "/b"};
    const std::array<Extent, 1> ranges{Extent{0, 16, ExtentKind::Data}};
    IoQueue queue; // no requests: the call itself is what a layer sees
    queue.next = [](IoQueue::Request &) { return false; };
    queue.done = [](const IoQueue::Request &) {};
    ListOptions recursive;
    recursive.recursive = true;
    const auto withWriter = [&](auto &&use) -> Status {
        auto writer = top.write("/w", {});
        if (!writer)
            return std::move(writer).error();
        return use(**writer);
    };
    const auto withReader = [&](auto &&use) -> Status {
        auto reader = top.openReader("/r", Entry{});
        if (!reader)
            return std::move(reader).error();
        return use(**reader);
    };
    const auto status = [](const auto &result) { return result ? Status() : Status(result.error()); };
    switch (op) {
    case Operation::Stat: return status(top.stat("/a"));
    case Operation::List: return status(top.list("/", recursive));
    case Operation::Read: return status(top.read("/a", 4, buffer));
    case Operation::ReadQueue: return status(top.readQueue("/a", queue));
    case Operation::ReadVersion: return status(top.readVersion("/a", 0, buffer, ObjectVersion{"\"e1\"", 16}));
    case Operation::OpenWriter:
        return withWriter([](Writer &w) {
            w.abort();
            return Status();
        });
    case Operation::Put: return top.put("/a", buffer, {});
    case Operation::Remove: return top.remove("/a", "/");
    case Operation::RemoveMany: return top.removeMany(paths, "/");
    case Operation::CreateDir: return top.createDir("/d");
    case Operation::Rename: return top.rename("/a", "/b", false);
    case Operation::SetPermissions: return top.setPermissions("/a", 0640, "/");
    case Operation::OpenReader: return withReader([](Reader &) { return Status(); });
    case Operation::Copy: return top.copy("/a", "/b");
    case Operation::Extents: return status(top.extents("/a"));
    case Operation::ListVersions: return status(top.listVersions("/", {}));
    case Operation::ListUploads: return status(top.listUploads("/", {}));
    case Operation::Details: return status(top.details("/a"));
    case Operation::ChangeDetails: return top.changeDetails("/a", {});
    case Operation::CopyRange: return withWriter([&](Writer &w) { return top.copyRange("/a", 0, 16, w); });
    case Operation::WillRead: top.willRead("/a", ranges); return {};
    case Operation::DiscardPending: top.discardPending("/a", "upload-1"); return {};
    case Operation::WriterWrite: return withWriter([&](Writer &w) { return w.write(buffer); });
    case Operation::WriterWriteAt: return withWriter([&](Writer &w) { return w.writeAt(16, buffer); });
    case Operation::WriterSetLength: return withWriter([](Writer &w) { return w.setLength(32); });
    case Operation::WriterZero: return withWriter([](Writer &w) { return w.zero(0, 32); });
    case Operation::WriterWriteQueue: return withWriter([&](Writer &w) { return status(w.writeQueue(queue)); });
    case Operation::WriterCommit: return withWriter([](Writer &w) { return w.commit(); });
    case Operation::WriterAbort:
        return withWriter([](Writer &w) {
            w.abort();
            return Status();
        });
    case Operation::WriterSuspend:
        return withWriter([](Writer &w) {
            w.suspend();
            return Status();
        });
    case Operation::ReaderRead: return withReader([&](Reader &r) { return status(r.read(8, buffer)); });
    case Operation::ReaderCopyRange:
        return withReader([&](Reader &r) { return withWriter([&](Writer &w) { return r.copyRangeTo(0, 16, w); }); });
    case Operation::ReaderStat: return withReader([&](Reader &r) { return status(r.stat()); });
    case Operation::Count_: break;
    }
    return Error(ErrorKind::Unexpected, "no such operation");
}

// The operations a call of invoke(op) performs besides op itself (opening a writer or a
// reader; a writer that is not committed is aborted when dropped).
std::vector<Operation> alsoPerformed(Operation op)
{
    switch (op) {
    case Operation::OpenWriter: return {Operation::WriterAbort};
    case Operation::CopyRange: return {Operation::OpenWriter, Operation::WriterAbort};
    case Operation::WriterWrite:
    case Operation::WriterWriteAt:
    case Operation::WriterSetLength:
    case Operation::WriterZero:
    case Operation::WriterWriteQueue: return {Operation::OpenWriter, Operation::WriterAbort};
    case Operation::WriterCommit:
    case Operation::WriterAbort:
    case Operation::WriterSuspend: return {Operation::OpenWriter};
    case Operation::ReaderRead:
    case Operation::ReaderStat: return {Operation::OpenReader};
    case Operation::ReaderCopyRange: return {Operation::OpenReader, Operation::OpenWriter, Operation::WriterAbort};
    default: return {};
    }
}

std::vector<Operation> allOperations()
{
    std::vector<Operation> all;
    for (std::size_t i = 0; i < kOperationCount; ++i)
        all.push_back(Operation(i));
    return all;
}

} // namespace

class TestLayers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void operationsHaveDistinctNames()
    {
        std::map<std::string_view, Operation> names;
        for (Operation op : allOperations()) {
            QVERIFY2(toString(op) != "unknown", std::to_string(int(op)).c_str());
            QVERIFY2(names.emplace(toString(op), op).second, std::string(toString(op)).c_str());
        }
    }

    void metricsCountEveryOperation()
    {
        for (Operation op : allOperations()) {
            auto backend = std::make_shared<CountingBackend>();
            auto metrics = std::make_shared<MetricsLayer>(backend);
            REQUIRE_OK(invoke(*metrics, op));
            QVERIFY2(metrics->counters(op).calls == 1, std::string(toString(op)).c_str());
            QCOMPARE(backend->counts.seen[std::size_t(op)], 1);
        }
    }

    void loggingLogsEveryOperation()
    {
        for (Operation op : allOperations()) {
            auto backend = std::make_shared<CountingBackend>();
            std::vector<std::string> lines;
            auto logging = std::make_shared<LoggingLayer>(backend, [&](std::string_view l) { lines.emplace_back(l); });
            REQUIRE_OK(invoke(*logging, op));
            const std::string name(toString(op));
            if (op == Operation::WriterWrite || op == Operation::WriterWriteAt) {
                // Chunks are summed into the line that ends the writer.
                QVERIFY2(std::any_of(lines.begin(), lines.end(),
                                     [](const std::string &l) {
                                         return l.starts_with("abort mem://test/w (16 bytes discarded)");
                                     }),
                         name.c_str());
                continue;
            }
            QVERIFY2(std::any_of(lines.begin(), lines.end(),
                                 [&](const std::string &l) { return l.starts_with(name + " mem://"); }),
                     (name + " not logged").c_str());
        }
    }

    void loggingLogsFailedChunks()
    {
        // A chunk that fails has its own line (a stalled upload shows when it stalls).
        for (Operation op : {Operation::WriterWrite, Operation::WriterWriteAt}) {
            auto backend = std::make_shared<CountingBackend>();
            backend->counts.failFirst = true;
            std::vector<std::string> lines;
            auto logging = std::make_shared<LoggingLayer>(backend, [&](std::string_view l) { lines.emplace_back(l); });
            (void)logging->write("/w", {}); // the first opening fails too
            auto writer = logging->write("/w", {});
            REQUIRE_OK(writer);
            const std::array<std::byte, 16> buffer{};
            QVERIFY(!(op == Operation::WriterWrite ? (*writer)->write(buffer) : (*writer)->writeAt(16, buffer)));
            const std::string name(toString(op));
            QVERIFY2(std::any_of(lines.begin(), lines.end(),
                                 [&](const std::string &l) {
                                     return l.starts_with(name + " mem://test/w [")
                                         && l.find(" failed: network (first attempt of") != std::string::npos;
                                 }),
                     name.c_str());
        }
    }

    void retriesWhatMayRunTwice()
    {
        const std::set<Operation> once{
            Operation::Rename,         Operation::WriterWrite, Operation::WriterWriteAt,   Operation::WriterSetLength,
            Operation::WriterCommit,   Operation::WriterAbort, Operation::WriterSuspend,   Operation::WillRead,
            Operation::DiscardPending, Operation::ReadQueue,   Operation::WriterWriteQueue};
        for (Operation op : allOperations()) {
            auto backend = std::make_shared<CountingBackend>();
            RetryPolicy policy;
            policy.sleep = [](std::chrono::milliseconds) {};
            auto retry = std::make_shared<RetryLayer>(backend, policy);
            // The operations that open a writer or reader first get them on a first try.
            for (Operation before : alsoPerformed(op))
                backend->counts.seen[std::size_t(before)] = 1;
            backend->counts.failFirst = true;
            const Status st = invoke(*retry, op);
            const std::string name(toString(op));
            const bool canFail = op != Operation::WriterAbort && op != Operation::WriterSuspend
                && op != Operation::WillRead && op != Operation::DiscardPending;
            if (once.count(op)) {
                QVERIFY2(!canFail || !st, (name + " was retried").c_str());
                QVERIFY2(backend->counts.seen[std::size_t(op)] == 1, (name + " reached the backend twice").c_str());
            } else {
                QVERIFY2(st.ok(), (name + " was not retried: " + (st ? "" : st.error().message())).c_str());
                QVERIFY2(backend->counts.seen[std::size_t(op)] == 2, name.c_str());
            }
        }
    }

    void capabilityCheckRefusesBeforeTheBackend()
    {
        // With no capability at all, only what needs none reaches the backend.
        const std::set<Operation> needNone{Operation::SetPermissions, Operation::DiscardPending};
        for (Operation op : allOperations()) {
            auto backend = std::make_shared<CountingBackend>();
            backend->caps = {};
            auto check = std::make_shared<CapabilityLayer>(backend);
            const Status st = invoke(*check, op);
            const std::string name(toString(op));
            if (needNone.count(op)) {
                REQUIRE_OK(st);
                QCOMPARE(backend->counts.seen[std::size_t(op)], 1);
                continue;
            }
            // A hint has no result to refuse with: it is dropped.
            QVERIFY2(op == Operation::WillRead || (!st && st.error().kind() == ErrorKind::Unsupported),
                     (name + " was not refused").c_str());
            const int reached = std::accumulate(backend->counts.seen.begin(), backend->counts.seen.end(), 0);
            QVERIFY2(reached == 0, (name + " reached the backend").c_str());
        }
        // Each writer and reader operation is checked on its own, once the writer is open.
        for (Operation op : {Operation::WriterWriteAt, Operation::WriterSetLength, Operation::WriterZero}) {
            auto backend = std::make_shared<CountingBackend>();
            backend->caps = Capabilities(kEverything).remove(Capability::PositionalWrite);
            auto check = std::make_shared<CapabilityLayer>(backend);
            const Status st = invoke(*check, op);
            QVERIFY(!st && st.error().kind() == ErrorKind::Unsupported);
            QCOMPARE(backend->counts.seen[std::size_t(op)], 0);
            QCOMPARE(backend->counts.seen[std::size_t(Operation::OpenWriter)], 1);
        }
    }

    // A writer keeps the layers it was opened through alive.
    void aWriterOutlivesItsStack()
    {
        auto backend = std::make_shared<CountingBackend>();
        std::unique_ptr<Writer> writer;
        std::weak_ptr<MetricsLayer> weak;
        {
            auto metrics = std::make_shared<MetricsLayer>(backend);
            weak = metrics;
            auto opened = metrics->write("/w", {});
            REQUIRE_OK(opened);
            writer = std::move(*opened);
        }
        QVERIFY(!weak.expired());
        REQUIRE_OK(writer->write(asBytes("abc")));
        REQUIRE_OK(writer->commit());
        QCOMPARE(weak.lock()->counters(Operation::WriterWrite).bytes, std::uint64_t(3));
        writer.reset();
        QVERIFY(weak.expired());
    }
};

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestLayers)
#include "test_layers.moc"
