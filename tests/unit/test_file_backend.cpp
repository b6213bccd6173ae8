// FileBackend on a temporary root: confinement against symlinks, writers that leave
// nothing behind, permissions, holes, and the errors of a real kernel (EACCES, ENOSPC).
#include "tests/unit/unit_checks.h"

#include "backends/fs/file_backend.h"
#include "core/storage/operator.h"
#include "tests/lib/forwarding_backend.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <set>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace strata {

namespace {

constexpr std::size_t kMiB = 1u << 20;
constexpr int kNobody = 65534;

// Child exit codes: 100 + ErrorKind for an expected failure, the others say what went wrong.
constexpr int kCodeBase = 100;
constexpr int kCodeSucceeded = 91;
constexpr int kCodeCannotReachRoot = 90;
constexpr int kCodeCannotDropPrivileges = 92;

int codeFor(ErrorKind kind)
{
    return kCodeBase + int(kind);
}

std::string describeCode(int code)
{
    if (code >= kCodeBase)
        return "error " + std::string(identifier(ErrorKind(code - kCodeBase)));
    return "child exit code " + std::to_string(code);
}

std::string readRaw(const std::string &path)
{
    std::string out;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        out.append(buf, std::size_t(n));
    ::close(fd);
    return out;
}

bool writeRaw(const std::string &path, std::string_view data, mode_t mode = 0644)
{
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, data.data(), data.size()) == ssize_t(data.size());
    ::close(fd);
    return ok && ::chmod(path.c_str(), mode) == 0;
}

