// Faults one file at a time: hostile names, refused reads, a blocked directory. The rest
// of the batch completes, and the report names each failing file in one sentence.
#include "tests/transfer/transfer_suite.h"

#include <QElapsedTimer>

#include <algorithm>
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

namespace strata::test {

namespace {

Entry rawEntry(std::string name, std::string path, EntryKind kind)
{
    Entry e;
    e.name = std::move(name);
    e.path = std::move(path);
    e.kind = kind;
    e.size = kind == EntryKind::File ? 4 : 0;
    return e;
}

bool mentions(const FileFailure &f, const std::string &text)
{
    return f.source.find(text) != std::string::npos || f.destination.find(text) != std::string::npos;
}

void checkSentence(const FileFailure &f)
{
    QVERIFY(!f.message.empty());
    QVERIFY2(f.message.find('\n') == std::string::npos, f.message.c_str());
}

// Why a job did not fail because of exactly one file, `name`, with an error of `kind`
// told in one sentence, the `copied` others done; empty when it did.
std::string notFailedAlone(JobState state, const TransferReport &report, std::uint64_t copied, ErrorKind kind,
                           const std::string &name)
{
    if (state != JobState::Failed)
        return "the job ended " + std::string(toString(state));
    if (report.filesCopied != copied)
        return std::to_string(report.filesCopied) + " files copied, not " + std::to_string(copied);
    if (report.failures.size() != 1)
        return std::to_string(report.failures.size()) + " failures";
    const auto &f = report.failures[0];
    if (f.kind != kind || !mentions(f, name) || f.message.find(name) == std::string::npos
        || f.message.find('\n') != std::string::npos)
        return "not the failure expected: " + std::string(identifier(f.kind)) + ": " + f.message;
    return {};
}

// While alive, files of this process cannot grow past `bytes`: writes beyond fail with
// EFBIG, as they would with ENOSPC on a full disk (no mount needed).
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        ::getrlimit(RLIMIT_FSIZE, &m_old);
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = m_old;
        limit.rlim_cur = bytes;
        m_ok = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }
    bool ok() const { return m_ok; }

private:
    rlimit m_old{};
    void (*m_oldHandler)(int) = nullptr;
    bool m_ok = false;
};

} // namespace

void TransferSuite::hostileNamesRefused()
{
    // What a broken or malicious server could list: names that climb, nest or vanish.
    m_fake->addDir("/evil");
    m_fake->addFile("/evil/ok.txt", {std::byte('f'), std::byte('i'), std::byte('n'), std::byte('e')});
    const std::vector<Entry> hostile{
        rawEntry("..", "/evil/..", EntryKind::File),
        rawEntry("..", "/", EntryKind::Directory),
        rawEntry(".", "/evil", EntryKind::Directory),
        rawEntry("a/b", "/evil/a/b", EntryKind::File),
        rawEntry("/etc/passwd", "/etc/passwd", EntryKind::File),
        rawEntry("", "/evil/", EntryKind::File),
        rawEntry(std::string("nul\0byte", 8), "/evil/nul", EntryKind::File),
    };
    for (const auto &e : hostile)
        m_fake->addRawEntry("/evil", e);
    auto o = options();
    o.recursive = true;
    auto out = run(spec({"fake://store/evil"}, m_dst->uri(), o));
    QCOMPARE_STATE(out.state, JobState::Failed);
    QCOMPARE(out.report.filesCopied, 1u);
    QCOMPARE(out.report.failures.size(), hostile.size());
    for (const auto &f : out.report.failures) {
        QCOMPARE(f.kind, ErrorKind::InvalidInput);
        checkSentence(f);
    }
    QCOMPARE(digest(m_dst->op(), m_dst->path("evil/ok.txt")),
             digest(*m_registry->open("fake://store/evil/ok.txt")->op, "/evil/ok.txt"));
    // Nothing beside the copy, nothing outside the destination root.
    QCOMPARE(names(m_dst->op(), m_dst->path("evil")), std::vector<std::string>{"ok.txt"});
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{"evil"});
    QCOMPARE(names(m_dst->op(), m_dst->parentPath()), std::vector<std::string>{"root"});
}

