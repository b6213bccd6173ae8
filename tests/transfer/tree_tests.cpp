// Trees, several sources, cp's naming rules, bounded parallelism, sync and move.
#include "tests/transfer/alloc_counter.h"
#include "tests/transfer/transfer_suite.h"

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <random>

namespace strata::test {

namespace {

bool contains(const std::vector<std::string> &list, const std::string &item)
{
    return std::find(list.begin(), list.end(), item) != list.end();
}

} // namespace

void TransferSuite::recursiveTree()
{
    // 500 files of 0–64 KiB in 50 directories, some names with spaces and non-ASCII.
    std::mt19937 rng(42);
    std::uniform_int_distribution<std::uint64_t> sizes(0, 64 * 1024);
    std::uint64_t total = 0;
    for (int d = 0; d < 50; ++d) {
        const std::string dir = "tree/d" + std::to_string(d);
        QVERIFY(makeDirs(m_src->op(), m_src->path(dir)));
        for (int f = 0; f < 10; ++f) {
            const std::string name =
                "f" + std::to_string(f) + (f % 3 == 0 ? " with space" : "") + (f % 5 == 0 ? "-é" : "") + ".bin";
            const auto size = sizes(rng);
            total += size;
            REQUIRE_DONE(putPattern(m_src->op(), m_src->path(dir + "/" + name), size, std::uint64_t(d * 100 + f)));
        }
    }
    // And an empty folder, deeper in an empty one: on an object store only a marker shows it.
    QVERIFY(makeDirs(m_src->op(), m_src->path("tree/hollow/empty")));
    auto o = options();
    o.recursive = true;
    auto out = run(spec({m_src->uri("tree")}, m_dst->uri(), o));
    REQUIRE_COMPLETED(out);
    QVERIFY(out.report.failures.empty());
    QCOMPARE(out.report.filesCopied, 500u);
    QCOMPARE(out.report.bytesTotal, total);
    // Folders: tree and its 52. On an object store the files make their folders: markers go
    // only to the three with no file right in them (tree, hollow and empty).
    QCOMPARE(out.report.dirsCreated, m_dst->caps().has(Capability::RealDirectories) ? 53u : 3u);
    const auto copied = snapshot(m_dst->op(), m_dst->path("tree"));
    QCOMPARE(copied.size(), std::size_t(552));
    QCOMPARE(copied, snapshot(m_src->op(), m_src->path("tree")));
    QCOMPARE(names(m_dst->op(), m_dst->path()), std::vector<std::string>{"tree"});
}

void TransferSuite::foldersOfALevelMadeSideBySide()
{
    // A tree of 12 folders under one, and one under the first of them, copied to a storage
    // whose every folder takes 40 ms to make (a server far away; one refuses a folder whose
    // parent is missing): the 12 are made side by side once the one above them is, the
    // deepest after its parent, and --jobs 1 makes them one at a time.
    for (int d = 0; d < 12; ++d)
        QVERIFY(makeDirs(m_src->op(), m_src->path("levels/d" + std::to_string(d))));
    QVERIFY(makeDirs(m_src->op(), m_src->path("levels/d0/deeper")));
    m_fake->setDirTime(std::chrono::milliseconds(40));
    auto o = options();
    o.recursive = true;
    auto out = run(spec({m_src->uri("levels")}, "fake://store/levels", o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(out.report.dirsCreated, 14u);
    QVERIFY(m_fake->hasDir("/levels/d0/deeper"));
    QVERIFY(m_fake->hasDir("/levels/d11"));
    const auto most = m_fake->mostDirsAtOnce();
    QVERIFY2(most > 1 && most <= 8, std::to_string(most).c_str());
    m_fake->setDirTime(std::chrono::milliseconds(40)); // counted afresh
    o.jobs = 1;
    REQUIRE_COMPLETED(run(spec({m_src->uri("levels")}, "fake://store/again", o)));
    QCOMPARE(m_fake->mostDirsAtOnce(), std::size_t(1));
    QVERIFY(m_fake->hasDir("/again/d0/deeper"));
    m_fake->setDirTime(std::chrono::milliseconds(0));
}

void TransferSuite::folderModesBesideOrAfterTheirFiles()
{
    // A local tree (it keeps modes whatever the pair): "open" (0755) and "shut" (0555),
    // a file in each, copied to a store whose commits take 300 ms. The shut folder's mode
    // waits for its file (it would refuse the file otherwise). On a distant store the open
    // one's is set beside the files once bytes moved, before its file's commit is done (a
    // round trip or two saved at the end); nearby it waits too (a connection more would
    // cost more than the round trip).
    QTemporaryDir local;
    QVERIFY(local.isValid());
    namespace fs = std::filesystem;
    const fs::path root = local.path().toStdString();
    for (const char *name : {"open", "shut"}) {
        fs::create_directories(root / "modes" / name);
        std::ofstream(root / "modes" / name / "f.txt") << name;
    }
    fs::permissions(root / "modes" / "shut", fs::perms(0555));
    auto o = options();
    o.recursive = true;
    for (const std::size_t streams : {0, 8}) {
        const std::string to = "/modes" + std::to_string(streams);
        m_fake->setWritable(std::chrono::milliseconds(300), streams);
        auto out = run(spec({(root / "modes").string()}, "fake://store" + to, o));
        m_fake->setWritable(std::chrono::milliseconds(0));
        REQUIRE_COMPLETED(out);
        QCOMPARE(out.report.filesCopied, 2u);
        const auto openMode = m_fake->step(to + "/open"), openFile = m_fake->step(to + "/open/f.txt");
        const auto shutMode = m_fake->step(to + "/shut"), shutFile = m_fake->step(to + "/shut/f.txt");
        QVERIFY(openMode > 0 && openFile > 0 && shutMode > 0 && shutFile > 0);
        if (streams > 0)
            QVERIFY2(openMode < openFile, "the open folder's mode waited for its file on a distant store");
        else
            QVERIFY2(openMode > openFile, "the open folder's mode came before its file on a store nearby");
        QVERIFY2(shutMode > shutFile, "the shut folder's mode came before its file");
    }
    fs::permissions(root / "modes" / "shut", fs::perms(0755)); // the temporary folder can go
}

void TransferSuite::severalSourcesIntoOneDirectory()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("set/d")));
    QVERIFY(putBytes(m_src->op(), m_src->path("set/a.txt"), asBytes("alpha")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("set/b.bin"), 1u << 20, 2));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("set/d/x"), 1000, 3));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("set/d/y"), 0, 4));
    auto o = options();
    o.recursive = true;
    // A missing destination becomes a directory when several sources go there.
    auto out =
        run(spec({m_src->uri("set/a.txt"), m_src->uri("set/b.bin"), m_src->uri("set/d")}, m_dst->uri("multi"), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(out.report.filesCopied, 4u);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("multi")), snapshot(m_src->op(), m_src->path("set")));

    // Several sources into an existing file: refused as a whole, the file untouched.
    QVERIFY(putBytes(m_dst->op(), m_dst->path("file.txt"), asBytes("keep")));
    out = run(spec({m_src->uri("set/a.txt"), m_src->uri("set/b.bin")}, m_dst->uri("file.txt"), o));
    QCOMPARE_STATE(out.state, JobState::Failed);
    QVERIFY2(out.report.error.find("directory") != std::string::npos, out.report.error.c_str());
    auto kept = m_dst->op().readAll(m_dst->path("file.txt"));
    QVERIFY(kept);
    QCOMPARE(std::string(reinterpret_cast<const char *>(kept->data()), kept->size()), std::string("keep"));
}