bool exists(const std::string &path)
{
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

// Every name in a directory, hidden ones included (a leftover ".strata-*.part" shows).
std::set<std::string> namesIn(const std::string &dir)
{
    std::set<std::string> names;
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return {"<cannot open " + dir + ">"};
    while (const dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..")
            names.insert(name);
    }
    ::closedir(d);
    return names;
}

std::string joined(const std::set<std::string> &names)
{
    std::string out;
    for (const auto &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Runs `body` in a forked child and returns its exit code (or -1 when it did not exit).
template <typename F>
int inChild(F &&body)
{
    const pid_t pid = ::fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        ::_exit(body()); // no Qt or atexit teardown in the child
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

bool dropToNobody()
{
    return ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0
        && ::geteuid() == uid_t(kNobody);
}

// Writes 4 MiB of incompressible, non-zero data; the code of the error that stopped it.
int fillUp(Backend &backend, std::string_view path)
{
    auto writer = backend.write(path, {});
    if (!writer)
        return codeFor(writer.error().kind());
    const auto chunk = patternBytes(256 * 1024, 5);
    for (int i = 0; i < 16; ++i) {
        if (auto st = (*writer)->write(chunk); !st) {
            (*writer)->abort();
            return codeFor(st.error().kind());
        }
    }
    auto st = (*writer)->commit();
    return st ? kCodeSucceeded : codeFor(st.error().kind());
}

} // namespace

class TestFileBackend : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void symlinksNeverReadOutside();
    void symlinksNeverWriteOutside();
    void abortLeavesNothing_data();
    void abortLeavesNothing();
    void destroyedWriterLeavesNothing();
    void commitLeavesOnlyTheDestination();
    void overwriteKeepsPermissionBits_data();
    void overwriteKeepsPermissionBits();
    void newFileTakesSourceMode_data();
    void newFileTakesSourceMode();
    void resumedPartMustBeOurs_data();
    void resumedPartMustBeOurs();
    void setPermissionsNeverThroughLinks();
    void readerKeepsWhatItOpened();
    void readerRefusesAnotherFileOrALink();
    void confinedWritesFollowNoLink();
    void removeAllFollowsNoLinkSwappedIn();
    void renameNeverReplacesUnlessAsked();
    void noOverwriteRefusesExisting();
    void noOverwriteLosesRaceCleanly();
    void writingWhereADirectoryIs();
    void writingIntoMissingParent();
    void zerosBecomeHoles();
    void trailingZerosKeepTheLength();
    void zerosOverWrittenBytesReadAsZeros();
    void copyKeepsSparseFileSparse();
    void permissionDenied();
    void diskFull();

private:
    std::string local(std::string_view rel) const { return m_root + std::string(rel); }
    std::string readBack(std::string_view path, std::size_t size);

    std::unique_ptr<QTemporaryDir> m_tmp;
    std::string m_root;
    std::shared_ptr<FileBackend> m_fs;
};

void TestFileBackend::initTestCase()
{
    ::umask(022); // new files are 0644: a kept mode shows as different
}

void TestFileBackend::init()
{
    m_tmp = std::make_unique<QTemporaryDir>();
    QVERIFY(m_tmp->isValid());
    m_root = m_tmp->path().toStdString();
    auto fs = FileBackend::open(m_root);
    REQUIRE_OK(fs);
    m_fs = *fs;
}

void TestFileBackend::cleanup()
{
    m_fs.reset();
    m_tmp.reset();
}

std::string TestFileBackend::readBack(std::string_view path, std::size_t size)
{
    std::vector<std::byte> buffer(size + 1);
    auto n = m_fs->read(path, 0, buffer);
    return n ? asString(std::span(buffer).first(*n)) : "<" + n.error().message() + ">";
}

void TestFileBackend::symlinksNeverReadOutside()
{
    const std::string passwd = readRaw("/etc/passwd");
    if (passwd.empty())
        QSKIP("no /etc/passwd to try to reach");
    QVERIFY(writeRaw(local("/inside.txt"), "hello"));
    QCOMPARE(::symlink("/etc", local("/link").c_str()), 0);
    QCOMPARE(::symlink("../../..", local("/up").c_str()), 0);
    QCOMPARE(::symlink("/etc/passwd", local("/pw").c_str()), 0);
    QCOMPARE(::symlink("../../../../../../../etc/passwd", local("/pwrel").c_str()), 0);

    auto follow = FileBackend::open(m_root, FileBackendOptions{true});
    REQUIRE_OK(follow);
    std::vector<std::byte> buffer(passwd.size() + 64);
    for (const char *path : {"/link/passwd", "/up/etc/passwd", "/pw", "/pwrel", "/up/up/etc/passwd", "/../etc/passwd",
                             "/../../../etc/passwd"}) {
        for (Backend *backend : {static_cast<Backend *>(m_fs.get()), static_cast<Backend *>(follow->get())}) {
            auto n = backend->read(path, 0, buffer);
            const std::string leaked = n ? asString(std::span(buffer).first(*n)) : std::string();
            QVERIFY2(!n.ok(), (std::string(path) + " was read: " + leaked.substr(0, 40)).c_str());
            QCOMPARE(n.error().kind(), ErrorKind::NotFound);
            REQUIRE_KIND(backend->extents(path), ErrorKind::NotFound);
            REQUIRE_KIND(backend->copy(path, "/stolen"), ErrorKind::NotFound);
            QVERIFY(!exists(local("/stolen")));
            // stat either fails or describes the link itself, never the file outside.
            auto entry = backend->stat(path);
            if (entry.ok()) {
                QCOMPARE(int(entry->kind), int(EntryKind::Symlink));
                QVERIFY(backend == m_fs.get());
                QVERIFY(entry->size != passwd.size());
            }
        }
    }
    // A link climbing out is resolved inside the root instead.
    QCOMPARE(readBack("/up/inside.txt", 100), std::string("hello"));
    REQUIRE_KIND(m_fs->list("/link", {}), ErrorKind::NotFound);
    auto up = m_fs->list("/up", {});
    REQUIRE_OK(up);
    std::set<std::string> listed;
    for (const auto &e : up->entries)
        listed.insert(e.name);
    QCOMPARE(joined(listed), joined(namesIn(m_root)));
}

void TestFileBackend::symlinksNeverWriteOutside()
{
    const std::string unique = "strata-unit-" + std::to_string(::getpid());
    const std::string parent = m_root.substr(0, m_root.rfind('/'));
    const std::vector<std::string> outside = {"/etc/" + unique, "/" + unique, parent + "/" + unique,
                                              "/tmp/" + unique + "-target"};
    auto removeStrays = qScopeGuard([&] {
        for (const auto &p : outside)
            ::unlink(p.c_str());
    });
    QVERIFY(writeRaw(local("/inside.txt"), "hello"));
    QCOMPARE(::symlink("/etc", local("/link").c_str()), 0);
    QCOMPARE(::symlink("../../..", local("/up").c_str()), 0);
    QCOMPARE(::symlink(outside[3].c_str(), local("/dangling").c_str()), 0);

    // Through a link to /etc: that directory does not exist beneath the root.
    REQUIRE_KIND(m_fs->write("/link/" + unique, {}), ErrorKind::NotFound);
    REQUIRE_KIND(m_fs->createDir("/link/" + unique), ErrorKind::NotFound);
    REQUIRE_KIND(m_fs->rename("/inside.txt", "/link/" + unique, false), ErrorKind::NotFound);
    REQUIRE_KIND(m_fs->copy("/inside.txt", "/link/" + unique), ErrorKind::NotFound);
    REQUIRE_KIND(m_fs->write("/up/tmp/" + unique, {}), ErrorKind::NotFound);

    // Through a link climbing out: the file lands inside the root.
    auto writer = m_fs->write("/up/" + unique, {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(asBytes("contained")));
    REQUIRE_OK((*writer)->commit());
    QCOMPARE(readRaw(local("/" + unique)), std::string("contained"));

    // A dangling link to a place outside is replaced, not written through.
    auto overLink = m_fs->write("/dangling", {});
    REQUIRE_OK(overLink);
    REQUIRE_OK((*overLink)->write(asBytes("replaced")));
    REQUIRE_OK((*overLink)->commit());
    struct stat st {};
    QCOMPARE(::lstat(local("/dangling").c_str(), &st), 0);
    QVERIFY(S_ISREG(st.st_mode));
    QCOMPARE(readRaw(local("/dangling")), std::string("replaced"));

    for (const auto &p : outside)
        QVERIFY2(!exists(p), (p + " was created outside the root").c_str());
    QCOMPARE(readRaw(local("/inside.txt")), std::string("hello"));
}

void TestFileBackend::abortLeavesNothing_data()
{
    QTest::addColumn<QByteArray>("resumeKey");
    QTest::newRow("unnamed temporary") << QByteArray();
    QTest::newRow("resumable temporary") << QByteArray("job-42");
}

void TestFileBackend::abortLeavesNothing()
{
    QFETCH(QByteArray, resumeKey);
    WriteOptions options;
    options.resumeKey = resumeKey.toStdString();
    auto writer = m_fs->write("/a.bin", options);
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(patternBytes(200 * 1024, 1)));
    REQUIRE_OK((*writer)->writeAt(1 * kMiB, patternBytes(1000, 2)));
    (*writer)->abort();
    (*writer)->abort(); // idempotent
    QCOMPARE(joined(namesIn(m_root)), std::string());
    REQUIRE_KIND((*writer)->write(asBytes("late")), ErrorKind::InvalidInput);
    REQUIRE_KIND((*writer)->commit(), ErrorKind::InvalidInput);
    QCOMPARE(joined(namesIn(m_root)), std::string());
}

void TestFileBackend::destroyedWriterLeavesNothing()
{
    QVERIFY(writeRaw(local("/keep.txt"), "original"));
    {
        auto fresh = m_fs->write("/new.bin", {});
        REQUIRE_OK(fresh);
        REQUIRE_OK((*fresh)->write(patternBytes(100000, 3)));
        auto replacing = m_fs->write("/keep.txt", {});
        REQUIRE_OK(replacing);
        REQUIRE_OK((*replacing)->write(asBytes("never committed")));
    }
    QCOMPARE(joined(namesIn(m_root)), std::string("keep.txt"));
    QCOMPARE(readRaw(local("/keep.txt")), std::string("original"));
}

void TestFileBackend::commitLeavesOnlyTheDestination()
{
    for (std::string_view text : {"first version", "second, longer version", "3"}) {
        auto writer = m_fs->write("/a.txt", {});
        REQUIRE_OK(writer);
        // Nothing new is visible before commit.
        QVERIFY(namesIn(m_root).size() <= 1);
        REQUIRE_OK((*writer)->write(asBytes(text)));
        REQUIRE_OK((*writer)->commit());
        QCOMPARE(joined(namesIn(m_root)), std::string("a.txt"));
        QCOMPARE(readRaw(local("/a.txt")), std::string(text));
    }
}

void TestFileBackend::overwriteKeepsPermissionBits_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("0600") << 0600;
    QTest::newRow("0640") << 0640;
    QTest::newRow("0700") << 0700;
    QTest::newRow("0755") << 0755;
}

void TestFileBackend::overwriteKeepsPermissionBits()
{
    QFETCH(int, mode);
    QVERIFY(writeRaw(local("/private"), "old", mode_t(mode)));
    auto writer = m_fs->write("/private", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(asBytes("new content")));
    REQUIRE_OK((*writer)->commit());
    struct stat st {};
    QCOMPARE(::stat(local("/private").c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), mode);
    QCOMPARE(readRaw(local("/private")), std::string("new content"));

    // A new file gets the default mode, so the check above is not vacuous.
    auto fresh = m_fs->write("/fresh", {});
    REQUIRE_OK(fresh);
    REQUIRE_OK((*fresh)->commit());
    QCOMPARE(::stat(local("/fresh").c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), 0644);
}

void TestFileBackend::newFileTakesSourceMode_data()
{
    QTest::addColumn<int>("source");
    QTest::addColumn<bool>("exact");
    QTest::addColumn<int>("expected");
    // cp: the source's bits, masked by the umask (022 here), set-ID bits dropped; cp -p: exact.
    QTest::newRow("private key") << 0600 << false << 0600;
    QTest::newRow("script") << 0755 << false << 0755;
    QTest::newRow("group writable") << 0775 << false << 0755;
    QTest::newRow("read only") << 0444 << false << 0444;
    QTest::newRow("set-uid dropped") << 04755 << false << 0755;
    QTest::newRow("exact: set-uid kept") << 04755 << true << 04755;
    QTest::newRow("exact: no umask") << 0777 << true << 0777;
}

void TestFileBackend::newFileTakesSourceMode()
{
    QFETCH(int, source);
    QFETCH(bool, exact);
    QFETCH(int, expected);
    for (const bool resumable : {false, true}) {
        WriteOptions options;
        options.mode = std::uint32_t(source);
        options.exactMode = exact;
        if (resumable)
            options.resumeKey = "mode";
        const std::string path = resumable ? "/resumed" : "/copied";
        auto writer = m_fs->write(path, options);
        REQUIRE_OK(writer);
        REQUIRE_OK((*writer)->write(asBytes("data")));
        // Private while written, whatever it becomes.
        struct stat st {};
        if (resumable) {
            QCOMPARE(::stat(local("/.strata-resume-mode.part").c_str(), &st), 0);
            QCOMPARE(int(st.st_mode & 07777), 0600);
        }
        REQUIRE_OK((*writer)->commit());
        QCOMPARE(::stat(local(path).c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 07777), expected);
    }
}

void TestFileBackend::resumedPartMustBeOurs_data()
{
    QTest::addColumn<bool>("hardLink");
    QTest::newRow("a hard link to another file") << true;
    QTest::newRow("a symlink to another file") << false;
}

void TestFileBackend::resumedPartMustBeOurs()
{
    // Someone plants the partial file's name as another name of a file they want changed.
    QFETCH(bool, hardLink);
    QVERIFY(writeRaw(local("/victim"), "precious"));
    const std::string part = local("/.strata-resume-planted.part");
    QCOMPARE(hardLink ? ::link(local("/victim").c_str(), part.c_str())
                      : ::symlink(local("/victim").c_str(), part.c_str()),
             0);
    WriteOptions options;
    options.resumeKey = "planted";
    auto writer = m_fs->write("/target", options);
    REQUIRE_OK(writer);
    QCOMPARE((*writer)->keepsPartialState(), true);
    REQUIRE_OK((*writer)->write(asBytes("new content")));
    REQUIRE_OK((*writer)->commit());
    QCOMPARE(readRaw(local("/victim")), std::string("precious"));
    QCOMPARE(readRaw(local("/target")), std::string("new content"));
}

void TestFileBackend::setPermissionsNeverThroughLinks()
{
    QVERIFY(writeRaw(local("/file"), "x", 0644));
    QCOMPARE(::symlink(local("/file").c_str(), local("/link").c_str()), 0);
    REQUIRE_OK(m_fs->setPermissions("/file", 0600, {}));
    REQUIRE_KIND(m_fs->setPermissions("/link", 0777, {}), ErrorKind::InvalidInput);
    struct stat st {};
    QCOMPARE(::stat(local("/file").c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), 0600);
}

void TestFileBackend::readerKeepsWhatItOpened()
{
    QVERIFY(writeRaw(local("/a"), "first"));
    auto listed = m_fs->stat("/a");
    REQUIRE_OK(listed);
    auto reader = m_fs->openReader("/a", *listed);
    REQUIRE_OK(reader);
    QVERIFY(writeRaw(local("/b"), "other"));
    QCOMPARE(::rename(local("/b").c_str(), local("/a").c_str()), 0);
    std::vector<std::byte> buffer(16);
    auto n = (*reader)->read(0, buffer);
    REQUIRE_OK(n);
    QCOMPARE(std::string(reinterpret_cast<const char *>(buffer.data()), *n), std::string("first"));
}

void TestFileBackend::readerRefusesAnotherFileOrALink()
{
    QVERIFY(writeRaw(local("/a"), "listed"));
    QVERIFY(writeRaw(local("/secret"), "secret", 0600));
    auto listed = m_fs->stat("/a");
    REQUIRE_OK(listed);
    QVERIFY(writeRaw(local("/b"), "swapped"));
    QCOMPARE(::rename(local("/b").c_str(), local("/a").c_str()), 0);
    REQUIRE_KIND(m_fs->openReader("/a", *listed), ErrorKind::Corrupt); // another inode
    QCOMPARE(::unlink(local("/a").c_str()), 0);
    QCOMPARE(::symlink(local("/secret").c_str(), local("/a").c_str()), 0);
    REQUIRE_KIND(m_fs->openReader("/a", *listed), ErrorKind::InvalidInput); // never followed
    Entry unknown; // no identity known (another storage's listing): the name is still no link
    REQUIRE_KIND(m_fs->openReader("/a", unknown), ErrorKind::InvalidInput);
}

void TestFileBackend::confinedWritesFollowNoLink()
{
    QCOMPARE(::mkdir(local("/dst").c_str(), 0755), 0);
    QCOMPARE(::mkdir(local("/elsewhere").c_str(), 0755), 0);
    QVERIFY(writeRaw(local("/elsewhere/x"), "x", 0644));
    QCOMPARE(::symlink(local("/elsewhere").c_str(), local("/dst/sub").c_str()), 0);
    WriteOptions options;
    options.confineBelow = "/dst";
    REQUIRE_KIND(m_fs->write("/dst/sub/f", options), ErrorKind::InvalidInput);
    REQUIRE_KIND(m_fs->write("/dst/sub/deeper/f", options), ErrorKind::InvalidInput);
    REQUIRE_KIND(m_fs->setPermissions("/dst/sub/x", 0777, "/dst"), ErrorKind::InvalidInput);
    QCOMPARE(joined(namesIn(local("/elsewhere"))), std::string("x"));
    struct stat st {};
    QCOMPARE(::stat(local("/elsewhere/x").c_str(), &st), 0);
    QCOMPARE(int(st.st_mode & 07777), 0644);
    // What the user named may itself be a link: it is taken as it resolves.
    QCOMPARE(::symlink("dst", local("/named").c_str()), 0);
    QCOMPARE(::mkdir(local("/dst/real").c_str(), 0755), 0);
    options.confineBelow = "/named";
    auto writer = m_fs->write("/named/real/f", options);
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(asBytes("ok")));
    REQUIRE_OK((*writer)->commit());
    QCOMPARE(readRaw(local("/dst/real/f")), std::string("ok"));
}