void TransferSuite::unreadableFileFailsAlone()
{
    m_fake->addDir("/tree");
    m_fake->addDir("/tree/sub");
    for (const std::string name : {"/tree/a.txt", "/tree/b.txt", "/tree/c.txt", "/tree/sub/d.txt"})
        m_fake->addFile(name, pattern(5000, name.size()));
    m_fake->denyRead("/tree/b.txt");
    auto o = options();
    o.recursive = true;
    auto out = run(spec({"fake://store/tree"}, m_dst->uri(), o));
    const auto why = notFailedAlone(out.state, out.report, 3, ErrorKind::PermissionDenied, "b.txt");
    QVERIFY2(why.empty(), why.c_str());
    QCOMPARE(out.report.filesFailed, 1u);
    QCOMPARE(m_observer.failures(out.id).size(), std::size_t(1));
    QCOMPARE(names(m_dst->op(), m_dst->path("tree")), (std::vector<std::string>{"a.txt", "c.txt", "sub"}));
    QVERIFY(exists(m_dst->op(), m_dst->path("tree/sub/d.txt")));

    // Once the file can be read, a retry copies only it.
    m_fake->allowRead("/tree/b.txt");
    QVERIFY(m_queue->retry(out.id));
    auto again = finish(out.id);
    REQUIRE_COMPLETED(again);
    QCOMPARE(again.report.bytesCopied, 5000u);
    QCOMPARE(names(m_dst->op(), m_dst->path("tree")), (std::vector<std::string>{"a.txt", "b.txt", "c.txt", "sub"}));
    QVERIFY(journalFiles().empty());
}

void TransferSuite::blockedDirectoryFailsItsFilesOnly()
{
    if (!m_dst->caps().has(Capability::RealDirectories))
        QSKIP("keys imply directories here: a file and a directory of one name can coexist");
    for (const std::string dir : {"t/blocked", "t/other"})
        QVERIFY(makeDirs(m_src->op(), m_src->path(dir)));
    const std::vector<std::string> files{"t/ok1.txt", "t/ok2.txt", "t/blocked/x.txt", "t/blocked/y.txt",
                                         "t/other/z.txt"};
    for (std::size_t i = 0; i < files.size(); ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path(files[i]), 2000, i));
    // A file stands where the copy needs the directory t/blocked.
    QVERIFY(makeDirs(m_dst->op(), m_dst->path("t")));
    QVERIFY(putBytes(m_dst->op(), m_dst->path("t/blocked"), asBytes("in the way")));
    auto o = options();
    o.recursive = true;
    auto out = run(spec({m_src->uri("t")}, m_dst->uri(), o));
    QCOMPARE_STATE(out.state, JobState::Failed);
    QCOMPARE(out.report.filesCopied, 3u);
    QVERIFY(!out.report.failures.empty());
    QVERIFY(out.report.failures.size() <= 3); // the directory, and its two files
    for (const auto &f : out.report.failures) {
        QVERIFY2(mentions(f, "/t/blocked"), f.message.c_str());
        checkSentence(f);
    }
    for (const std::string name : {"x.txt", "y.txt"})
        QVERIFY2(std::any_of(out.report.failures.begin(), out.report.failures.end(),
                             [&](const FileFailure &f) { return mentions(f, name); }),
                 name.c_str());
    for (const std::string ok : {"t/ok1.txt", "t/ok2.txt", "t/other/z.txt"})
        QCOMPARE(digest(m_dst->op(), m_dst->path(ok)), digest(m_src->op(), m_src->path(ok)));
    QCOMPARE(m_dst->op().stat(m_dst->path("t/blocked"))->size, 10u);
}

