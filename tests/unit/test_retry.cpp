// The layers around a backend: retry (with an injected clock), capability check, and
// what Operator adds (path checks, error context, metrics). The backend is a scripted
// test double: these are unit tests of the layers, not of any storage.
#include "tests/unit/unit_checks.h"

#include "core/storage/capability_layer.h"
#include "core/storage/operator.h"
#include "core/storage/retry_layer.h"

#include <QTest>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <set>

namespace strata {

using std::chrono::milliseconds;

namespace {

// Accepts bytes, or fails every write with a scripted error.
class ScriptedWriter final : public Writer {
public:
    explicit ScriptedWriter(std::optional<Error> failure) : m_failure(std::move(failure)) {}
    Status write(std::span<const std::byte>) override { return m_failure ? Status(*m_failure) : Status(); }
    Status commit() override { return {}; }
    void abort() override {}

private:
    std::optional<Error> m_failure;
};

// Answers each call with the next scripted outcome (an error, or success once the script
// runs out) and records which operations reached it.
class ScriptedBackend final : public Backend {
public:
    Capabilities caps{Capability::Stat,   Capability::List,      Capability::Read,   Capability::Write,
                      Capability::Remove, Capability::CreateDir, Capability::Rename, Capability::RangedRead};
    std::deque<Error> script;
    std::optional<Error> writerFailure;
    std::vector<std::string> calls; // "stat /a", …
    std::function<void()> onCall;   // e.g. advances a fake clock: attempts take time

    Capabilities capabilities() const override { return caps; }
    Uri uriFor(std::string_view path) const override
    {
        auto uri = Uri::parse("s3://AKIA:SECRETVALUE@bucket?region=eu-west-1&token=TOKENVALUE");
        return uri->withPath(std::string(path));
    }
    Result<Entry> stat(std::string_view path) override
    {
        if (auto e = next("stat", path))
            return *e;
        Entry entry;
        entry.path = std::string(path);
        entry.size = 100;
        return entry;
    }
    Result<ListPage> list(std::string_view dir, const ListOptions &) override
    {
        if (auto e = next("list", dir))
            return *e;
        return ListPage{};
    }
    Result<std::size_t> read(std::string_view path, std::uint64_t, std::span<std::byte> buffer) override
    {
        if (auto e = next("read", path))
            return *e;
        std::fill(buffer.begin(), buffer.end(), std::byte{'x'});
        return buffer.size();
    }
    Result<std::unique_ptr<Writer>> write(std::string_view path, const WriteOptions &) override
    {
        if (auto e = next("write", path))
            return *e;
        return std::unique_ptr<Writer>(std::make_unique<ScriptedWriter>(writerFailure));
    }
    Status remove(std::string_view path, std::string_view) override { return status("remove", path); }
    Status createDir(std::string_view path) override { return status("createDir", path); }
    Status rename(std::string_view from, std::string_view, bool) override { return status("rename", from); }
    Status copy(std::string_view from, std::string_view) override { return status("copy", from); }
    Result<std::vector<Extent>> extents(std::string_view path) override
    {
        if (auto e = next("extents", path))
            return *e;
        return std::vector<Extent>{};
    }

    std::string callsText() const
    {
        std::string out;
        for (const auto &c : calls)
            out += c + "; ";
        return out;
    }

    int count(std::string_view op) const
    {
        return int(std::count_if(calls.begin(), calls.end(), [&](const std::string &c) {
            return c.starts_with(op) && c.size() > op.size() && c[op.size()] == ' ';
        }));
    }

private:
    std::optional<Error> next(std::string_view op, std::string_view path)
    {
        calls.push_back(std::string(op) + ' ' + std::string(path));
        if (onCall)
            onCall();
        if (script.empty())
            return std::nullopt;
        Error e = std::move(script.front());
        script.pop_front();
        return e;
    }
    Status status(std::string_view op, std::string_view path)
    {
        if (auto e = next(op, path))
            return *e;
        return {};
    }
};

// Time that moves only when the retry layer sleeps (or an attempt advances it).
struct FakeClock {
    std::chrono::steady_clock::time_point now{};
    std::vector<milliseconds> waits;