void TestFileBackend::removeAllFollowsNoLinkSwappedIn()
{
    // Between listing /dst/sub and removing what it held, /dst/sub becomes a symlink to a
    // folder holding a file of the same name: the removal must not reach through it.
    class SwapAfterListing final : public testing::ForwardingBackend {
    public:
        SwapAfterListing(std::shared_ptr<Backend> inner, std::string root)
            : ForwardingBackend(std::move(inner)), m_root(std::move(root))
        {
        }
        Result<ListPage> list(std::string_view dir, const ListOptions &options) override
        {
            auto page = ForwardingBackend::list(dir, options);
            if (dir == "/dst/sub" && !m_swapped) {
                m_swapped = ::rename((m_root + "/dst/sub").c_str(), (m_root + "/dst/sub.moved").c_str()) == 0
                    && ::symlink("../elsewhere", (m_root + "/dst/sub").c_str()) == 0;
            }
            return page;
        }

    private:
    public:
        std::string m_root;
        bool m_swapped = false;
    };
    QCOMPARE(::mkdir(local("/dst").c_str(), 0755), 0);
    QCOMPARE(::mkdir(local("/dst/sub").c_str(), 0755), 0);
    QCOMPARE(::mkdir(local("/elsewhere").c_str(), 0755), 0);
    QVERIFY(writeRaw(local("/dst/sub/f"), "mine"));
    QVERIFY(writeRaw(local("/elsewhere/f"), "not yours"));
    auto swapper = std::make_shared<SwapAfterListing>(m_fs, m_root);
    Operator op(swapper);
    auto st = op.removeAll("/dst");
    QVERIFY(swapper->m_swapped);
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message().find("symbolic link") != std::string::npos, st.error().message().c_str());
    QCOMPARE(readRaw(local("/elsewhere/f")), std::string("not yours"));
    // The same without a swap goes through, and a link named itself is removed, not followed.
    QCOMPARE(::unlink(local("/dst/sub").c_str()), 0);
    QCOMPARE(::symlink("../elsewhere", local("/dst/link").c_str()), 0);
    REQUIRE_OK(op.removeAll("/dst"));
    QVERIFY(::access(local("/dst").c_str(), F_OK) != 0);
    QCOMPARE(readRaw(local("/elsewhere/f")), std::string("not yours"));
}

