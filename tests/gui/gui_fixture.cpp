#include "tests/gui/gui_fixture.h"

#include "backends/builtin_backends.h"
#include "backends/memory/memory_backend.h"
#include "core/storage/path.h"
#include "tests/lib/forwarding_backend.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QTest>
#include <QTimer>

#include <thread>

namespace strata::gui_test {

namespace {

// Every call sleeps first: a storage far away.
class SlowLayer final : public testing::ForwardingBackend {
public:
    SlowLayer(std::shared_ptr<Backend> inner, std::chrono::milliseconds delay)
        : ForwardingBackend(std::move(inner)), m_delay(delay)
    {
    }
    Result<Entry> stat(std::string_view path) override
    {
        nap();
        return ForwardingBackend::stat(path);
    }
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override
    {
        nap();
        return ForwardingBackend::list(dir, options);
    }
    Status createDir(std::string_view path) override
    {
        nap();
        return ForwardingBackend::createDir(path);
    }
    Status remove(std::string_view path, std::string_view within) override
    {
        nap();
        return ForwardingBackend::remove(path, within);
    }
    Status rename(std::string_view from, std::string_view to, bool replace) override
    {
        nap();
        return ForwardingBackend::rename(from, to, replace);
    }

private:
    void nap() const { std::this_thread::sleep_for(m_delay); }
    std::chrono::milliseconds m_delay;
};

class SlowFactory final : public BackendFactory {
public:
    explicit SlowFactory(std::chrono::milliseconds delay) : m_delay(delay) {}
    std::string scheme() const override { return "slow"; }
    std::string example() const override { return "slow://STORE/path"; }
    Result<Target> locate(const Uri &uri) override
    {
        return Target{"slow://" + uri.host(), uri.path().empty() ? "/" : uri.path()};
    }
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &, const ConnectionSecret &) override
    {
        std::this_thread::sleep_for(2 * m_delay); // connecting takes time too
        return std::shared_ptr<Backend>(
            std::make_shared<SlowLayer>(std::make_shared<MemoryBackend>(uri.host()), m_delay));
    }

private:
    std::chrono::milliseconds m_delay;
};

// A memory store whose every listing also names "..", "" and "a/b" in the folder listed, as
// a hostile or broken server may (S3 keys "dir/..", "dir//", "dir/a/b" under a delimiter).
class HostileListingLayer final : public testing::ForwardingBackend {
public:
    using ForwardingBackend::ForwardingBackend;
    Uri uriFor(std::string_view path) const override
    {
        Uri uri = ForwardingBackend::uriFor(path);
        uri.setScheme("hostile");
        return uri;
    }
    Result<ListPage> list(std::string_view dir, const ListOptions &options) override
    {
        auto page = ForwardingBackend::list(dir, options);
        if (page && options.pageToken.empty())
            for (const char *name : {"..", "", "a/b"}) {
                Entry e;
                e.name = name;
                e.path = std::string(dir == "/" ? "" : dir) + "/" + name;
                e.kind = EntryKind::Directory;
                page->entries.push_back(std::move(e));
            }
        return page;
    }
};

class HostileFactory final : public BackendFactory {
public:
    std::string scheme() const override { return "hostile"; }
    std::string example() const override { return "hostile://STORE/path"; }
    Result<Target> locate(const Uri &uri) override
    {
        return Target{"hostile://" + uri.host(), uri.path().empty() ? "/" : uri.path()};
    }
    Result<std::shared_ptr<Backend>> create(const Uri &uri, const Target &, const ConnectionSecret &) override
    {
        return std::shared_ptr<Backend>(
            std::make_shared<HostileListingLayer>(std::make_shared<MemoryBackend>(uri.host())));
    }
};

} // namespace

std::shared_ptr<Registry> makeRegistry(std::chrono::milliseconds slowDelay)
{
    auto registry = std::make_shared<Registry>();
    registerBuiltinBackends(*registry);
    registry->add(std::make_unique<SlowFactory>(slowDelay));
    registry->add(std::make_unique<HostileFactory>());
    return registry;
}

bool waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (!done() && !deadline.hasExpired())
        QTest::qWait(10);
    return done();
}

bool waitForLive(const std::function<bool()> &done, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    QTimer turn; // wakes the loop to look at done() and the deadline
    turn.start(5);
    while (!done() && !deadline.hasExpired()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return done();
}

void put(Registry &registry, const QString &uri, const QByteArray &text)
{
    auto at = registry.open(uri.toStdString());
    QVERIFY2(at.ok(), at.ok() ? "" : at.error().message().c_str());
    (void)at->op->createDir(std::string(parentPath(at->path)), true);
    auto st = at->op->writeAll(at->path, std::as_bytes(std::span(text.constData(), std::size_t(text.size()))));
    QVERIFY2(st.ok(), st.ok() ? "" : st.error().message().c_str());
}

QByteArray get(Registry &registry, const QString &uri)
{
    auto at = registry.open(uri.toStdString());
    if (!at)
        return {};
    auto bytes = at->op->readAll(at->path);
    return bytes ? QByteArray(reinterpret_cast<const char *>(bytes->data()), qsizetype(bytes->size())) : QByteArray();
}

bool exists(Registry &registry, const QString &uri)
{
    auto at = registry.open(uri.toStdString());
    return at && at->op->stat(at->path).ok();
}

} // namespace strata::gui_test