    milliseconds slept() const
    {
        milliseconds total{0};
        for (auto w : waits)
            total += w;
        return total;
    }
    RetryPolicy policy(RetryPolicy p = {})
    {
        p.now = [this] { return now; };
        p.sleep = [this](milliseconds d) {
            waits.push_back(d);
            now += d;
        };
        return p;
    }
};

double fullDelay(const RetryPolicy &p, int attempt)
{
    return std::min(double(p.initialDelay.count()) * std::pow(p.multiplier, attempt - 1), double(p.maxDelay.count()));
}

Error temporaryError(int i)
{
    static const ErrorKind kinds[] = {ErrorKind::Timeout, ErrorKind::Network, ErrorKind::Busy, ErrorKind::RateLimited};
    return Error(kinds[i % 4], "try " + std::to_string(i));
}

} // namespace

class TestRetry : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void temporaryErrorsRetriedUntilSuccess();
    void permanentErrorsNotRetried();
    void temporaryFlagDecidesNotKind();
    void maxAttemptsRespected();
    void timeBudgetRespected();
    void slowAttemptsCountAgainstBudget();
    void backoffGrowsJitteredAndCapped();
    void retryWaitsFollowBackoff();
    void renameNotRetried();
    void createDirAlreadyExistsAfterRetryIsSuccess();
    void writeRetriedOnlyWhenOpening();
    void capabilityLayerRefusesUndeclared();
    void operatorRefusesClimbingPaths();
    void operatorErrorsCarryContextWithoutSecrets();
    void operatorCountsCallsErrorsAndBytes();
    void metricsSeeEveryAttempt();

private:
    std::shared_ptr<ScriptedBackend> m_fake;
    FakeClock m_clock;
};

void TestRetry::init()
{
    m_fake = std::make_shared<ScriptedBackend>();
    m_clock = FakeClock{};
}

void TestRetry::temporaryErrorsRetriedUntilSuccess()
{
    RetryLayer retry(m_fake, m_clock.policy());
    for (int i = 0; i < 3; ++i)
        m_fake->script.push_back(temporaryError(i));
    auto entry = retry.stat("/a");
    REQUIRE_OK(entry);
    QCOMPARE(entry->path, std::string("/a"));
    QCOMPARE(m_fake->count("stat"), 4);
    QCOMPARE(int(m_clock.waits.size()), 3);

    m_fake->script.push_back(Error(ErrorKind::Network));
    std::vector<std::byte> buffer(8);
    auto n = retry.read("/a", 0, buffer);
    REQUIRE_OK(n);
    QCOMPARE(*n, std::size_t(8));
    QCOMPARE(m_fake->count("read"), 2);
}

void TestRetry::permanentErrorsNotRetried()
{
    RetryLayer retry(m_fake, m_clock.policy());
    const ErrorKind permanent[] = {ErrorKind::NotFound, ErrorKind::PermissionDenied, ErrorKind::InvalidInput,
                                   ErrorKind::NoSpace, ErrorKind::Corrupt};
    for (ErrorKind kind : permanent) {
        m_fake->calls.clear();
        m_fake->script = {Error(kind, "permanent"), Error(kind)};
        auto entry = retry.stat("/a");
        REQUIRE_KIND(entry, kind);
        QCOMPARE(entry.error().cause(), std::string("permanent")); // returned unchanged
        QCOMPARE(int(m_fake->calls.size()), 1);
    }
    QVERIFY(m_clock.waits.empty());
}

void TestRetry::temporaryFlagDecidesNotKind()
{
    RetryLayer retry(m_fake, m_clock.policy());
    m_fake->script = {Error(ErrorKind::Timeout).setTemporary(false)};
    REQUIRE_KIND(retry.list("/", {}), ErrorKind::Timeout);
    QCOMPARE(m_fake->count("list"), 1);

    m_fake->script = {Error(ErrorKind::Corrupt).setTemporary(true)};
    REQUIRE_OK(retry.list("/", {}));
    QCOMPARE(m_fake->count("list"), 3);
}

void TestRetry::maxAttemptsRespected()
{
    RetryPolicy p;
    p.maxAttempts = 3;
    RetryLayer retry(m_fake, m_clock.policy(p));
    for (int i = 0; i < 10; ++i)
        m_fake->script.push_back(temporaryError(i));
    auto st = retry.remove("/a", {});
    QVERIFY(!st.ok());
    QCOMPARE(m_fake->count("remove"), 3);
    QCOMPARE(int(m_clock.waits.size()), 2);
    QVERIFY(st.error().temporary());
    const std::string message = st.error().message();
    QVERIFY2(message.find("gave up after 3 attempts") != std::string::npos, message.c_str());

    RetryPolicy once;
    once.maxAttempts = 1;
    RetryLayer single(m_fake, m_clock.policy(once));
    m_fake->calls.clear();
    QVERIFY(!single.remove("/a", {}).ok());
    QCOMPARE(m_fake->count("remove"), 1);
}