void TestFileBackend::renameNeverReplacesUnlessAsked()
{
    QVERIFY(writeRaw(local("/a"), "a"));
    QVERIFY(writeRaw(local("/b"), "b"));
    REQUIRE_KIND(m_fs->rename("/a", "/b", false), ErrorKind::AlreadyExists);
    QCOMPARE(readRaw(local("/a")), std::string("a"));
    QCOMPARE(readRaw(local("/b")), std::string("b"));
    QCOMPARE(::mkdir(local("/d").c_str(), 0755), 0);
    QCOMPARE(::mkdir(local("/e").c_str(), 0755), 0);
    REQUIRE_KIND(m_fs->rename("/d", "/e", false), ErrorKind::AlreadyExists); // even an empty folder
    REQUIRE_OK(m_fs->rename("/a", "/b", true));
    QCOMPARE(readRaw(local("/b")), std::string("a"));
}

void TestFileBackend::noOverwriteRefusesExisting()
{
    QVERIFY(writeRaw(local("/taken"), "mine"));
    WriteOptions options;
    options.overwrite = false;
    REQUIRE_KIND(m_fs->write("/taken", options), ErrorKind::AlreadyExists);
    QCOMPARE(readRaw(local("/taken")), std::string("mine"));
    QCOMPARE(joined(namesIn(m_root)), std::string("taken"));
}