void TransferSuite::namingRules()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("dir/sub")));
    QVERIFY(putBytes(m_src->op(), m_src->path("a.txt"), asBytes("alpha")));
    QVERIFY(putBytes(m_src->op(), m_src->path("dir/one.txt"), asBytes("one")));
    QVERIFY(putBytes(m_src->op(), m_src->path("dir/sub/two.txt"), asBytes("two")));
    QVERIFY(makeDirs(m_dst->op(), m_dst->path("existing")));
    const std::vector<std::string> dirChildren{"one.txt", "sub"};
    auto o = options();

    // A file to a missing name: copied as that name.
    REQUIRE_COMPLETED(run(spec({m_src->uri("a.txt")}, m_dst->uri("new.txt"), o)));
    QCOMPARE(digest(m_dst->op(), m_dst->path("new.txt")), digest(m_src->op(), m_src->path("a.txt")));
    // A file to an existing directory: copied into it.
    REQUIRE_COMPLETED(run(spec({m_src->uri("a.txt")}, m_dst->uri("existing"), o)));
    QCOMPARE(names(m_dst->op(), m_dst->path("existing")), std::vector<std::string>{"a.txt"});
    // A trailing slash: into a directory, created if missing.
    REQUIRE_COMPLETED(run(spec({m_src->uri("a.txt")}, m_dst->uri("fresh/"), o)));
    QCOMPARE(names(m_dst->op(), m_dst->path("fresh")), std::vector<std::string>{"a.txt"});
    // A directory without recursion: refused, nothing written.
    auto refused = run(spec({m_src->uri("dir")}, m_dst->uri("nope"), o));
    QCOMPARE_STATE(refused.state, JobState::Failed);
    QCOMPARE(refused.report.failures.size(), std::size_t(1));
    QCOMPARE(refused.report.failures[0].kind, ErrorKind::IsDirectory);
    QVERIFY(!exists(m_dst->op(), m_dst->path("nope")));

    o.recursive = true;
    // A directory to a missing name: the copy takes that name.
    REQUIRE_COMPLETED(run(spec({m_src->uri("dir")}, m_dst->uri("renamed"), o)));
    QCOMPARE(names(m_dst->op(), m_dst->path("renamed")), dirChildren);
    // A directory to an existing directory: copied into it under its own name.
    REQUIRE_COMPLETED(run(spec({m_src->uri("dir")}, m_dst->uri("existing"), o)));
    QCOMPARE(names(m_dst->op(), m_dst->path("existing")), (std::vector<std::string>{"a.txt", "dir"}));
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("existing/dir")), snapshot(m_src->op(), m_src->path("dir")));
    QCOMPARE(names(m_dst->op(), m_dst->path()), (std::vector<std::string>{"existing", "fresh", "new.txt", "renamed"}));
}