void TestRetry::timeBudgetRespected()
{
    RetryPolicy p;
    p.maxAttempts = 1000;
    p.initialDelay = milliseconds(100);
    p.maxDelay = milliseconds(400);
    p.budget = milliseconds(1000);
    RetryLayer retry(m_fake, m_clock.policy(p));
    for (int i = 0; i < 1000; ++i)
        m_fake->script.push_back(temporaryError(i));
    auto st = retry.copy("/a", "/b");
    QVERIFY(!st.ok());
    QVERIFY2(m_clock.slept() <= p.budget, std::to_string(m_clock.slept().count()).c_str());
    // Waits of at most 400 ms fit at least twice in a second: it did retry, then stopped.
    QVERIFY(m_fake->count("copy") >= 3);
    QVERIFY(m_fake->count("copy") < 1000);
    QCOMPARE(m_fake->count("copy"), int(m_clock.waits.size()) + 1);
    const std::string message = st.error().message();
    const std::string attempts = "gave up after " + std::to_string(m_fake->count("copy")) + " attempts";
    QVERIFY2(message.find(attempts) != std::string::npos, message.c_str());
    QVERIFY2(message.find("1000 ms") != std::string::npos, message.c_str());
}

void TestRetry::slowAttemptsCountAgainstBudget()
{
    RetryPolicy p;
    p.maxAttempts = 100;
    p.initialDelay = milliseconds(50);
    p.budget = milliseconds(1000);
    RetryLayer retry(m_fake, m_clock.policy(p));
    const auto start = m_clock.now;
    std::vector<milliseconds> attemptStarts;
    m_fake->onCall = [&] {
        attemptStarts.push_back(std::chrono::duration_cast<milliseconds>(m_clock.now - start));
        m_clock.now += milliseconds(300); // each attempt takes 300 ms
    };
    for (int i = 0; i < 100; ++i)
        m_fake->script.push_back(temporaryError(i));
    QVERIFY(!retry.extents("/a").ok());
    QVERIFY(attemptStarts.size() >= 2);
    // 300 ms attempts plus waits: only three or four fit in one second.
    QVERIFY(attemptStarts.size() <= 4);
    for (auto t : attemptStarts)
        QVERIFY2(t <= p.budget, std::to_string(t.count()).c_str());
}

void TestRetry::backoffGrowsJitteredAndCapped()
{
    RetryPolicy p;
    p.initialDelay = milliseconds(100);
    p.maxDelay = milliseconds(1000);
    p.multiplier = 2.0;
    RetryLayer retry(m_fake, m_clock.policy(p));
    double previousMean = 0;
    for (int attempt = 1; attempt <= 8; ++attempt) {
        const double full = fullDelay(p, attempt);
        std::set<long long> distinct;
        double sum = 0;
        const int samples = 300;
        for (int i = 0; i < samples; ++i) {
            const auto wait = retry.backoff(attempt).count();
            QVERIFY2(wait >= std::llround(full / 2) && wait <= std::llround(full),
                     (std::to_string(attempt) + ": " + std::to_string(wait)).c_str());
            distinct.insert(wait);
            sum += double(wait);
        }
        const double mean = sum / samples;
        // Uniform in [full/2, full]: the mean sits near 3/4 of full, not at an end.
        QVERIFY2(mean > full * 0.65 && mean < full * 0.85, std::to_string(mean).c_str());
        QVERIFY2(distinct.size() > 10, "backoff is not jittered");
        if (full < double(p.maxDelay.count()))
            QVERIFY(mean > previousMean * 1.6); // doubles while below the cap
        previousMean = mean;
    }
    QVERIFY(retry.backoff(60).count() <= p.maxDelay.count());
    QVERIFY(retry.backoff(60).count() >= p.maxDelay.count() / 2);
}