void TransferSuite::flakyReadsAreRetried()
{
    // Temporary errors are retried by the operator's retry layer; an outage longer than
    // its retries costs the file another try (the whole file again), not the job; one that
    // never clears fails its file after the retries, and only that file.
    m_fake->addDir("/flaky");
    for (const std::string name : {"/flaky/hiccup.bin", "/flaky/outage.bin", "/flaky/dead.bin", "/flaky/fine.bin"})
        m_fake->addFile(name, pattern(100'000, name.size()));
    m_fake->failReads("/flaky/hiccup.bin", 2);
    m_fake->failReads("/flaky/outage.bin", 7); // the retry layer gives up after 5
    m_fake->failReads("/flaky/dead.bin", -1);
    auto o = options();
    o.recursive = true;
    auto out = run(spec({"fake://store/flaky"}, m_dst->uri(), o));
    const auto why = notFailedAlone(out.state, out.report, 3, ErrorKind::Network, "dead.bin");
    QVERIFY2(why.empty(), why.c_str());
    QCOMPARE(names(m_dst->op(), m_dst->path("flaky")),
             (std::vector<std::string>{"fine.bin", "hiccup.bin", "outage.bin"}));
    for (const std::string name : {"flaky/hiccup.bin", "flaky/outage.bin"})
        QCOMPARE(digest(m_dst->op(), m_dst->path(name)), digest(*m_registry->open("fake://store/")->op, "/" + name));
    // Counted once: the failed try's bytes are not left in the progress.
    QVERIFY2(out.report.bytesCopied <= 300'000, std::to_string(out.report.bytesCopied).c_str());
}

void TransferSuite::distantSourceReadInFinerParts()
{
    // A storage that wants 8 ranges of a file at once (an SFTP server far away): a 24 MiB
    // file, below the 32 MiB part size, is cut into 8 parts of 3 MiB read side by side, and
    // arrives whole. A destination written in order (FTP) or one stream per object takes
    // it in one part, one read at a time, and so does a job that says how many parts.
    // Reads of 20 ms: long enough to overlap however slowly the copy's own work runs
    // (under TSan, 3 ms reads overlapped only two at a time).
    m_fake->setStreams(8, std::chrono::milliseconds(20));
    m_fake->addFile("/far.bin", pattern(24u << 20, 24));
    auto o = options();
    o.partSize = 32u << 20;
    REQUIRE_COMPLETED(run(spec({"fake://store/far.bin"}, m_dst->uri("far.bin"), o)));
    QCOMPARE(digest(m_dst->op(), m_dst->path("far.bin")), digest(*m_registry->open("fake://store/")->op, "/far.bin"));
    const bool sideBySide = m_dst->op().capabilities().has(Capability::PositionalWrite)
        && !m_dst->op().oneStreamPerObject(Backend::Flow::Writing);
    const auto most = m_fake->mostReadsAtOnce();
    if (sideBySide)
        QVERIFY2(most >= 4, std::to_string(most).c_str());
    else
        QCOMPARE(most, std::size_t(1));
    m_fake->setStreams(8); // counted afresh
    o.partsInFlight = 1;
    REQUIRE_COMPLETED(run(spec({"fake://store/far.bin"}, m_dst->uri("again.bin"), o)));
    QCOMPARE(m_fake->mostReadsAtOnce(), std::size_t(1));
}

void TransferSuite::distantSourceHasMoreFilesInFlight()
{
    // A storage that wants 16 connections busy (an FTP server far away, whose files cost a
    // connection some eight round trips each): 48 small files go 16 at a time, not the
    // default 8, and all arrive; a job that says --jobs 4 keeps to 4. Each read takes 40 ms,
    // so the reads overlap even on a loaded machine (at 3 ms, CI saw no more than 8).
    const auto readTime = std::chrono::milliseconds(40);
    m_fake->setStreams(16, readTime);
    m_fake->addDir("/many");
    for (int i = 0; i < 48; ++i)
        m_fake->addFile("/many/f" + std::to_string(i), pattern(4096 + std::size_t(i), std::uint8_t(i)));
    auto o = options();
    o.recursive = true;
    REQUIRE_COMPLETED(run(spec({"fake://store/many"}, m_dst->uri("many"), o)));
    for (int i = 0; i < 48; ++i) {
        const std::string name = "f" + std::to_string(i);
        QCOMPARE(digest(m_dst->op(), m_dst->path("many/" + name)),
                 digest(*m_registry->open("fake://store/")->op, "/many/" + name));
    }
    // Counted where the reads are most of a file's time: a local or memory destination.
    // (Into a server, each file's few-millisecond read seldom meets another's.)
    const bool readsDominate = m_dst->localPath().has_value() || m_dst->uri().starts_with("memory:");
    const auto most = m_fake->mostReadsAtOnce();
    QVERIFY2(most <= 16 && (most > 8 || !readsDominate), std::to_string(most).c_str());
    m_fake->setStreams(16, readTime); // counted afresh
    o.jobs = 4;
    REQUIRE_COMPLETED(run(spec({"fake://store/many"}, m_dst->uri("four"), o)));
    QVERIFY2(m_fake->mostReadsAtOnce() <= 4, std::to_string(m_fake->mostReadsAtOnce()).c_str());
}

void TransferSuite::resumedCopyIsCutAsBefore()
{
    // A copy begun when the source wanted 8 streams (48 MiB in 8 parts of 6 MiB, two at a
    // time: two buffers) and resumed when it wants none (the round trip measured again):
    // the resumed run cuts the file as the first did, so the parts done are kept. (A
    // destination written in order takes it in 32 MiB parts: none is whole at the pause.)
    const bool keeps = keepsPartialState(m_dst->op(), m_dst->path())
        && m_dst->op().capabilities().has(Capability::PositionalWrite)
        && !m_dst->op().oneStreamPerObject(Backend::Flow::Writing);
    m_fake->setStreams(8);
    m_fake->addFile("/cut.bin", pattern(48u << 20, 48));
    auto o = options();
    o.partSize = 32u << 20;
    o.maxBytesInFlight = 2u << 20;
    o.bandwidthLimit = 48'000'000;
    const auto id = start(spec({"fake://store/cut.bin"}, m_dst->uri("cut.bin"), o));
    QVERIFY(pauseAfter(id, 26u << 20));
    m_fake->setStreams(0);
    auto out = resumeUnthrottled(id, o);
    REQUIRE_COMPLETED(out);
    QCOMPARE(digest(m_dst->op(), m_dst->path("cut.bin")), digest(*m_registry->open("fake://store/")->op, "/cut.bin"));
    QCOMPARE(out.report.bytesCopied + out.report.bytesResumed, std::uint64_t(48u << 20));
    if (keeps)
        QVERIFY2(out.report.bytesResumed >= (12u << 20), std::to_string(out.report.bytesResumed).c_str());
}

void TransferSuite::oneStreamSourcesOverlapSafely()
{
    // A source of one stream per object (FTP, SFTP) has each buffer written on a part
    // worker while the next is read. With one buffer for the whole job, two, or plenty,
    // three files at once, a read failing midway (while a write is in flight) and files of
    // 0 and 1 bytes: every file arrives whole, and the job ends.
    m_fake->setOneStream(true);
    m_fake->addDir("/one");
    const std::vector<std::pair<std::string, std::size_t>> files{{"/one/a.bin", (11u << 20) / 2},
                                                                 {"/one/b.bin", 3u << 20},
                                                                 {"/one/c.bin", 1},
                                                                 {"/one/e.bin", 0},
                                                                 {"/one/flaky.bin", (21u << 20) / 5}};
    for (const auto &[name, size] : files)
        m_fake->addFile(name, pattern(size, name.size() + size));
    int round = 0;
    for (const std::uint64_t inFlight : {1u << 20, 2u << 20, 64u << 20}) {
        m_fake->failReads("/one/flaky.bin", 2, 2u << 20);
        auto o = options();
        o.recursive = true;
        o.jobs = 3;
        o.maxBytesInFlight = inFlight;
        const std::string into = "round" + std::to_string(++round);
        QVERIFY(m_dst->op().createDir(m_dst->path(into)));
        auto out = run(spec({"fake://store/one"}, m_dst->uri(into), o));
        QVERIFY2(out.state == JobState::Completed, std::string(toString(out.state)).c_str());
        for (const auto &[name, size] : files) {
            const std::string rel = into + name;
            QCOMPARE(m_dst->op().stat(m_dst->path(rel))->size, std::uint64_t(size));
            QCOMPARE(digest(m_dst->op(), m_dst->path(rel)), digest(*m_registry->open("fake://store/")->op, name));
        }
    }
    // One job of both kinds (one stream from the fake store, parallel parts from the other
    // source), two buffers in all: neither kind waits on the other's work.
    QVERIFY(makeDirs(m_src->op(), m_src->path("parts")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("parts/large.bin"), (20u << 20) + 5, 8)); // three parts
    auto o = options();
    o.recursive = true;
    o.jobs = 3;
    o.maxBytesInFlight = 2u << 20;
    QVERIFY(m_dst->op().createDir(m_dst->path("mixed")));
    auto out = run(spec({"fake://store/one", m_src->uri("parts")}, m_dst->uri("mixed"), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(digest(m_dst->op(), m_dst->path("mixed/parts/large.bin")),
             digest(m_src->op(), m_src->path("parts/large.bin")));
    QCOMPARE(digest(m_dst->op(), m_dst->path("mixed/one/a.bin")),
             digest(*m_registry->open("fake://store/")->op, "/one/a.bin"));
    m_fake->setOneStream(false);
}

void TransferSuite::unreachableStorageStopsTrying()
{
    // Once a file has failed even after its retries, the storage is taken as gone: the
    // files not started yet fail at once ("not copied", to resume later) instead of each
    // spending its own retries.
    m_fake->addDir("/gone");
    for (const std::string name : {"/gone/a.bin", "/gone/b.bin", "/gone/c.bin", "/gone/d.bin"}) {
        m_fake->addFile(name, pattern(10'000, name.size()));
        m_fake->failReads(name, -1);
    }
    auto o = options();
    o.recursive = true;
    o.jobs = 1;
    auto out = run(spec({"fake://store/gone"}, m_dst->uri(), o));
    QVERIFY2(out.state == JobState::Failed, std::string(toString(out.state)).c_str());
    QCOMPARE(out.report.failures.size(), std::size_t(4));
    const auto notTried =
        std::count_if(out.report.failures.begin(), out.report.failures.end(), [](const FileFailure &f) {
            return f.message.starts_with("not copied ")
                && f.message.find("run the same command again") != std::string::npos;
        });
    QCOMPARE(notTried, 3);
    for (const auto &f : out.report.failures)
        QVERIFY2(f.kind == ErrorKind::Network && f.message.find('\n') == std::string::npos, f.message.c_str());
    QVERIFY(names(m_dst->op(), m_dst->path("gone")).empty());
}

void TransferSuite::destinationFullFailsThatFile()
{
    if (!m_dst->localPath())
        QSKIP("fills a local destination; remote stores report a full disk in their own tests");
    QVERIFY(makeDirs(m_src->op(), m_src->path("full")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("full/huge.bin"), 40u << 20, 1));
    for (const std::string name : {"full/a", "full/b"})
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path(name), 1000, name.size()));
    auto o = options();
    o.recursive = true;
    Outcome out;
    {
        FileSizeLimit nearlyFull(16u << 20);
        QVERIFY(nearlyFull.ok());
        out = run(spec({m_src->uri("full")}, m_dst->uri(), o));
    }
    const auto why = notFailedAlone(out.state, out.report, 2, ErrorKind::NoSpace, "huge.bin");
    QVERIFY2(why.empty(), why.c_str());
    // Nothing half-written under the name, and no partial file left beside it.
    QCOMPARE(names(m_dst->op(), m_dst->path("full")), (std::vector<std::string>{"a", "b"}));
}

void TransferSuite::linksAreNamedNotFollowed()
{
    const auto local = m_src->localPath("linked");
    if (!local || !m_src->caps().has(Capability::Symlinks))
        QSKIP("needs a source that reports symbolic links");
    QVERIFY(makeDirs(m_src->op(), m_src->path("linked/real")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("linked/real/file"), 1000, 1));
    QVERIFY(::symlink("real", (*local + "/to-dir").c_str()) == 0);
    QVERIFY(::symlink("/etc/passwd", (*local + "/to-outside").c_str()) == 0);
    auto o = options();
    o.recursive = true;
    auto out = run(spec({m_src->uri("linked")}, m_dst->uri(), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(out.report.filesCopied, 1u);
    QCOMPARE(out.report.notCopied.size(), std::size_t(2));
    for (const auto &item : out.report.notCopied)
        QVERIFY2(item.source.find("/to-") != std::string::npos && item.reason.find("link") != std::string::npos,
                 item.reason.c_str());
    QCOMPARE(names(m_dst->op(), m_dst->path("linked")), std::vector<std::string>{"real"});
}

} // namespace strata::test