void TransferSuite::boundedParallelism()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("many")));
    for (int i = 0; i < 200; ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("many/f" + std::to_string(i)), 1u << 20, std::uint64_t(i)));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("many/big.bin"), 64u << 20, 999));
    auto o = options();
    o.recursive = true;
    o.chunkSize = 1u << 20;
    o.maxBytesInFlight = 4u << 20;
    // Writers that buffer their own parts (the S3 multipart writer: 8 MiB parts, several
    // in flight) hold memory outside the engine's pool; the bound is the engine's.
    const bool ownBuffers = !m_dst->caps().has(Capability::PositionalWrite);
    std::map<int, TransferReport> reports;
    for (int jobs : {8, 1}) {
        o.jobs = jobs;
        const std::uint64_t liveBefore = bigLiveBytes();
        resetBigPeak();
        auto out = run(spec({m_src->uri("many")}, m_dst->uri("jobs" + std::to_string(jobs)), o));
        REQUIRE_COMPLETED(out);
        QCOMPARE(out.report.filesCopied, 201u);
        // Buffers in flight stay under the limit whatever the number of files.
        const std::uint64_t peak = bigPeakBytes() - liveBefore;
        if (!ownBuffers)
            QVERIFY2(peak <= o.maxBytesInFlight + (1u << 20),
                     ("peak of big allocations during the copy: " + std::to_string(peak)).c_str());
        else
            qInfo("destination buffers its own parts: peak %llu bytes (engine limit %llu)",
                  static_cast<unsigned long long>(peak), static_cast<unsigned long long>(o.maxBytesInFlight));
        reports[jobs] = out.report;
    }
    const auto expected = snapshot(m_src->op(), m_src->path("many"));
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("jobs8")), expected);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("jobs1")), expected);
    QCOMPARE(reports[8].bytesCopied, reports[1].bytesCopied);
    QCOMPARE(reports[8].bytesTotal, reports[1].bytesTotal);
}