void TestRetry::retryWaitsFollowBackoff()
{
    RetryPolicy p;
    p.maxAttempts = 6;
    p.initialDelay = milliseconds(10);
    p.maxDelay = milliseconds(60);
    RetryLayer retry(m_fake, m_clock.policy(p));
    for (int i = 0; i < 5; ++i)
        m_fake->script.push_back(temporaryError(i));
    REQUIRE_OK(retry.stat("/a"));
    QCOMPARE(int(m_clock.waits.size()), 5);
    for (int i = 0; i < 5; ++i) {
        const double full = fullDelay(p, i + 1);
        const auto w = m_clock.waits[std::size_t(i)].count();
        QVERIFY2(w >= std::llround(full / 2) && w <= std::llround(full), std::to_string(w).c_str());
    }
}

void TestRetry::renameNotRetried()
{
    RetryLayer retry(m_fake, m_clock.policy());
    m_fake->script = {Error(ErrorKind::Timeout), Error(ErrorKind::Timeout)};
    REQUIRE_KIND(retry.rename("/a", "/b", true), ErrorKind::Timeout);
    QCOMPARE(m_fake->count("rename"), 1);
    QVERIFY(m_clock.waits.empty());
}

void TestRetry::createDirAlreadyExistsAfterRetryIsSuccess()
{
    RetryLayer retry(m_fake, m_clock.policy());
    // The first attempt may have created it although its reply was lost.
    m_fake->script = {Error(ErrorKind::Timeout), Error(ErrorKind::AlreadyExists)};
    REQUIRE_OK(retry.createDir("/d"));
    QCOMPARE(m_fake->count("createDir"), 2);

    // Without an earlier attempt, AlreadyExists is the truth.
    m_fake->calls.clear();
    m_fake->script = {Error(ErrorKind::AlreadyExists)};
    REQUIRE_KIND(retry.createDir("/d"), ErrorKind::AlreadyExists);
    QCOMPARE(m_fake->count("createDir"), 1);
}

void TestRetry::writeRetriedOnlyWhenOpening()
{
    RetryLayer retry(m_fake, m_clock.policy());
    m_fake->script = {Error(ErrorKind::Network)};
    m_fake->writerFailure = Error(ErrorKind::Network);
    auto writer = retry.write("/f", {});
    REQUIRE_OK(writer);
    QCOMPARE(m_fake->count("write"), 2);
    // Bytes handed to a writer are not replayed: the writer's error comes straight back.
    REQUIRE_KIND((*writer)->write(asBytes("abc")), ErrorKind::Network);
    QCOMPARE(int(m_clock.waits.size()), 1);
}

void TestRetry::capabilityLayerRefusesUndeclared()
{
    m_fake->caps = {Capability::Stat, Capability::Read, Capability::List};
    CapabilityLayer layer(m_fake);
    std::vector<std::byte> buffer(4);
    REQUIRE_KIND(layer.copy("/a", "/b"), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.rename("/a", "/b", true), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.extents("/a"), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.write("/a", {}), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.remove("/a", {}), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.createDir("/a"), ErrorKind::Unsupported);
    REQUIRE_KIND(layer.read("/a", 10, buffer), ErrorKind::Unsupported); // no RangedRead
    ListOptions recursive;
    recursive.recursive = true;
    REQUIRE_KIND(layer.list("/", recursive), ErrorKind::Unsupported);
    QVERIFY2(m_fake->calls.empty(), m_fake->callsText().c_str());
    auto refused = layer.copy("/a", "/b");
    QVERIFY(refused.error().message().find("'copy'") != std::string::npos);

    // What is declared goes through.
    REQUIRE_OK(layer.stat("/a"));
    REQUIRE_OK(layer.read("/a", 0, buffer));
    REQUIRE_OK(layer.list("/", {}));
    QCOMPARE(int(m_fake->calls.size()), 3);
}