void TestFileBackend::noOverwriteLosesRaceCleanly()
{
    WriteOptions options;
    options.overwrite = false;
    auto writer = m_fs->write("/race", options);
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(asBytes("ours")));
    QVERIFY(writeRaw(local("/race"), "theirs")); // someone else got there first
    REQUIRE_KIND((*writer)->commit(), ErrorKind::AlreadyExists);
    QCOMPARE(readRaw(local("/race")), std::string("theirs"));
    QCOMPARE(joined(namesIn(m_root)), std::string("race"));
}

void TestFileBackend::writingWhereADirectoryIs()
{
    QCOMPARE(::mkdir(local("/d").c_str(), 0755), 0);
    QVERIFY(writeRaw(local("/d/child"), "x"));
    REQUIRE_KIND(m_fs->write("/d", {}), ErrorKind::IsDirectory);
    QCOMPARE(joined(namesIn(local("/d"))), std::string("child"));
}

void TestFileBackend::writingIntoMissingParent()
{
    REQUIRE_KIND(m_fs->write("/nope/x", {}), ErrorKind::NotFound);
    REQUIRE_KIND(m_fs->write("/nope/deeper/x", {}), ErrorKind::NotFound);
    QVERIFY(writeRaw(local("/file.txt"), "x"));
    REQUIRE_KIND(m_fs->write("/file.txt/x", {}), ErrorKind::NotDirectory);
    QCOMPARE(joined(namesIn(m_root)), std::string("file.txt"));
}