void TransferSuite::syncCopiesOnlyWhatChanged()
{
    std::vector<std::string> files;
    for (const std::string dir : {"site/a", "site/b", "site/b/c"}) {
        QVERIFY(makeDirs(m_src->op(), m_src->path(dir)));
        for (int i = 0; i < 4; ++i) {
            files.push_back(dir + "/f" + std::to_string(i));
            REQUIRE_DONE(
                putPattern(m_src->op(), m_src->path(files.back()), 1000u * std::uint64_t(i + 1), files.size()));
        }
    }
    files.push_back("site/large.bin"); // in parts, journaled
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path(files.back()), 10u << 20, 77));
    ageSources(files);
    auto o = options();
    o.mode = TransferMode::Sync;
    const auto sync = spec({m_src->uri("site")}, m_dst->uri("mirror"), o);

    auto first = run(sync);
    REQUIRE_COMPLETED(first);
    QCOMPARE(first.report.filesCopied, 13u);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("mirror")), snapshot(m_src->op(), m_src->path("site")));

    // Nothing changed: nothing copied.
    auto second = run(sync);
    REQUIRE_COMPLETED(second);
    QCOMPARE(second.report.filesCopied, 0u);
    QCOMPARE(second.report.filesSkipped, 13u);
    QCOMPARE(second.report.bytesCopied, 0u);

    // One file changes size: only it is copied.
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("site/b/f2"), 1234, 5));
    auto third = run(sync);
    REQUIRE_COMPLETED(third);
    QCOMPARE(third.report.filesCopied, 1u);
    QCOMPARE(third.report.bytesCopied, 1234u);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("mirror")), snapshot(m_src->op(), m_src->path("site")));

    // Extras stay without --delete and go with it.
    QVERIFY(putBytes(m_dst->op(), m_dst->path("mirror/extra.txt"), asBytes("extra")));
    QVERIFY(makeDirs(m_dst->op(), m_dst->path("mirror/b/old")));
    QVERIFY(putBytes(m_dst->op(), m_dst->path("mirror/b/old/x.txt"), asBytes("old")));
    auto keep = run(sync);
    REQUIRE_COMPLETED(keep);
    QVERIFY(exists(m_dst->op(), m_dst->path("mirror/extra.txt")));
    QCOMPARE(keep.report.filesDeleted, 0u);
    o.deleteExtra = true;
    auto pruned = run(spec({m_src->uri("site")}, m_dst->uri("mirror"), o));
    REQUIRE_COMPLETED(pruned);
    QCOMPARE(pruned.report.filesCopied, 0u);
    QCOMPARE(pruned.report.filesDeleted, 2u); // extra.txt and the directory old/
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("mirror")), snapshot(m_src->op(), m_src->path("site")));
    QVERIFY(journalFiles().empty());
}