void TestRetry::operatorRefusesClimbingPaths()
{
    Operator op(m_fake, OperatorOptions{std::nullopt, {}});
    std::vector<std::byte> buffer(4);
    REQUIRE_KIND(op.stat("/a/../../etc/passwd"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.read("/..", 0, buffer), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.write("../x"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.list("/a/../.."), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.remove("/../x"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.rename("/ok", "/../escaped"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.copy("/../../secret", "/here"), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.createDir("/x/../../y", true), ErrorKind::InvalidInput);
    REQUIRE_KIND(op.stat(std::string_view("/a\0b", 4)), ErrorKind::InvalidInput);
    QVERIFY2(m_fake->calls.empty(), m_fake->callsText().c_str());

    auto refused = op.stat("/a/../../etc/passwd");
    QCOMPARE(refused.error().operation(), std::string("stat"));
    QVERIFY(refused.error().message().find("SECRETVALUE") == std::string::npos);

    // Normalised paths reach the backend in their normal form.
    REQUIRE_OK(op.stat("/a/./b/../c//"));
    QCOMPARE(m_fake->calls.back(), std::string("stat /a/c"));
}

void TestRetry::operatorErrorsCarryContextWithoutSecrets()
{
    Operator op(m_fake, OperatorOptions{std::nullopt, {}});
    m_fake->script = {Error(ErrorKind::NotFound, "no such key")};
    auto entry = op.stat("/dir/x.txt");
    REQUIRE_KIND(entry, ErrorKind::NotFound);
    const Error &e = entry.error();
    QCOMPARE(e.operation(), std::string("stat"));
    QCOMPARE(e.uri(), m_fake->uriFor("/dir/x.txt").redacted());
    const std::string message = e.message();
    QVERIFY2(message.starts_with("cannot stat s3://REDACTED@bucket/dir/x.txt"), message.c_str());
    QVERIFY2(message.find("region=eu-west-1") != std::string::npos, message.c_str());
    QVERIFY2(message.find("no such key") != std::string::npos, message.c_str());
    for (const char *secret : {"SECRETVALUE", "TOKENVALUE", "AKIA"})
        QVERIFY2(message.find(secret) == std::string::npos, message.c_str());

    // A writer's errors get the same context.
    m_fake->writerFailure = Error(ErrorKind::NoSpace);
    auto writer = op.write("/big.bin");
    REQUIRE_OK(writer);
    auto st = (*writer)->write(asBytes("data"));
    REQUIRE_KIND(st, ErrorKind::NoSpace);
    QCOMPARE(st.error().operation(), std::string("write"));
    QVERIFY(st.error().uri().ends_with("/big.bin?region=eu-west-1&token=REDACTED"));
}

void TestRetry::operatorCountsCallsErrorsAndBytes()
{
    Operator op(m_fake, OperatorOptions{std::nullopt, {}});
    std::vector<std::byte> buffer(100);
    for (int i = 0; i < 3; ++i)
        REQUIRE_OK(op.stat("/a"));
    m_fake->script = {Error(ErrorKind::NotFound)};
    REQUIRE_KIND(op.stat("/missing"), ErrorKind::NotFound);
    REQUIRE_OK(op.read("/a", 0, buffer));
    REQUIRE_OK(op.read("/a", 100, std::span(buffer).first(30)));
    auto writer = op.write("/w");
    REQUIRE_OK(writer);
    for (int i = 0; i < 3; ++i)
        REQUIRE_OK((*writer)->write(std::span<const std::byte>(buffer).first(50)));
    REQUIRE_OK((*writer)->commit());
    // Refused before the backend: not a backend call.
    REQUIRE_KIND(op.stat("/.."), ErrorKind::InvalidInput);

    const auto stat = op.counters(Operation::Stat);
    QCOMPARE(stat.calls, std::uint64_t(4));
    QCOMPARE(stat.errors, std::uint64_t(1));
    const auto read = op.counters(Operation::Read);
    QCOMPARE(read.calls, std::uint64_t(2));
    QCOMPARE(read.errors, std::uint64_t(0));
    QCOMPARE(read.bytes, std::uint64_t(130));
    QCOMPARE(op.counters(Operation::OpenWriter).calls, std::uint64_t(1));
    const auto write = op.counters(Operation::WriterWrite);
    QCOMPARE(write.calls, std::uint64_t(3));
    QCOMPARE(write.bytes, std::uint64_t(150));
    QCOMPARE(op.counters(Operation::WriterCommit).calls, std::uint64_t(1));
    QCOMPARE(op.counters(Operation::Remove).calls, std::uint64_t(0));
}

void TestRetry::metricsSeeEveryAttempt()
{
    OperatorOptions options;
    options.retry = m_clock.policy();
    Operator op(m_fake, std::move(options));
    m_fake->script = {Error(ErrorKind::Timeout), Error(ErrorKind::Busy)};
    REQUIRE_OK(op.stat("/a"));
    const auto stat = op.counters(Operation::Stat);
    QCOMPARE(stat.calls, std::uint64_t(3));
    QCOMPARE(stat.errors, std::uint64_t(2));
    QCOMPARE(int(m_clock.waits.size()), 2);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestRetry)
#include "test_retry.moc"