void TestFileBackend::zerosBecomeHoles()
{
    const auto head = patternBytes(kMiB, 1);
    const auto tail = patternBytes(kMiB, 2);
    const std::vector<std::byte> zeros(kMiB);
    auto writer = m_fs->write("/sparse.img", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(head));
    for (int i = 0; i < 8; ++i)
        REQUIRE_OK((*writer)->write(zeros));
    REQUIRE_OK((*writer)->write(tail));
    REQUIRE_OK((*writer)->commit());

    struct stat st {};
    QCOMPARE(::stat(local("/sparse.img").c_str(), &st), 0);
    QCOMPARE(std::size_t(st.st_size), 10 * kMiB);
    const auto allocated = std::size_t(st.st_blocks) * 512;
    QVERIFY2(allocated <= 4 * kMiB, std::to_string(allocated).c_str());

    std::vector<std::byte> buffer(kMiB);
    for (std::size_t i = 0; i < 10; ++i) {
        auto n = m_fs->read("/sparse.img", i * kMiB, buffer);
        REQUIRE_OK(n);
        QCOMPARE(*n, kMiB);
        const auto &expected = i == 0 ? head : i == 9 ? tail : zeros;
        QVERIFY2(buffer == expected, ("MiB " + std::to_string(i) + " differs").c_str());
    }
    auto map = m_fs->extents("/sparse.img");
    REQUIRE_OK(map);
    const std::vector<Extent> expected = {
        {0, kMiB, ExtentKind::Data}, {kMiB, 8 * kMiB, ExtentKind::Hole}, {9 * kMiB, kMiB, ExtentKind::Data}};
    QCOMPARE(extentsText(*map), extentsText(expected));
}