void TransferSuite::syncDryRunChangesNothing()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("site")));
    for (const std::string name : {"keep.txt", "change.txt"})
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path("site/" + name), 100, 1));
    ageSources({"site/keep.txt", "site/change.txt"});
    auto o = options();
    o.mode = TransferMode::Sync;
    REQUIRE_COMPLETED(run(spec({m_src->uri("site")}, m_dst->uri("mirror"), o)));

    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("site/change.txt"), 200, 2));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("site/new.txt"), 300, 3));
    QVERIFY(putBytes(m_dst->op(), m_dst->path("mirror/extra.txt"), asBytes("extra")));
    const auto before = snapshot(m_dst->op(), m_dst->path("mirror"));
    o.dryRun = true;
    o.deleteExtra = true;
    auto out = run(spec({m_src->uri("site")}, m_dst->uri("mirror"), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("mirror")), before);
    QCOMPARE(out.report.filesCopied, 0u);
    QCOMPARE(out.report.filesDeleted, 0u);
    const auto &actions = out.report.actions;
    QCOMPARE(actions.size(), std::size_t(3));
    auto has = [&](const std::string &verb, const std::string &name) {
        return std::any_of(actions.begin(), actions.end(), [&](const std::string &a) {
            return a.starts_with(verb + " ") && a.find(name) != std::string::npos;
        });
    };
    QVERIFY2(has("copy", "change.txt"), QTest::toString(actions));
    QVERIFY2(has("copy", "new.txt"), QTest::toString(actions));
    QVERIFY2(has("delete", "extra.txt"), QTest::toString(actions));
    QVERIFY(!has("copy", "keep.txt"));
    QVERIFY(journalFiles().empty());
}

void TransferSuite::moveRemovesSources()
{
    QVERIFY(makeDirs(m_src->op(), m_src->path("out/inner/deeper")));
    std::vector<std::string> files{"out/a.bin", "out/inner/b.bin", "out/inner/deeper/c.bin"};
    for (std::size_t i = 0; i < files.size(); ++i)
        REQUIRE_DONE(putPattern(m_src->op(), m_src->path(files[i]), 5000 * (i + 1), i));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("single.bin"), 12u << 20, 9));
    const auto tree = snapshot(m_src->op(), m_src->path("out"));
    const auto single = digest(m_src->op(), m_src->path("single.bin"));
    auto o = options();
    o.mode = TransferMode::Move;
    o.recursive = true;

    auto out = run(spec({m_src->uri("out")}, m_dst->uri(), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(out.report.filesCopied, 3u);
    QCOMPARE(out.report.filesDeleted, 3u);
    QCOMPARE(snapshot(m_dst->op(), m_dst->path("out")), tree);
    // Emptied source directories go too, the top one included.
    QVERIFY(!exists(m_src->op(), m_src->path("out")));

    out = run(spec({m_src->uri("single.bin")}, m_dst->uri("moved.bin"), o));
    REQUIRE_COMPLETED(out);
    QCOMPARE(digest(m_dst->op(), m_dst->path("moved.bin")), single);
    QVERIFY(!exists(m_src->op(), m_src->path("single.bin")));
    QVERIFY(!contains(names(m_src->op(), m_src->path()), "single.bin"));
    QVERIFY(journalFiles().empty());
}

void TransferSuite::copyOntoItselfRefused()
{
    // Both ends on the source's backend: the same object, or a tree into itself.
    QVERIFY(makeDirs(m_src->op(), m_src->path("self/sub")));
    REQUIRE_DONE(putPattern(m_src->op(), m_src->path("self/a.bin"), 1000, 1));
    const auto before = snapshot(m_src->op(), m_src->path("self"));
    auto o = options();
    o.existing = ExistingPolicy::Overwrite;
    auto same = run(spec({m_src->uri("self/a.bin")}, m_src->uri("self/a.bin"), o));
    QCOMPARE_STATE(same.state, JobState::Failed);
    QCOMPARE(same.report.failures.size(), std::size_t(1));
    QCOMPARE(same.report.failures[0].kind, ErrorKind::InvalidInput);
    o.recursive = true;
    auto into = run(spec({m_src->uri("self")}, m_src->uri("self/sub"), o));
    QCOMPARE_STATE(into.state, JobState::Failed);
    QCOMPARE(into.report.failures.size(), std::size_t(1));
    QCOMPARE(into.report.failures[0].kind, ErrorKind::InvalidInput);
    QCOMPARE(snapshot(m_src->op(), m_src->path("self")), before);
}

} // namespace strata::test