void TestFileBackend::trailingZerosKeepTheLength()
{
    auto writer = m_fs->write("/tail.img", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->write(asBytes("data")));
    REQUIRE_OK((*writer)->write(std::vector<std::byte>(2 * kMiB)));
    QVERIFY(!(*writer)->committedSize());
    REQUIRE_OK((*writer)->commit());
    struct stat st {};
    QCOMPARE(::stat(local("/tail.img").c_str(), &st), 0);
    QCOMPARE(std::size_t(st.st_size), 2 * kMiB + 4);
    // What the copier checks instead of a stat of the new name: the size it was renamed with.
    QCOMPARE((*writer)->committedSize().value_or(0), std::uint64_t(2 * kMiB + 4));
    QVERIFY(std::size_t(st.st_blocks) * 512 < kMiB);
}

void TestFileBackend::zerosOverWrittenBytesReadAsZeros()
{
    // Skipping zero blocks is only right where nothing was written yet.
    auto writer = m_fs->write("/rewritten.img", {});
    REQUIRE_OK(writer);
    REQUIRE_OK((*writer)->writeAt(0, patternBytes(256 * 1024, 4)));
    REQUIRE_OK((*writer)->writeAt(64 * 1024, std::vector<std::byte>(128 * 1024)));
    REQUIRE_OK((*writer)->commit());
    const std::string back = readRaw(local("/rewritten.img"));
    QCOMPARE(back.size(), std::size_t(256 * 1024));
    const auto original = patternBytes(256 * 1024, 4);
    QVERIFY(back.substr(0, 64 * 1024) == asString(std::span(original).first(64 * 1024)));
    QVERIFY2(back.substr(64 * 1024, 128 * 1024) == std::string(128 * 1024, '\0'),
             "zeros written over earlier bytes were skipped: the old bytes show through");
    QVERIFY(back.substr(192 * 1024) == asString(std::span(original).subspan(192 * 1024)));
}

void TestFileBackend::copyKeepsSparseFileSparse()
{
    const std::size_t size = 32 * kMiB;
    const auto block = patternBytes(64 * 1024, 9);
    {
        int fd = ::open(local("/src.img").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        auto closeFd = qScopeGuard([fd] { ::close(fd); });
        QCOMPARE(::ftruncate(fd, off_t(size)), 0);
        for (std::size_t at : {std::size_t(0), size / 2, size - block.size()})
            QCOMPARE(::pwrite(fd, block.data(), block.size(), off_t(at)), ssize_t(block.size()));
    }
    REQUIRE_OK(m_fs->copy("/src.img", "/dst.img"));

    struct stat src {
    }, dst{};
    QCOMPARE(::stat(local("/src.img").c_str(), &src), 0);
    QCOMPARE(::stat(local("/dst.img").c_str(), &dst), 0);
    QCOMPARE(dst.st_size, src.st_size);
    QVERIFY2(std::size_t(dst.st_blocks) * 512 <= kMiB, std::to_string(dst.st_blocks * 512).c_str());
    QCOMPARE(readRaw(local("/dst.img")) == readRaw(local("/src.img")), true);
    auto a = m_fs->extents("/src.img");
    auto b = m_fs->extents("/dst.img");
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    QCOMPARE(extentsText(*b), extentsText(*a));
    QCOMPARE(int(b->size()), 5);
    QCOMPARE(joined(namesIn(m_root)), std::string("dst.img, src.img"));
}

void TestFileBackend::permissionDenied()
{
    if (::geteuid() != 0)
        QSKIP("needs root to create files another user cannot reach and switch to that user");
    QCOMPARE(::chmod(m_root.c_str(), 0755), 0); // the unprivileged user may enter the root
    QVERIFY(writeRaw(local("/public.txt"), "hello", 0644));
    QVERIFY(writeRaw(local("/secret.txt"), "top secret", 0600));
    QCOMPARE(::mkdir(local("/locked").c_str(), 0755), 0);

    const int readCode = inChild([&] {
        if (!dropToNobody())
            return kCodeCannotDropPrivileges;
        std::vector<std::byte> buffer(64);
        auto pub = m_fs->read("/public.txt", 0, buffer);
        if (!pub || *pub != 5)
            return kCodeCannotReachRoot;
        auto n = m_fs->read("/secret.txt", 0, buffer);
        return n ? kCodeSucceeded : codeFor(n.error().kind());
    });
    QVERIFY2(readCode == codeFor(ErrorKind::PermissionDenied), describeCode(readCode).c_str());

    const int writeCode = inChild([&] {
        if (!dropToNobody())
            return kCodeCannotDropPrivileges;
        std::vector<std::byte> buffer(64);
        if (auto pub = m_fs->read("/public.txt", 0, buffer); !pub)
            return kCodeCannotReachRoot;
        auto writer = m_fs->write("/locked/new.txt", {});
        if (!writer)
            return codeFor(writer.error().kind());
        auto st = (*writer)->write(asBytes("intruder"));
        if (st)
            st = (*writer)->commit();
        return st ? kCodeSucceeded : codeFor(st.error().kind());
    });
    QVERIFY2(writeCode == codeFor(ErrorKind::PermissionDenied), describeCode(writeCode).c_str());
    QCOMPARE(joined(namesIn(local("/locked"))), std::string());
    QCOMPARE(readRaw(local("/secret.txt")), std::string("top secret"));
}

void TestFileBackend::diskFull()
{
    const std::string small = local("/small");
    QCOMPARE(::mkdir(small.c_str(), 0755), 0);
    int code = -1;
    if (::mount("tmpfs", small.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m") == 0) {
        qInfo("disk full: a 1 MiB tmpfs mounted at %s", small.c_str());
        auto unmount = qScopeGuard([&] { ::umount2(small.c_str(), MNT_DETACH); });
        auto fs = FileBackend::open(small);
        REQUIRE_OK(fs);
        code = fillUp(**fs, "/full.bin");
        QCOMPARE(joined(namesIn(small)), std::string());
    } else {
        const std::string why = std::strerror(errno);
        qInfo("disk full: cannot mount a tmpfs (%s); a 1 MiB RLIMIT_FSIZE in a child instead", why.c_str());
        code = inChild([&] {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{kMiB, kMiB};
            if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
                return kCodeCannotDropPrivileges;
            return fillUp(*m_fs, "/small/full.bin");
        });
        if (code < 0)
            QSKIP(("neither a tmpfs mount (" + why + ") nor a child process with a file size limit works").c_str());
    }
    QVERIFY2(code == codeFor(ErrorKind::NoSpace), describeCode(code).c_str());
    QCOMPARE(joined(namesIn(small)), std::string());
    REQUIRE_KIND(m_fs->stat("/small/full.bin"), ErrorKind::NotFound);
}

} // namespace strata

QTEST_GUILESS_MAIN(strata::TestFileBackend)
#include "test_file_backend.moc"
